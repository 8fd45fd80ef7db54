import { lookup as systemLookup } from 'node:dns/promises';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrowserApplier } from '@quarry/hosted-form-apply';
import { startApplicationsRole } from '@quarry/applications-worker';
import { createClient } from '@quarry/auth';
import { loadConfig } from '@quarry/config';
import { miningErrorMessages } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createChromiumPool, type ChromiumPool } from '@quarry/browser';
import { createMiner, createProcessSignIns, createWorkdayMiner, type Miner } from '@quarry/miner';
import { startMiningRole } from '@quarry/mining-worker';
import { createLogger } from '@quarry/observability';
import { createSafeFetch, type Lookup } from '@quarry/safe-fetch';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startHostedAtsDouble,
  waitFor,
  workdayHostedVendor,
  workdayJobPath,
  workdayQuestions,
  workdaySaved,
  type HostedAtsDouble,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * A Workday posting from the client's account to the tenant's inbox: the account registered on a
 * real API process, the posting mined by the mining role and applied to by the applications role
 * (in this process, so their Chromium reaches the Workday double under the tenant's own host
 * name), the client reading both through the API.
 */

const tenantHost = 'acme.wd5.myworkdayjobs.com';
const postingUrl = `http://${tenantHost}${workdayJobPath}`;
const registered = { email: 'ada@example.com', password: 'correct horse battery staple' };
const secretKey = Buffer.alloc(32, 13);
const cvBytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0x00, 0xff, 0x0a]), Buffer.from('Ada Lovelace\n')]);
const cxs = '/wday/cxs/acme/External';

let vendor: ReturnType<typeof workdayHostedVendor>;
let double: HostedAtsDouble;
let storage: Server;
let storageOrigin: string;
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let pool: ChromiumPool;
let api: QuarryProcess;
let roles: Array<{ stop(graceMs: number): Promise<void> }> = [];
let authorization: string;
const logs = new PassThrough();
let logged = '';

beforeAll(async () => {
  vendor = workdayHostedVendor(registered);
  double = await startHostedAtsDouble(vendor);
  storage = createServer((_request, response) => void response.writeHead(200, { 'content-type': 'application/pdf' }).end(cvBytes));
  storage.listen(0, '127.0.0.1');
  await once(storage, 'listening');
  storageOrigin = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;

  database = await createTestDatabase('workday-account');
  testRedis = createTestRedis('workday-account');
  const env = {
    ...quarryEnv({ database, redis: testRedis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    AUTH_CACHE_MS: '0',
    JOB_LOCK_MS: '10000',
    MINING_BATCH_POLL_MS: '200',
    MINING_BATCH_CONCURRENCY: '3',
    // The roles below drive the Chromium of this test; they start none of their own.
    MINING_BROWSER: 'off',
  };
  api = await startQuarry('api', env, 60_000);
  db = createPool(database.url, 4);
  const tenant = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  authorization = `Basic ${Buffer.from(`${tenant.secret}:`).toString('base64')}`;

  // The tenant's host name reaches the double: in Chromium by its resolver rules, in the SSRF
  // guard by this lookup (loopback, which ALLOW_PRIVATE_URLS permits).
  pool = createChromiumPool({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    recycleAfterJobs: 100,
    maxContexts: 3,
    hostResolverRules: `MAP ${tenantHost} 127.0.0.1:${new URL(double.origin).port}`,
  });
  const lookup: Lookup = async (name) =>
    name === tenantHost
      ? [{ address: '127.0.0.1', family: 4 }]
      : (await systemLookup(name, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  const allowPrivate = ['127.0.0.1'];
  // One memory of refused sign-ins for the process's miner and applier, as the roles share it.
  const signIns = createProcessSignIns();
  const miner: Miner = createMiner({
    fetch: createSafeFetch({ allowPrivate }),
    timeoutMs: 10_000,
    workday: createWorkdayMiner({ pool, allowPrivate, lookup, timeoutMs: 120_000, signIns }),
  });
  logs.on('data', (chunk: Buffer) => (logged += chunk.toString()));
  const logger = createLogger({ level: 'debug', destination: logs });
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  const shared = new Map<string, { close(): Promise<void> }>();
  const runtime = {
    db,
    redis,
    queues,
    logger,
    miner,
    runsCanary: false,
    workerId: `${hostname()}:${process.pid}`,
    events: { onError: (error: unknown, where: string) => logger.error({ err: error, where }, 'worker error') },
    shared: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
      if (!shared.has(name)) shared.set(name, create());
      return shared.get(name) as T;
    },
  };
  roles = [
    await startMiningRole({ ...runtime, config: loadConfig(env, 'mining-worker') }),
    await startApplicationsRole({
      ...runtime,
      config: loadConfig(env, 'applications-worker'),
      applier: createBrowserApplier({ pool, allowPrivate, lookup, timeoutMs: 180_000, signIns }),
    }),
  ];
}, 120_000);

afterAll(async () => {
  await Promise.all(roles.map((role) => role.stop(5_000)));
  if (api && api.child.exitCode === null && api.child.signalCode === null) {
    api.child.kill('SIGKILL');
    await api.exited;
  }
  await queues?.close();
  redis?.disconnect();
  await pool?.close();
  await double?.close();
  storage?.closeAllConnections();
  storage?.close();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${api.port}${path}`, {
    ...init,
    headers: {
      authorization,
      ...(init.body && typeof init.body === 'string' && init.body.startsWith('{') ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });

type Mined = {
  status?: string;
  errorCode?: string;
  questions?: Array<{ id: string; category?: string } & Record<string, unknown>>;
  answers?: unknown[];
};
const minedOf = (jobPostId: string) =>
  waitFor(
    `${jobPostId} mined`,
    async () => {
      const body = (await (await call(`/v2/recruitment/job-posts/find?jobPostId=${jobPostId}`)).json()) as Mined;
      return body.questions || body.status === 'failed' ? body : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 250 },
  );

type Status = { status: string; errorCode?: string; message?: string; confirmation?: { text: string } };
const endedOf = (applicationId: string) =>
  waitFor(
    `application ${applicationId} to end`,
    async () => {
      const status = (await (await call(`/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}`)).json()) as Status;
      return status.status === 'processing' ? undefined : status;
    },
    { timeoutMs: 240_000, intervalMs: 250 },
  );

// The candidate's answers by Workday's field keys; name and phone come from `candidate`, the résumé from `files.cv`.
const answers = [
  { id: 'source', value: 'LinkedIn' },
  { id: 'previousWorker', value: false },
  { id: 'addressLine1', value: '12 St James Square' },
  { id: 'city', value: 'London' },
  { id: 'postalCode', value: 'SW1Y 4JH' },
  { id: 'jobTitle', value: 'Analyst' },
  { id: 'company', value: 'Analytical Engines Ltd' },
  { id: 'location', value: 'London' },
  { id: 'current', value: true },
  { id: 'startDate', value: '1843-09-01' },
  { id: 'roleDescription', value: 'Notes on the engine.\nThe first program.' },
  { id: 'school', value: 'University of London' },
  { id: 'degree', value: 'B.S. - Bachelor of Science' },
  { id: 'skills', value: ['SQL', 'Python'] },
  { id: 'workAuthorization', value: 'Yes' },
  { id: 'sponsorship', value: 'No' },
  { id: 'offices', value: ['London', 'Remote'] },
  { id: 'availableFrom', value: '2027-01-15' },
  { id: 'motivation', value: 'Engines.' },
  { id: 'gender', value: 'Female' },
  { id: 'veteranStatus', value: 'I am not a veteran' },
  { id: 'termsAndConditions', value: true },
];
const candidate = { email: 'ada.lovelace@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0001' };
// What the tenant keeps of them, by Workday's field keys: texts and choices as given, dates as their boxes, the résumé's bytes.
const expectedSaved = new Map<string, unknown>([
  ...answers
    .filter((answer) => !['startDate', 'availableFrom'].includes(answer.id))
    .map((answer): [string, unknown] => [answer.id, answer.value]),
  ['firstName', 'Ada'],
  ['lastName', 'Lovelace'],
  ['phoneNumber', '+44 20 7946 0001'],
  ['startDateMonth', '09'],
  ['startDateYear', '1843'],
  ['availableFromMonth', '01'],
  ['availableFromDay', '15'],
  ['availableFromYear', '2027'],
  ['upload resume', { bytes: cvBytes }],
  ['resume', [{ id: expect.stringMatching(/^attachment-/), name: 'ada-cv.pdf' }]],
]);
// What Submit sent the employer: the account's draft as it stood, which mining had filled with
// placeholders and the placeholder résumé; the candidate's answers and résumé alone, byte for byte.
const expectedApplication = {
  ...Object.fromEntries([...expectedSaved].filter(([key]) => key !== 'upload resume' && key !== 'resume')),
  resume: [{ name: 'ada-cv.pdf', bytes: cvBytes }],
};
const withoutCategory = (questions: NonNullable<Mined['questions']>) => questions.map(({ category: _category, ...question }) => question);
const eventsSince = (from: number) => double.events.slice(from).filter((event) => !event.startsWith('GET'));
// Each step saved once, the résumé uploaded once: by the miner (with placeholders), then by the application, which submits.
const stepSaves = ['myInformation', 'attachments', 'myExperience', 'primaryQuestionnaire', 'voluntaryDisclosures'].map(
  (step) => `early ${cxs}/${step === 'attachments' ? step : `jobapplication/${step}`}`,
);

function expectEveryAnswerOnce(events: string[], submissionsBefore: number, submittedBefore: number) {
  expect(events).toEqual([...stepSaves, `POST ${cxs}/jobapplication/submit`]);
  expect(double.submissions.length - submissionsBefore).toBe(1);
  // The application's own saves are the last five writes.
  expect(Object.fromEntries(workdaySaved(double.earlyWrites.slice(-stepSaves.length)))).toEqual(Object.fromEntries(expectedSaved));
  expect(vendor.submitted.slice(submittedBefore)).toEqual([{ email: registered.email, job: workdayJobPath, values: expectedApplication }]);
  expect(vendor.draftOf(registered.email)).toBeUndefined();
}

describe("a Workday posting mined and applied to with the client's tenant account", () => {
  it('registered → mined (every step, never submitted) → applied through the API → the tenant got every answer under its field names, once', async () => {
    expect((await post('/v1/recruitment/ats-credentials', { ats: 'workday', board: tenantHost, ...registered })).status).toBe(201);

    const mineStarted = performance.now();
    expect(
      (
        await post('/v1/recruitment/job-posts/mine/', {
          jobPostId: 'wd-1',
          url: postingUrl,
          employer: 'Acme',
          jobTitle: 'Software Developer',
        })
      ).status,
    ).toBe(200);
    const mined = await minedOf('wd-1');
    console.log(`Workday single-post mining through the queue: ${Math.round(performance.now() - mineStarted)} ms`);
    expect(mined.status, JSON.stringify(mined)).toBeUndefined();
    expect(withoutCategory(mined.questions ?? [])).toEqual(workdayQuestions());
    expect(mined.questions?.find((question) => question.id === 'resume')?.category).toBe('resume');
    expect(vendor.signIns).toEqual([{ email: registered.email, accepted: true }]);
    expect(double.submissions).toHaveLength(0);
    // Mining left its draft in the account: placeholders and the placeholder résumé, which the application resumes.
    expect(vendor.draftOf(registered.email)).toMatchObject({ firstName: 'Jane', resume: [{ name: 'jane-doe-cv.pdf' }] });

    const eventsBefore = double.events.length;
    const applyStarted = performance.now();
    const applied = await post('/v1/recruitment/job-posts/apply/', {
      jobPostId: 'wd-1',
      candidate,
      files: { cv: { type: 'File', url: `${storageOrigin}/ada-cv.pdf`, filename: 'ada-cv.pdf' } },
      answers,
    });
    expect(applied.status).toBe(200);
    const { applicationId } = (await applied.json()) as { applicationId: string };
    const status = await endedOf(applicationId);
    console.log(`Workday application through the queue: ${Math.round(performance.now() - applyStarted)} ms`);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'success' });
    expectEveryAnswerOnce(eventsSince(eventsBefore), 0, 0);
    expect(vendor.signIns).toEqual([
      { email: registered.email, accepted: true },
      { email: registered.email, accepted: true },
    ]);
  }, 420_000);

  it('an application to a posting never mined: its job mines it with the account, then applies', async () => {
    const eventsBefore = double.events.length;
    const submissionsBefore = double.submissions.length;
    const submittedBefore = vendor.submitted.length;
    const applied = await post('/v1/recruitment/job-posts/apply/', {
      jobPostId: 'wd-2',
      url: postingUrl,
      employer: 'Acme',
      jobTitle: 'Software Developer',
      candidate: { ...candidate, email: 'ada.king@example.com' },
      files: { cv: { type: 'File', url: `${storageOrigin}/ada-cv.pdf`, filename: 'ada-cv.pdf' } },
      answers,
    });
    expect(applied.status).toBe(200);
    const { applicationId } = (await applied.json()) as { applicationId: string };
    const status = await endedOf(applicationId);
    expect(status, JSON.stringify(status)).toMatchObject({ status: 'success' });
    // Mined in the application's job (its saves with placeholders), recorded for the client.
    expect(withoutCategory((await minedOf('wd-2')).questions ?? [])).toEqual(workdayQuestions());
    const events = eventsSince(eventsBefore);
    expect(events.slice(0, stepSaves.length)).toEqual(stepSaves);
    expectEveryAnswerOnce(events.slice(stepSaves.length), submissionsBefore, submittedBefore);
  }, 420_000);

  it('a wrong password: a batch of its postings ends LoginRequired, with one sign-in attempt; nothing secret is logged or queued', async () => {
    expect(
      (
        await post('/v1/recruitment/ats-credentials', {
          ats: 'workday',
          board: tenantHost,
          email: registered.email,
          password: 'Tr0ub4dor&3',
        })
      ).status,
    ).toBe(201);
    const signInsBefore = vendor.signIns.length;
    const writesBefore = double.earlyWrites.length;
    const rows = ['wd-b1', 'wd-b2', 'wd-b3', 'wd-b4'].map((id) => `${id},${postingUrl},Acme,Software Developer`);
    const batch = await call('/v1/recruitment/job-posts/batch/mine/', {
      method: 'POST',
      body: ['jobPostId,url,employer,jobTitle', ...rows].join('\r\n'),
      headers: { 'content-type': 'text/csv' },
    });
    expect(batch.status).toBe(200);
    for (const id of ['wd-b1', 'wd-b2', 'wd-b3', 'wd-b4'])
      expect(await minedOf(id)).toEqual({ status: 'failed', errorCode: 'LoginRequired', message: miningErrorMessages.LoginRequired });
    // An application to another posting of the tenant, never mined: its mining meets the refusal, and says so.
    const applied = await post('/v1/recruitment/job-posts/apply/', {
      jobPostId: 'wd-b5',
      url: postingUrl,
      employer: 'Acme',
      jobTitle: 'Software Developer',
      candidate: { ...candidate, email: 'augusta.ada@example.com' },
      files: { cv: { type: 'File', url: `${storageOrigin}/ada-cv.pdf`, filename: 'ada-cv.pdf' } },
      answers,
    });
    const refused = await endedOf(((await applied.json()) as { applicationId: string }).applicationId);
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed' });
    expect(refused.message).toMatch(
      /^The application form could not be read \(LoginRequired\): LoginFailed: Workday refused the client's account for acme\.wd5\.myworkdayjobs\.com: "refused at an earlier sign-in"/,
    );
    expect(vendor.signIns.slice(signInsBefore)).toEqual([{ email: registered.email, accepted: false }]);
    expect(double.earlyWrites.length).toBe(writesBefore);

    // The job payloads are ids; the password and the email reach neither Redis, the logs nor the stored outcomes.
    const secrets = /Tr0ub4dor|correct horse|ada@example\.com/;
    const keys = await redis.keys(`${testRedis.prefix}*`);
    const stored: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'hash') stored.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'string') stored.push((await redis.get(key)) ?? '');
      else if (type === 'list') stored.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'stream') stored.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
    expect(stored.join('\n')).not.toMatch(secrets);
    // The capture works: the roles' own lines are in it.
    expect(logged).toContain('application finished');
    expect(logged).not.toMatch(secrets);
    expect(api.output()).not.toMatch(secrets);
    const rowsText = await db.query<{ text: string }>('SELECT row_to_json(s)::text AS text FROM submissions AS s');
    expect(rowsText.rows.map((row) => row.text).join('\n')).not.toMatch(secrets);
  }, 300_000);
});
