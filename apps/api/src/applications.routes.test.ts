import { runApplication, type ApplicationsPorts } from '@quarry/applications';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import type { Question } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { findMinedPost } from '@quarry/recruitment';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { createFakeApplier } from '@quarry/testing/hosted-form-apply';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 9);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let app: Awaited<ReturnType<typeof startEdgeApp>>;
let base: string;
let ports: ApplicationsPorts;
let tenant: { clientId: string; secret: string };
let other: { clientId: string; secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const q = (id: string, inputType: Question['inputType'], extra: Partial<Question> = {}): Question => ({
  id,
  question: `Question ${id}`,
  inputType,
  label: 'Apply',
  mandatory: true,
  ...extra,
});
const questions: Question[] = [
  q('first_name', 'Text', { category: 'firstName' }),
  q('email', 'Text', { category: 'email' }),
  q('resume', 'File', { category: 'resume', accept: ['.pdf', '.docx'] }),
  q('visa', 'SelectOne', {
    options: [
      {
        answer: 'Yes',
        conditionalQuestions: [
          q('visa_type', 'SelectOne', {
            options: [
              { answer: 'H-1B', conditionalQuestions: [q('visa_expiry', 'Date')] },
              { answer: 'Other', conditionalQuestions: [] },
            ],
          }),
        ],
      },
      { answer: 'No', conditionalQuestions: [] },
    ],
  }),
  q('start', 'Date', { mandatory: false }),
];
const cv = { type: 'File', url: 'https://files.example/cv.pdf', filename: 'cv.pdf' };
const body = (extra: Record<string, unknown> = {}) => ({
  jobPostId: 'post-1',
  candidate: { email: 'Ada@Example.com', firstName: 'Ada', lastName: 'Lovelace' },
  files: { cv },
  answers: [{ id: 'visa', value: 'No' }],
  ...extra,
});

async function mine(clientId: string, jobPostId: string): Promise<void> {
  const submission = await db.query<{ submission_id: string }>(
    `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, state) VALUES ($1, $2, 'https://jobs.example/apply/1', 'Acme', 'Engineer', 'gb', 'completed') RETURNING submission_id`,
    [clientId, jobPostId],
  );
  const stored = JSON.stringify({ jobPostId, succeededAt: new Date().toISOString(), answers: [], questions });
  await db.query(
    `INSERT INTO mining_results (client_id, job_post_id, submission_id, body, body_v1, succeeded_at, adapter, duration_ms) VALUES ($1, $2, $3, $4, $4, now(), 'test', 1)`,
    [clientId, jobPostId, submission.rows[0]!.submission_id, stored],
  );
}

const post = (as: { secret: string }, payload: unknown, headers: Record<string, string> = {}, path = '/v1/recruitment/job-posts/apply/') =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: basic(as.secret), 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
const find = (as: { secret: string }, query: string) =>
  fetch(`${base}/v1/recruitment/job-posts/find/application/?${query}`, { headers: { authorization: basic(as.secret) } });
const waitingJobs = async () =>
  (await queues.queue('applications.apply').getJobs(['waiting'])).map(
    (job) => (job.data as { payload: { applicationId: string } }).payload.applicationId,
  );

beforeAll(async () => {
  database = await createTestDatabase('api-applications');
  testRedis = createTestRedis('api-applications');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  tenant = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  other = await createClient({ db, secretKey }, { name: 'another recruiter', scopes: ['recruitment'] });
  await mine(tenant.clientId, 'post-1');
  await mine(other.clientId, 'post-1');
  ports = {
    pool: db,
    sealer: createSealer(secretKey),
    findMinedPost: (clientId, jobPostId) => findMinedPost(db, clientId, jobPostId),
    enqueueApply: enqueuer(queues, 'applications.apply'),
  };
  app = await startEdgeApp({ db, queues, secretKey, applications: ports });
  base = app.base;
});

afterAll(async () => {
  await app.close();
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('POST /v1/recruitment/job-posts/apply/', () => {
  it('accepts a valid application, stores it sealed and queues it', async () => {
    const response = await post(tenant, body());
    expect(response.status).toBe(200);
    const accepted = (await response.json()) as { applicationId: string; status: string };
    expect(accepted).toEqual({ applicationId: expect.any(String), status: 'processing' });
    expect(await waitingJobs()).toContain(accepted.applicationId);
    const status = await find(tenant, `applicationId=${accepted.applicationId}`);
    expect(await status.json()).toEqual({ applicationId: accepted.applicationId, jobPostId: 'post-1', status: 'processing' });
    // Nothing that identifies the candidate is readable in the row.
    const row = await db.query<{ text: string }>('SELECT row_to_json(a)::text AS text FROM applications AS a WHERE application_id = $1', [
      accepted.applicationId,
    ]);
    // Words, not hex: a ciphertext's hex may hold any three hex letters ("ada" among them).
    expect(row.rows[0]!.text.toLowerCase()).not.toContain('lovelace');
    expect(row.rows[0]!.text.toLowerCase()).not.toContain('ada@example.com');
    expect(row.rows[0]!.text).not.toContain('files.example');
  });

  it('works without the trailing slash', async () => {
    expect((await post(tenant, body(), {}, '/v1/recruitment/job-posts/apply')).status).toBe(200);
  });

  it('answers 400 naming each problem by question id, conditional questions two levels deep included', async () => {
    const response = await post(
      tenant,
      body({
        files: { cv: { ...cv, filename: 'cv.txt' } },
        answers: [
          { id: 'visa', value: 'Yes' },
          { id: 'visa_type', value: 'H-1B' },
          { id: 'start', value: '31/01/2026' },
          { id: 'hobby', value: 'chess' },
        ],
      }),
    );
    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: string; message: string };
    expect(error.error).toBe('RequestParametersValidationError');
    expect(error.message).toContain('answers resume: "cv.txt" is not one of the accepted types (.pdf, .docx)');
    expect(error.message).toContain('answers visa_expiry: required');
    expect(error.message).toContain('answers start: must be an ISO 8601 date');
    expect(error.message).toContain('answers hobby: no such question in this job post');
    expect(await waitingJobs()).toHaveLength(2);
  });

  it('answers 400 naming fields of the envelope', async () => {
    const response = await post(tenant, { jobPostId: 'post-1', candidate: { email: 'not-an-email', firstName: 'Ada' }, files: {} });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { message: string };
    expect(error.message).toContain('candidate.email');
    expect(error.message).toContain('candidate.lastName');
    expect(error.message).toContain('files.cv');
  });

  it('needs url for a post this client has not mined, and then accepts it to be mined first', async () => {
    const missing = await post(tenant, body({ jobPostId: 'never-mined' }));
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/^url: required/);
    const withUrl = await post(tenant, body({ jobPostId: 'never-mined', url: 'https://jobs.example/apply/2' }));
    expect(withUrl.status).toBe(200);
  });

  it('returns the first application for a repeated Idempotency-Key, per client', async () => {
    const first = (await (await post(tenant, body(), { 'idempotency-key': 'req-42' })).json()) as { applicationId: string };
    const again = (await (await post(tenant, body(), { 'idempotency-key': 'req-42' })).json()) as { applicationId: string };
    expect(again.applicationId).toBe(first.applicationId);
    const otherClients = (await (await post(other, body(), { 'idempotency-key': 'req-42' })).json()) as { applicationId: string };
    expect(otherClients.applicationId).not.toBe(first.applicationId);
    const rows = await db.query('SELECT 1 FROM applications WHERE idempotency_key = $1', ['req-42']);
    expect(rows.rows).toHaveLength(2);
  });

  it('answers 401 without credentials, in the {error, message} shape', async () => {
    const response = await fetch(`${base}/v1/recruitment/job-posts/apply/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body()),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'AuthenticationRequired' });
  });
});

describe('GET /v1/recruitment/job-posts/find/application/', () => {
  it('shows another client 404, by id and by post and email', async () => {
    const { applicationId } = (await (
      await post(tenant, body({ candidate: { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' } }))
    ).json()) as { applicationId: string };
    expect((await find(tenant, `applicationId=${applicationId}`)).status).toBe(200);
    expect((await find(tenant, 'jobPostId=post-1&email=GRACE@example.com')).status).toBe(200);
    const byId = await find(other, `applicationId=${applicationId}`);
    expect(byId.status).toBe(404);
    expect(await byId.json()).toMatchObject({ error: 'NotFound' });
    expect((await find(other, 'jobPostId=post-1&email=grace@example.com')).status).toBe(404);
    expect(
      (
        await fetch(`${base}/v1/recruitment/job-posts/find/application/screenshot/?applicationId=${applicationId}`, {
          headers: { authorization: basic(other.secret) },
        })
      ).status,
    ).toBe(404);
  });

  it('answers 400 naming the query parameters', async () => {
    const response = await find(tenant, 'jobPostId=post-1');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toContain('email');
    expect((await find(tenant, 'applicationId=42')).status).toBe(400);
  });
});

describe('a candidate who already applied', () => {
  it('gets AlreadyApplied without the site being touched again', async () => {
    const candidate = { email: 'katherine@example.com', firstName: 'Katherine', lastName: 'Johnson' };
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const applier = createFakeApplier([
      { status: 'success', confirmation: { reference: 'APP-7', text: 'Thank you for applying' }, screenshot: png },
    ]);
    const { applicationId } = (await (await post(tenant, body({ candidate }))).json()) as { applicationId: string };
    const summary = await runApplication(
      {
        ...ports,
        miner: async () => {
          throw new Error('not mined again');
        },
        recordMining: async () => {
          throw new Error('not mined again');
        },
        applier,
        limitHost: (_host, work) => work(),
        maxFileBytes: 1024,
        fetchFile: fakeFiles,
      },
      applicationId,
      { signal: new AbortController().signal, finalAttempt: true },
    );
    expect(summary).toEqual({ applicationId, status: 'success' });
    const success = (await (await find(tenant, `applicationId=${applicationId}`)).json()) as {
      status: string;
      confirmation: { reference: string; text: string; screenshot: string };
      submittedAt: string;
    };
    expect(success).toMatchObject({ status: 'success', confirmation: { reference: 'APP-7', text: 'Thank you for applying' } });
    const screenshot = await fetch(`${base}${success.confirmation.screenshot}`, { headers: { authorization: basic(tenant.secret) } });
    expect(screenshot.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await screenshot.arrayBuffer())).toEqual(png);

    const queuedBefore = (await waitingJobs()).length;
    const second = (await (await post(tenant, body({ candidate: { ...candidate, email: 'KATHERINE@example.com' } }))).json()) as {
      applicationId: string;
    };
    expect(await (await find(tenant, `applicationId=${second.applicationId}`)).json()).toMatchObject({
      status: 'failed',
      errorCode: 'AlreadyApplied',
    });
    expect((await waitingJobs()).length).toBe(queuedBefore);
    expect(applier.calls).toHaveLength(1);
    // Another client applying the same candidate is its own business.
    const others = (await (await post(other, body({ candidate }))).json()) as { applicationId: string };
    expect(await (await find(other, `applicationId=${others.applicationId}`)).json()).toMatchObject({ status: 'processing' });
  });
});

/** The candidate's CV, as the client's storage would serve it. */
const fakeFiles = Object.assign(
  async () => {
    const { Readable } = await import('node:stream');
    const bytes = Buffer.from('%PDF-1.7\nthe CV');
    return {
      status: 200,
      ok: true,
      headers: new Headers(),
      url: cv.url,
      redirected: false,
      body: Readable.from([bytes]),
      bodyUsed: false,
      text: async () => '',
      json: async () => ({}),
      arrayBuffer: async () => new ArrayBuffer(0),
    };
  },
  { close: async () => {} },
);

describe('operators', () => {
  it('list applications by status and error code with the recent failures, and pause the applications queue', async () => {
    const operator = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
    const overview = (await (
      await fetch(`${base}/v1/admin/applications`, { headers: { authorization: basic(operator.secret) } })
    ).json()) as {
      counts: Array<{ status: string; errorCode: string | null; count: number }>;
      recentFailures: Array<{ errorCode: string; jobPostId: string; screenshot: string | null }>;
    };
    expect(overview.counts).toContainEqual({ status: 'failed', errorCode: 'AlreadyApplied', count: 1 });
    expect(overview.counts).toContainEqual({ status: 'success', errorCode: null, count: 1 });
    expect(overview.recentFailures[0]).toMatchObject({ errorCode: 'AlreadyApplied', jobPostId: 'post-1', screenshot: null });
    expect((await fetch(`${base}/v1/admin/applications`, { headers: { authorization: basic(tenant.secret) } })).status).toBe(403);

    const paused = await fetch(`${base}/v1/admin/queues/applications.apply/pause`, {
      method: 'POST',
      headers: { authorization: basic(operator.secret) },
    });
    expect(paused.status).toBe(200);
    expect(await queues.queue('applications.apply').isPaused()).toBe(true);
    await fetch(`${base}/v1/admin/queues/applications.apply/resume`, {
      method: 'POST',
      headers: { authorization: basic(operator.secret) },
    });
  });
});
