import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createPgClient, createPool, migrateToLatest, withTransaction, type Pool } from '@quarry/db';
import { bulkEnqueuer, createJobQueues, createRedis, startWorkers, type JobQueues, type WorkerPool } from '@quarry/jobs';
import { createSealer } from '@quarry/keyring';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createTestDatabase, createTestRedis, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
// The receiver's side is verified by the Standard Webhooks reference library from npm, not by our code.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCallbackSecret, rotateCallbackSecret } from './callback-clients.ts';
import { applicationEndedEvent, batchFinishedEvent, jobPostEvent } from './callback-events.ts';
import { claimDueCallbacks, oweCallback } from './callback-outbox.queries.ts';
import { callbackClientView } from './callbacks-overview.ts';
import { deliverCallbacks, type DeliverySettings } from './deliver-callbacks.ts';
import { startCallbackRelay, type CallbackRelay } from './relay-callbacks.ts';

/**
 * Recruitment's callbacks from the outbox to a receiver: the real relay (LISTEN, advisory lock,
 * per-client cap), the real `callbacks.deliver` queue on Redis, the real SSRF-guarded fetch, real
 * Postgres, and receivers on loopback. Signatures are checked by the `standardwebhooks` package.
 */
type Received = { path: string; headers: IncomingHttpHeaders; body: string; at: number };

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let relay: CallbackRelay;
let workers: WorkerPool;
let receiver: Server;
let origin: string;
const received: Received[] = [];
/** Per path: how to answer (status), or hold the request until released. */
const answers = new Map<string, number | 'hold'>();
const held: Array<() => void> = [];
let openHeld = 0;
let maxOpenHeld = 0;
const sealer = createSealer(randomBytes(32));
const settings: DeliverySettings = {
  timeoutMs: 3_000,
  retryBaseMs: 200,
  retryMaxMs: 800,
  giveUpAfterMs: 60_000,
  // The relay's cap and lease below: a job keeps its client's lane as the worker's do.
  lane: { clientConcurrency: 3, leaseMs: 30_000, eventsPerRound: 25, forMs: 10_000 },
};
const secrets = new Map<string, string>();

const clients = [
  'cl_events0000000000000',
  'cl_outage0000000000000',
  'cl_slow00000000000000',
  'cl_fast00000000000000',
  'cl_rotate000000000000',
  'cl_ssrf00000000000000',
  'cl_late00000000000000',
  'cl_lane00000000000000',
  'cl_quiet0000000000000',
  'cl_trickle00000000000',
] as const;
const [events, outage, slow, fast, rotate, ssrf, late, lane, quiet, trickle] = clients;
/** `callbacks.deliver` jobs run, per client. */
const jobsRun = new Map<string, number>();

function startReceiver(): Server {
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body, at: Date.now() });
      const answer = answers.get(path) ?? 204;
      if (answer === 'hold') {
        openHeld += 1;
        maxOpenHeld = Math.max(maxOpenHeld, openHeld);
        held.push(() => {
          openHeld -= 1;
          response.writeHead(204).end();
        });
        return;
      }
      response.writeHead(answer).end();
    });
  });
}

const receivedAt = (path: string) => received.filter((request) => request.path === path);
const verify = (clientId: string, request: Received) =>
  new Webhook(secrets.get(clientId) as string).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };

async function owe(clientId: string, path: string, count = 1, prefix = 'post'): Promise<void> {
  await withTransaction(db, async (client) => {
    for (let index = 0; index < count; index += 1) {
      const event = jobPostEvent({ jobPostId: `${prefix}-${index}`, batchId: null, kind: 'completed', succeededAt: new Date() });
      await oweCallback(client, { clientId, url: `${origin}${path}`, subjectId: `${prefix}-${index}`, at: new Date(), ...event });
    }
  });
}

const stateOf = async (clientId: string) =>
  (
    await db.query<{ state: string; attempts: number; last_error: string | null; webhook_id: string }>(
      'SELECT state, attempts, last_error, webhook_id FROM callback_outbox WHERE client_id = $1 ORDER BY event_id',
      [clientId],
    )
  ).rows;

beforeAll(async () => {
  database = await createTestDatabase('callbacks');
  testRedis = createTestRedis('callbacks');
  await migrateToLatest(database.url);
  db = createPool(database.url, 6);
  for (const clientId of clients) {
    await db.query(
      `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, $1, '{recruitment}', $2, '\\x00')`,
      [clientId, Buffer.from(clientId)],
    );
    secrets.set(clientId, (await ensureCallbackSecret(db, sealer, clientId)) as string);
  }
  receiver = startReceiver();
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  relay = startCallbackRelay({
    pool: db,
    enqueue: bulkEnqueuer(queues, 'callbacks.deliver'),
    settings: { clientConcurrency: 3, eventsPerJob: 25, leaseMs: 30_000, pollMs: 200, retentionMs: 7 * 86_400_000 },
    onError: () => {},
  });
  // Loopback 127.0.0.1 is allowed, as ALLOW_PRIVATE_URLS does in the demo; 127.0.0.2 is not.
  const fetchCallback = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
  workers = startWorkers({
    connection: redis,
    prefix: testRedis.prefix,
    queues: ['callbacks.deliver'],
    concurrency: 10,
    lockDurationMs: 10_000,
    stalledIntervalMs: 4_000,
    handlers: {
      'callbacks.deliver': (payload, { signal }) => {
        jobsRun.set(payload.clientId, (jobsRun.get(payload.clientId) ?? 0) + 1);
        return deliverCallbacks({ pool: db, sealer, fetchCallback, settings }, payload, signal).finally(() => relay.wake());
      },
    },
  });
}, 60_000);

afterAll(async () => {
  for (const release of held.splice(0)) release();
  await relay?.stop();
  await workers?.close(1_000);
  await queues?.close();
  redis?.disconnect();
  receiver?.close();
  await db?.end();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('recruitment callbacks', () => {
  it('delivers each event type as a Standard Webhooks message the reference library verifies, with no candidate data', async () => {
    await withTransaction(db, async (client) => {
      const at = new Date('2027-03-01T10:00:00Z');
      const owed = [
        jobPostEvent({ jobPostId: 'acme 1/2', batchId: null, kind: 'completed', succeededAt: at }),
        jobPostEvent({ jobPostId: 'acme-3', batchId: '6f1c2d1e-8a57-4a52-9f0e-0c3cf0f7a001', kind: 'failed', errorCode: 'JobExpired' }),
        batchFinishedEvent({
          batchId: '6f1c2d1e-8a57-4a52-9f0e-0c3cf0f7a001',
          jobsCount: 3,
          completed: 2,
          failed: 1,
          failedByErrorCode: { JobExpired: 1 },
          finishedAt: at,
        }),
        applicationEndedEvent({
          applicationId: '9d7f3f5e-3b7a-4a43-9a0e-2a1b1c1d1e1f',
          jobPostId: 'acme 1/2',
          status: 'success',
          errorCode: null,
          transport: { kind: 'vendorApi', vendor: 'greenhouse' },
          submittedAt: at,
          replacedUnknown: false,
        }),
      ];
      for (const event of owed) await oweCallback(client, { clientId: events, url: `${origin}/events`, subjectId: 'x', at, ...event });
    });
    const got = await waitFor('four events', () => receivedAt('/events').length >= 4 && receivedAt('/events'));
    const bodies = got.map((request) => verify(events, request));
    expect(bodies.map((body) => body.type).sort()).toEqual(['application.ended', 'batch.finished', 'jobPost.failed', 'jobPost.mined']);
    const byType = Object.fromEntries(bodies.map((body) => [body.type, body]));
    expect(byType['jobPost.mined']?.data).toEqual({
      jobPostId: 'acme 1/2',
      batchId: null,
      status: 'completed',
      succeededAt: '2027-03-01T10:00:00.000Z',
      links: { questions: '/questions/acme%201%2F2', find: '/v2/recruitment/job-posts/find?jobPostId=acme%201%2F2' },
    });
    expect(byType['jobPost.failed']?.data).toMatchObject({
      jobPostId: 'acme-3',
      status: 'failed',
      errorCode: 'JobExpired',
      message: 'The job post is closed. Drop the post.',
    });
    expect(byType['batch.finished']?.data).toMatchObject({
      jobsCount: 3,
      counts: { completed: 2, failed: 1, failedByErrorCode: { JobExpired: 1 } },
      links: { status: '/v1/recruitment/job-posts/batch/status/?batchId=6f1c2d1e-8a57-4a52-9f0e-0c3cf0f7a001' },
    });
    expect(byType['application.ended']?.data).toEqual({
      applicationId: '9d7f3f5e-3b7a-4a43-9a0e-2a1b1c1d1e1f',
      jobPostId: 'acme 1/2',
      status: 'success',
      transport: { kind: 'vendorApi', vendor: 'greenhouse' },
      submittedAt: '2027-03-01T10:00:00.000Z',
      links: { application: '/v1/recruitment/job-posts/find/application/?applicationId=9d7f3f5e-3b7a-4a43-9a0e-2a1b1c1d1e1f' },
    });
    expect(
      got.every(
        (request) =>
          request.headers['content-type'] === 'application/json' && /^msg_[0-9a-f]{32}$/.test(String(request.headers['webhook-id'])),
      ),
    ).toBe(true);
    // The check can fail: another client's secret, or a body changed in transit, does not verify.
    expect(() => new Webhook(secrets.get(fast) as string).verify(got[0]?.body ?? '', got[0]?.headers as Record<string, string>)).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(secrets.get(events) as string).verify(`${got[0]?.body} `, got[0]?.headers as Record<string, string>)).toThrow(
      WebhookVerificationError,
    );
    await waitFor('all delivered', async () => (await stateOf(events)).every((row) => row.state === 'delivered' && row.attempts === 1));
  });

  it('retries after a receiver outage with the same webhook-id, so the receiver drops the repeat', async () => {
    // Down: nothing listens on the port.
    const down = createServer();
    down.listen(0, '127.0.0.1');
    await once(down, 'listening');
    const port = (down.address() as AddressInfo).port;
    down.close();
    await once(down, 'close');
    await withTransaction(db, (client) =>
      oweCallback(client, {
        clientId: outage,
        url: `http://127.0.0.1:${port}/back`,
        subjectId: 'p',
        at: new Date(),
        ...jobPostEvent({ jobPostId: 'p', batchId: null, kind: 'completed' }),
      }),
    );
    const failing = await waitFor('two refused attempts', async () => {
      const [row] = await stateOf(outage);
      return row && row.attempts >= 2 && row.state === 'pending' && row;
    });
    expect(failing.last_error).toMatch(/ECONNREFUSED/);
    // Back, but answering 503 to the first request it reads (it did read it: a receiver that failed after storing it).
    const back = startReceiver();
    answers.set('/back', 503);
    back.listen(port, '127.0.0.1');
    await once(back, 'listening');
    try {
      await waitFor('a 503 seen', () => receivedAt('/back').length >= 1);
      answers.set('/back', 200);
      await waitFor('delivered', async () => (await stateOf(outage))[0]?.state === 'delivered', { timeoutMs: 20_000 });
      const deliveries = receivedAt('/back');
      expect(deliveries.length).toBeGreaterThanOrEqual(2);
      const ids = new Set(deliveries.map((request) => request.headers['webhook-id']));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toBe(failing.webhook_id);
      // Every attempt is signed anew (its own timestamp), and every one verifies.
      for (const request of deliveries) expect(verify(outage, request).data).toMatchObject({ jobPostId: 'p' });
      const view = await callbackClientView(db, outage, { limit: 10 });
      expect(view.counts).toEqual({ waiting: 0, sending: 0, delivered: 1, failed: 0 });
      expect(view.recent[0]).toMatchObject({ state: 'delivered', lastStatus: 200 });
      expect(view.recent[0]?.attempts).toBeGreaterThanOrEqual(3);
    } finally {
      back.close();
    }
  });

  it('holds at most the client cap of one slow receiver in flight while another client is delivered', async () => {
    answers.set('/slow', 'hold');
    await owe(slow, '/slow', 10, 'slow');
    await waitFor('the slow client at its cap', () => openHeld === 3);
    await owe(fast, '/fast', 6, 'fast');
    await waitFor('the fast client delivered', async () => (await stateOf(fast)).every((row) => row.state === 'delivered'));
    expect(openHeld).toBe(3);
    const view = await callbackClientView(db, slow, { limit: 50 });
    expect(view.counts).toMatchObject({ sending: 3, waiting: 7, delivered: 0 });
    // Released one by one as they come: never more than three at once.
    while ((await stateOf(slow)).some((row) => row.state !== 'delivered')) {
      for (const release of held.splice(0)) release();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(maxOpenHeld).toBe(3);
    expect(receivedAt('/slow')).toHaveLength(10);
  });

  it("commits an owed event without a NOTIFY (which would serialize every outcome's commit), and the relay's poll delivers it", async () => {
    const listener = createPgClient(database.url);
    await listener.connect();
    const notified: string[] = [];
    listener.on('notification', (message) => notified.push(message.channel));
    try {
      // The channel the outbox's trigger used to notify, and the one a notification from any trigger would use.
      await listener.query('LISTEN callback_outbox');
      await owe(quiet, '/quiet');
      await waitFor('delivered by the poll', async () => (await stateOf(quiet))[0]?.state === 'delivered', { timeoutMs: 5_000 });
      const triggers = await db.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'callback_outbox'::regclass AND NOT tgisinternal`);
      expect(triggers.rows).toEqual([]);
      expect(notified).toEqual([]);
    } finally {
      await listener.end();
    }
  });

  it("keeps a client's lane in one job: its next events are claimed with the answers, under its cap, not by a job each", async () => {
    await owe(lane, '/lane', 60, 'lane');
    await waitFor('all delivered', async () => (await stateOf(lane)).every((row) => row.state === 'delivered'), { timeoutMs: 20_000 });
    // Three at a time (the cap): twenty claims. The relay's first makes a job, which claims the other nineteen itself.
    expect(jobsRun.get(lane)).toBeLessThanOrEqual(3);
    const got = receivedAt('/lane');
    expect(got).toHaveLength(60);
    expect(new Set(got.map((request) => verify(lane, request).data.jobPostId)).size).toBe(60);
    expect((await stateOf(lane)).every((row) => row.attempts === 1)).toBe(true);
  });

  it('leaves events that trickle in to the relay: a job whose round was not full does not keep a lane', async () => {
    // The relay stopped: this job's is the only claim that could take the second event.
    await relay.stop();
    try {
      answers.set('/trickle', 'hold');
      await owe(trickle, '/trickle', 1, 'first');
      const claimed = await claimDueCallbacks(db, { clientConcurrency: 3, leaseMs: 30_000 });
      expect(claimed.map((event) => event.clientId)).toEqual([trickle]);
      const job = deliverCallbacks(
        { pool: db, sealer, fetchCallback: createSafeFetch({ allowPrivate: ['127.0.0.1'] }), settings },
        { clientId: trickle, events: claimed.map(({ eventId, seq }) => ({ eventId, seq })) },
        new AbortController().signal,
      );
      await waitFor('the first in flight', () => receivedAt('/trickle').length === 1);
      // A second event comes due while the job's one-event round is in flight.
      await owe(trickle, '/trickle', 1, 'second');
      answers.set('/trickle', 204);
      for (const release of held.splice(0)) release();
      expect(await job).toMatchObject({ delivered: 1 });
      expect(receivedAt('/trickle')).toHaveLength(1);
      expect((await stateOf(trickle)).map((row) => row.state)).toEqual(['delivered', 'pending']);
    } finally {
      relay = startCallbackRelay({
        pool: db,
        enqueue: bulkEnqueuer(queues, 'callbacks.deliver'),
        settings: { clientConcurrency: 3, eventsPerJob: 25, leaseMs: 30_000, pollMs: 200, retentionMs: 7 * 86_400_000 },
        onError: () => {},
      });
    }
    await waitFor('the second delivered by the relay', async () => (await stateOf(trickle)).every((row) => row.state === 'delivered'));
  });

  it("signs with both secrets during a rotation's overlap, so a receiver with either verifies", async () => {
    const before = secrets.get(rotate) as string;
    const rotated = await rotateCallbackSecret({ pool: db, sealer }, rotate, 24);
    expect(rotated.webhookSecret).toMatch(/^whsec_/);
    await owe(rotate, '/rotate');
    const [request] = await waitFor('the rotated event', () => receivedAt('/rotate').length === 1 && receivedAt('/rotate'));
    expect(String(request?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    secrets.set(rotate, before);
    expect(verify(rotate, request as Received).type).toBe('jobPost.mined');
    secrets.set(rotate, rotated.webhookSecret as string);
    expect(verify(rotate, request as Received).type).toBe('jobPost.mined');
  });

  it('refuses a private address at delivery (the SSRF guard), and nothing reaches it', async () => {
    const other = startReceiver();
    other.listen(0, '127.0.0.2');
    await once(other, 'listening');
    const before = received.length;
    try {
      await withTransaction(db, (client) =>
        oweCallback(client, {
          clientId: ssrf,
          url: `http://127.0.0.2:${(other.address() as AddressInfo).port}/private`,
          subjectId: 'p',
          at: new Date(),
          ...jobPostEvent({ jobPostId: 'p', batchId: null, kind: 'completed' }),
        }),
      );
      const row = await waitFor('a refused attempt', async () => (await stateOf(ssrf)).find((event) => event.attempts >= 1));
      expect(row?.last_error).toMatch(/SSRF policy/);
      expect(received.length).toBe(before);
    } finally {
      other.close();
    }
  });

  it('gives up an event still refused a day after it was owed, and sends again one whose job was lost', async () => {
    answers.set('/late', 500);
    await owe(late, '/late', 1, 'old');
    await waitFor('a refused attempt', async () => ((await stateOf(late))[0]?.attempts ?? 0) >= 1);
    await db.query(`UPDATE callback_outbox SET created_at = now() - interval '2 minutes' WHERE client_id = $1`, [late]);
    await waitFor('given up', async () => (await stateOf(late))[0]?.state === 'failed', { timeoutMs: 10_000 });
    expect((await callbackClientView(db, late, { limit: 5 })).counts.failed).toBe(1);
    // A dispatch whose job never reached Redis: claimed, never enqueued. Once its lease lapses it is sent again.
    answers.set('/late', 204);
    await relay.stop();
    await owe(late, '/late', 1, 'lost');
    const claimed = await claimDueCallbacks(db, { clientConcurrency: 3, leaseMs: 300 });
    // Another client's event still due (the SSRF case's, retried) may be claimed beside it.
    expect(claimed.filter((event) => event.clientId === late)).toHaveLength(1);
    relay = startCallbackRelay({
      pool: db,
      enqueue: bulkEnqueuer(queues, 'callbacks.deliver'),
      settings: { clientConcurrency: 3, eventsPerJob: 25, leaseMs: 30_000, pollMs: 200, retentionMs: 7 * 86_400_000 },
      onError: () => {},
    });
    await waitFor('the lost one delivered', async () => (await stateOf(late))[1]?.state === 'delivered');
    expect(verify(late, receivedAt('/late').at(-1) as Received).data).toMatchObject({ jobPostId: 'lost-0' });
  });
});
