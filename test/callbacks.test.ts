import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createPgClient } from '@quarry/db';
import { waitFor } from '@quarry/testing';
// Receivers verify with the Standard Webhooks reference library from npm, not with our code.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuarry, startQuarry, type QuarryProcess } from './support/quarry-process.ts';
import { csvOf, startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

/**
 * Recruitment's callbacks end to end, on real processes: an API, a mining worker and an
 * applications-worker (the one that relays and delivers callbacks), real Postgres and Redis, a
 * fixture careers site and a receiver on loopback. The client registers its URL on each request.
 */
type Received = { path: string; headers: IncomingHttpHeaders; body: string };
type Event = { type: string; timestamp: string; data: Record<string, unknown> };

let stack: RecruitmentStack;
let delivery: QuarryProcess;
let receiver: Server;
let hooks: string;
let secret: string;
const received: Received[] = [];
let holdRequests = false;
const held: Array<() => void> = [];

const verified = (request: Received): Event =>
  new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as Event;
const eventsAt = (path: string) => received.filter((request) => request.path === path).map(verified);

async function post(path: string, body: unknown): Promise<Response> {
  return stack.call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', headers: request.headers, body });
      if (holdRequests) held.push(() => response.writeHead(204).end());
      else response.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startRecruitmentStack('callbacks', { MINING_BROWSER: 'off', CALLBACK_RELAY_POLL_MS: '200', CALLBACK_TIMEOUT_MS: '2000' });
  delivery = await startQuarry('applications-worker', stack.env);
}, 90_000);

afterAll(async () => {
  for (const release of held.splice(0)) release();
  delivery?.child.kill('SIGKILL');
  await delivery?.exited;
  await stack?.stop();
  receiver?.close();
});

describe('callbacks end to end', () => {
  it('refuses a callbackUrl the SSRF policy refuses, naming the field, before anything is stored', async () => {
    const refused = await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'private',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      callbackUrl: 'http://10.1.2.3/hooks',
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('callbackUrl: refused');
    const stored = await stack.db.query(`SELECT count(*)::int AS count FROM submissions WHERE job_post_id = 'private'`);
    expect(stored.rows[0]).toEqual({ count: 0 });
  });

  it('announces a mined post and a failed one, signed with the secret shown once', async () => {
    const first = await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'mined-1',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      callbackUrl: `${hooks}/posts`,
    });
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { jobPostId: string; status: string; webhookSecret?: string };
    expect(answer).toMatchObject({ jobPostId: 'mined-1', status: 'queued' });
    expect(answer.webhookSecret).toMatch(/^whsec_/);
    secret = answer.webhookSecret as string;
    const second = (await (
      await post('/v1/recruitment/job-posts/mine', {
        jobPostId: 'gone-1',
        url: `${stack.web.origin}/gone/1`,
        employer: 'Acme',
        jobTitle: 'Engineer',
        callbackUrl: `${hooks}/posts`,
      })
    ).json()) as Record<string, unknown>;
    expect(second).toEqual({ jobPostId: 'gone-1', status: 'queued' });
    const events = await waitFor('both outcomes', () => eventsAt('/posts').length >= 2 && eventsAt('/posts'), { timeoutMs: 30_000 });
    const mined = events.find((event) => event.type === 'jobPost.mined');
    const failed = events.find((event) => event.type === 'jobPost.failed');
    expect(mined?.data).toMatchObject({
      jobPostId: 'mined-1',
      batchId: null,
      status: 'completed',
      links: { questions: '/questions/mined-1' },
    });
    expect(failed?.data).toMatchObject({
      jobPostId: 'gone-1',
      status: 'failed',
      errorCode: 'JobNotFound',
      message: expect.stringContaining('not found'),
    });
    // The link is what the client fetches the result from.
    const questions = (await (await stack.call(String((mined?.data.links as { questions: string }).questions))).json()) as {
      questions?: unknown[];
    };
    expect(questions.questions?.length).toBeGreaterThan(0);
  });

  it('announces every row of a CSV batch and the batch once, with its counts', async () => {
    const rows = [
      ...Array.from({ length: 6 }, (_, index) => ({ jobPostId: `b-ok-${index}`, url: `${stack.web.origin}/forms/basic?n=${index}` })),
      ...Array.from({ length: 2 }, (_, index) => ({ jobPostId: `b-gone-${index}`, url: `${stack.web.origin}/gone/${index}` })),
    ];
    const response = await stack.call(`/v1/recruitment/job-posts/batch/mine/?callbackUrl=${encodeURIComponent(`${hooks}/batch`)}`, {
      method: 'POST',
      body: csvOf(rows),
      headers: { 'content-type': 'text/csv' },
    });
    expect(response.status).toBe(200);
    const { batchId, webhookSecret } = (await response.json()) as { batchId: string; webhookSecret?: string };
    expect(webhookSecret).toBeUndefined();
    await stack.waitForBatch(batchId, 'finished');
    const events = await waitFor('nine events', () => eventsAt('/batch').length >= 9 && eventsAt('/batch'), { timeoutMs: 30_000 });
    const finished = events.filter((event) => event.type === 'batch.finished');
    expect(finished).toHaveLength(1);
    expect(finished[0]?.data).toMatchObject({
      batchId,
      jobsCount: 8,
      counts: { completed: 6, failed: 2, failedByErrorCode: { JobNotFound: 2 } },
    });
    expect(
      events
        .filter((event) => event.type === 'jobPost.mined')
        .map((event) => event.data.jobPostId)
        .sort(),
    ).toEqual(
      rows
        .slice(0, 6)
        .map((row) => row.jobPostId)
        .sort(),
    );
    expect(events.filter((event) => event.type === 'jobPost.failed').every((event) => event.data.batchId === batchId)).toBe(true);
  });

  it("announces an application's end with its transport, and no candidate data", async () => {
    const response = await post('/v1/recruitment/job-posts/apply/', {
      jobPostId: 'mined-1',
      candidate: { email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe' },
      files: { cv: { type: 'File', url: `${stack.web.origin}/files/cv.pdf`, filename: 'cv.pdf' } },
      answers: [],
      callbackUrl: `${hooks}/applications`,
    });
    expect(response.status).toBe(200);
    const { applicationId } = (await response.json()) as { applicationId: string };
    const [ended] = await waitFor('application.ended', () => eventsAt('/applications').length >= 1 && eventsAt('/applications'), {
      timeoutMs: 60_000,
    });
    expect(ended?.type).toBe('application.ended');
    expect(ended?.data).toMatchObject({
      applicationId,
      jobPostId: 'mined-1',
      status: 'failed',
      links: { application: `/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}` },
    });
    const status = (await (await stack.call(`/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}`)).json()) as {
      status: string;
      errorCode?: string;
      transport?: unknown;
    };
    expect(ended?.data.errorCode).toBe(status.errorCode);
    expect(ended?.data.transport).toEqual(status.transport);
    const raw = received
      .filter((request) => request.path === '/applications')
      .map((request) => request.body)
      .join('');
    expect(raw).not.toMatch(/jane|doe|example\.com/i);
  });

  it("sends to the client's default URL, set through the admin API, what named none; the admin API shows it delivered", async () => {
    const set = await stack.call(`/v1/admin/callbacks/${stack.tenant.clientId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${hooks}/default` }),
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({ clientId: stack.tenant.clientId, defaultUrl: `${hooks}/default`, previousSecretValidUntil: null });
    await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'default-1',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
    });
    const [event] = await waitFor("the default URL's event", () => eventsAt('/default').length >= 1 && eventsAt('/default'), {
      timeoutMs: 30_000,
    });
    expect(event?.data).toMatchObject({ jobPostId: 'default-1' });
    const view = (await (await stack.call(`/v1/admin/callbacks/${stack.tenant.clientId}?limit=5`)).json()) as {
      counts: Record<string, number>;
      recent: Array<{ state: string; url: string }>;
    };
    expect(view.counts.delivered).toBeGreaterThanOrEqual(13);
    expect(view.recent[0]).toMatchObject({ state: 'delivered', url: `${hooks}/default` });
    const overview = (await (await stack.call('/v1/admin/callbacks')).json()) as {
      clients: Array<{ clientId: string; counts: Record<string, number> }>;
    };
    expect(overview.clients.find((client) => client.clientId === stack.tenant.clientId)?.counts.waiting).toBe(0);
  });

  it('rotates the secret from the CLI: the next events are signed with the new one and the old one for the overlap', async () => {
    const refused = await runQuarry(['callbacks', 'set', stack.tenant.clientId, '--url', 'http://169.254.169.254/latest'], stack.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('refused');
    const rotated = await runQuarry(['callbacks', 'rotate', stack.tenant.clientId, '--overlap-hours', '1'], stack.env);
    expect(rotated.code).toBe(0);
    const answer = JSON.parse(rotated.stdout) as {
      webhookSecret: string;
      previousSecretValidUntil: string | null;
      defaultUrl: string | null;
    };
    expect(answer.webhookSecret).toMatch(/^whsec_/);
    expect(answer.defaultUrl).toBe(`${hooks}/default`);
    expect(Date.parse(answer.previousSecretValidUntil ?? '') - Date.now()).toBeGreaterThan(50 * 60_000);
    await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'rotated-1',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      callbackUrl: `${hooks}/rotated`,
    });
    const [request] = await waitFor(
      'the rotated event',
      () => received.filter((item) => item.path === '/rotated').length >= 1 && received.filter((item) => item.path === '/rotated'),
      { timeoutMs: 30_000 },
    );
    expect(verified(request as Received).data).toMatchObject({ jobPostId: 'rotated-1' });
    secret = answer.webhookSecret;
    expect(verified(request as Received).data).toMatchObject({ jobPostId: 'rotated-1' });
    const shown = await runQuarry(['callbacks', 'show', stack.tenant.clientId], stack.env);
    expect(shown.stdout).not.toContain('whsec_');
  });

  it('loses no event when the processes are killed right after the outcome commits', async () => {
    // The test holds the relays' lock: the outcome commits, and nothing can be sent before the kill.
    const lock = createPgClient(stack.env.DATABASE_URL as string);
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock(5301053)');
    const before = received.length;
    await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'killed-1',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      callbackUrl: `${hooks}/killed`,
    });
    await waitFor(
      'the outcome committed with its event',
      async () => {
        const owed = await stack.db.query(`SELECT state FROM callback_outbox WHERE body LIKE '%killed-1%'`);
        return owed.rows.length === 1;
      },
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    for (const quarry of [delivery, ...stack.workers]) quarry.child.kill('SIGKILL');
    await Promise.all([delivery.exited, ...stack.workers.map((worker) => worker.exited)]);
    expect(received.length).toBe(before);
    await lock.query('SELECT pg_advisory_unlock(5301053)');
    await lock.end();
    delivery = await startQuarry('applications-worker', stack.env);
    const [event] = await waitFor('the event after the restart', () => eventsAt('/killed').length >= 1 && eventsAt('/killed'), {
      timeoutMs: 30_000,
    });
    expect(event?.data).toMatchObject({ jobPostId: 'killed-1', status: 'completed' });
  });

  it('sends an event again with the same webhook-id when the delivering process dies mid-request', async () => {
    holdRequests = true;
    await stack.startWorker();
    await post('/v1/recruitment/job-posts/mine/', {
      jobPostId: 'mid-1',
      url: `${stack.web.origin}/forms/basic`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      callbackUrl: `${hooks}/mid`,
    });
    await waitFor('the first attempt in flight', () => received.some((request) => request.path === '/mid'), { timeoutMs: 30_000 });
    delivery.child.kill('SIGKILL');
    await delivery.exited;
    holdRequests = false;
    for (const release of held.splice(0)) release();
    delivery = await startQuarry('applications-worker', stack.env);
    const repeats = await waitFor(
      'the repeat',
      () => received.filter((request) => request.path === '/mid').length >= 2 && received.filter((request) => request.path === '/mid'),
      { timeoutMs: 30_000 },
    );
    expect(new Set(repeats.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(repeats.map((request) => verified(request).data.jobPostId))).toEqual(new Set(['mid-1']));
    await waitFor(
      'delivered',
      async () =>
        (await stack.db.query(`SELECT 1 FROM callback_outbox WHERE body LIKE '%mid-1%' AND state = 'delivered'`)).rows.length === 1,
    );
  });
});
