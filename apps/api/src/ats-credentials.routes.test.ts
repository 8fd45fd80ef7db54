import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findAtsAccount, findAtsCredential, runApplication, type ApplicationsPorts } from '@quarry/applications';
import { createAtsApplier } from '@quarry/ats-api-apply';
import {
  greenhouseDoubleJob,
  startGreenhouseApiDouble,
  startWorkableApiDouble,
  workableDoubleJobs,
  type VendorApiDouble,
} from '@quarry/testing';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { createMiner, defaultMinerEndpoints } from '@quarry/miner';
import { findMinedPost, recordMinedPost } from '@quarry/recruitment';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { createFakeApplier } from '@quarry/testing/hosted-form-apply';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 7);
const greenhouseKey = 'gh-live-key-0123456789';
const cvBytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 255, 13, 10]), Buffer.from('\n%%EOF\n')]);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let app: Awaited<ReturnType<typeof startEdgeApp>>;
let files: Server;
let greenhouse: VendorApiDouble;
let base: string;
let filesOrigin: string;
let ports: ApplicationsPorts;
let tenant: { clientId: string; secret: string };
let other: { clientId: string; secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const call = (as: { secret: string }, method: string, path: string, payload?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { authorization: basic(as.secret), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });

beforeAll(async () => {
  database = await createTestDatabase('api-ats-credentials');
  testRedis = createTestRedis('api-ats-credentials');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  tenant = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  other = await createClient({ db, secretKey }, { name: 'another recruiter', scopes: ['recruitment'] });
  greenhouse = await startGreenhouseApiDouble({ key: greenhouseKey });
  // The client's storage, serving the candidate's CV.
  files = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' });
    response.end(cvBytes);
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => files.once('listening', resolve));
  filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
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
  await new Promise((resolve) => files.close(resolve));
  await greenhouse.close();
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('/v1/recruitment/ats-credentials', () => {
  it('stores a key sealed per client, lists it without the key, replaces it on repeat and deletes it', async () => {
    const created = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats: 'lever', board: 'Acme', key: 'lever-secret-key' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ ats: 'lever', board: 'acme', createdAt: expect.any(String) });
    expect(
      (await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats: 'lever', board: 'acme', key: 'rotated-key' })).status,
    ).toBe(201);
    const listed = (await (await call(tenant, 'GET', '/v1/recruitment/ats-credentials')).json()) as { credentials: unknown[] };
    expect(listed).toEqual({ credentials: [{ ats: 'lever', board: 'acme', createdAt: expect.any(String) }] });
    expect(JSON.stringify(listed)).not.toContain('key');
    expect(await (await call(other, 'GET', '/v1/recruitment/ats-credentials')).json()).toEqual({ credentials: [] });
    const row = await db.query<{ text: string }>('SELECT row_to_json(c)::text AS text FROM ats_credentials AS c');
    expect(row.rows.map((stored) => stored.text).join()).not.toMatch(/rotated-key|lever-secret-key/);

    expect((await call(other, 'DELETE', '/v1/recruitment/ats-credentials/lever/acme')).status).toBe(404);
    expect((await call(tenant, 'DELETE', '/v1/recruitment/ats-credentials/lever/acme')).status).toBe(204);
    expect((await call(tenant, 'DELETE', '/v1/recruitment/ats-credentials/lever/acme')).status).toBe(404);
  });

  it('answers 400 naming the field for a vendor without an API transport, a bad board or an empty key', async () => {
    const response = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats: 'icims', board: 'acme/../x', key: '' });
    expect(response.status).toBe(400);
    const { message } = (await response.json()) as { message: string };
    expect(message).toMatch(/ats/);
    expect(message).toMatch(/board/);
    expect(message).toMatch(/key/);
  });
});

describe('a Workday tenant account', () => {
  const posting = 'https://acme.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1';
  const account = {
    ats: 'workday',
    board: 'Acme.wd5.myworkdayjobs.com',
    email: 'ada@example.com',
    password: 'correct horse battery staple',
  };

  it('is stored sealed per client, listed without its secret, opened only for postings on that tenant, and deleted', async () => {
    const created = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', account);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ ats: 'workday', board: 'acme.wd5.myworkdayjobs.com', createdAt: expect.any(String) });
    const listed = await (await call(tenant, 'GET', '/v1/recruitment/ats-credentials')).text();
    expect(listed).toContain('"ats":"workday"');
    expect(listed).not.toMatch(/horse|ada@example/);
    const row = await db.query<{ text: string }>("SELECT row_to_json(c)::text AS text FROM ats_credentials AS c WHERE ats = 'workday'");
    expect(row.rows.map((stored) => stored.text).join()).not.toMatch(/horse|ada@example/);

    expect(await findAtsAccount(ports, tenant.clientId, posting)).toEqual({
      ats: 'workday',
      board: 'acme.wd5.myworkdayjobs.com',
      email: 'ada@example.com',
      password: 'correct horse battery staple',
    });
    expect(await findAtsAccount(ports, other.clientId, posting)).toBeNull();
    expect(
      await findAtsAccount(ports, tenant.clientId, 'https://globex.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1'),
    ).toBeNull();
    // An API key is never taken for an account, nor an account for a key.
    expect(await findAtsCredential(ports, tenant.clientId, posting)).toBeNull();

    expect((await call(tenant, 'DELETE', '/v1/recruitment/ats-credentials/workday/acme.wd5.myworkdayjobs.com')).status).toBe(204);
    expect(await findAtsAccount(ports, tenant.clientId, posting)).toBeNull();
  });

  it("on a shared myworkdaysite.com host is registered for host and tenant, opened only for that tenant's postings there, and deleted by its board (its slash encoded)", async () => {
    const shared = { ...account, board: 'WD5.myworkdaysite.com/Acme' };
    const created = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', shared);
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ ats: 'workday', board: 'wd5.myworkdaysite.com/acme', createdAt: expect.any(String) });
    const acmePosting = 'https://wd5.myworkdaysite.com/en-US/recruiting/acme/External/job/London/Engineer_R1';
    expect(await findAtsAccount(ports, tenant.clientId, acmePosting)).toEqual({
      ats: 'workday',
      board: 'wd5.myworkdaysite.com/acme',
      email: 'ada@example.com',
      password: 'correct horse battery staple',
    });
    // Another tenant on the same host, the same tenant on another host: not this account.
    expect(
      await findAtsAccount(ports, tenant.clientId, 'https://wd5.myworkdaysite.com/recruiting/globex/External/job/London/Engineer_R1'),
    ).toBeNull();
    expect(
      await findAtsAccount(ports, tenant.clientId, 'https://wd3.myworkdaysite.com/recruiting/acme/External/job/London/Engineer_R1'),
    ).toBeNull();
    expect((await call(tenant, 'DELETE', '/v1/recruitment/ats-credentials/workday/wd5.myworkdaysite.com%2Facme')).status).toBe(204);
    expect(await findAtsAccount(ports, tenant.clientId, acmePosting)).toBeNull();
    // The host alone names no tenant; a slash is Workday's only.
    const hostOnly = (await (
      await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ...account, board: 'wd5.myworkdaysite.com' })
    ).json()) as { message: string };
    expect(hostOnly.message).toMatch(/board: must be the tenant host .* or host\/tenant on myworkdaysite\.com/);
    const slashed = (await (
      await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats: 'lever', board: 'acme/jobs', key: 'k' })
    ).json()) as { message: string };
    expect(slashed.message).toMatch(/board: must be the board name of the posting URLs, without a slash/);
  });

  it('answers 400 naming what is missing or misplaced: email and password for Workday, no key; a key, not an account, for the others', async () => {
    const missing = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', {
      ats: 'workday',
      board: 'acme.wd5.myworkdayjobs.com',
      key: 'an-api-key',
    });
    expect(missing.status).toBe(400);
    const { message } = (await missing.json()) as { message: string };
    expect(message).toMatch(/email/);
    expect(message).toMatch(/password/);
    expect(message).toMatch(/key: not used for workday/);
    const notTenant = (await (await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ...account, board: 'acme' })).json()) as {
      message: string;
    };
    expect(notTenant.message).toMatch(/board: must be the tenant host/);
    const lever = await call(tenant, 'POST', '/v1/recruitment/ats-credentials', {
      ats: 'lever',
      board: 'acme',
      email: 'ada@example.com',
      password: 'x',
    });
    expect(lever.status).toBe(400);
    expect(((await lever.json()) as { message: string }).message).toMatch(/key: required/);
  });
});

describe('an application to a board the client holds a key for', () => {
  it('goes through the vendor API: registered → applied → the vendor double received it → success', async () => {
    expect(
      (await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats: 'greenhouse', board: 'acme', key: greenhouseKey })).status,
    ).toBe(201);
    const url = `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`;
    const applied = await call(tenant, 'POST', '/v1/recruitment/job-posts/apply/', {
      jobPostId: 'gh-post',
      url,
      employer: 'Acme',
      jobTitle: 'Backend Engineer',
      candidate: { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
      files: { cv: { type: 'File', url: `${filesOrigin}/cv.pdf`, filename: 'grace-cv.pdf' } },
      answers: [
        { id: 'question_30000002', value: 'Yes' },
        // Greenhouse ignores a location without its coordinates: the client gives them for the API to carry it.
        { id: 'location', value: 'Arlington, VA' },
        { id: 'latitude', value: '38.8816' },
        { id: 'longitude', value: '-77.0910' },
      ],
    });
    expect(applied.status).toBe(200);
    const { applicationId } = (await applied.json()) as { applicationId: string };

    const hostedForm = createFakeApplier();
    const fetchClientUrl = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    const endpoints = { ...defaultMinerEndpoints, ...greenhouse.endpoints };
    const summary = await runApplication(
      {
        ...ports,
        miner: createMiner({ fetch: fetchClientUrl, timeoutMs: 5_000, endpoints }),
        // The post is mined inside the application's job, and recorded like any mined post.
        recordMining: (post, mined, durationMs) => recordMinedPost({ pool: db }, post, mined, durationMs),
        applier: createAtsApplier({ hostedForm, endpoints, timeoutMs: 5_000, rateLimit: (_key, work) => work() }),
        fetchFile: fetchClientUrl,
        limitHost: (_host, work) => work(),
        maxFileBytes: 1_000_000,
      },
      applicationId,
      { signal: new AbortController().signal, finalAttempt: true },
    );
    expect(summary).toEqual({ applicationId, status: 'success' });
    expect(hostedForm.calls).toHaveLength(0);

    const [received] = greenhouse.submissions();
    expect(received?.headers.authorization).toBe(`Basic ${Buffer.from(`${greenhouseKey}:`).toString('base64')}`);
    expect(received?.json).toMatchObject({
      first_name: 'Grace',
      email: 'grace@example.com',
      question_30000002: 1,
      location: 'Arlington, VA',
      latitude: '38.8816',
      longitude: '-77.0910',
      // files.cv placed on the résumé's file part, sent as the documented JSON upload.
      resume_content: cvBytes.toString('base64'),
      resume_content_filename: 'grace-cv.pdf',
    });

    const status = (await (
      await call(tenant, 'GET', `/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}`)
    ).json()) as { status: string; confirmation: { text: string } };
    expect(status).toMatchObject({ status: 'success', confirmation: { text: expect.stringContaining("Greenhouse's Job Board API") } });
  });
});

describe('a key for one of the other vendors', () => {
  it('is accepted for each vendor with a transport, and a Workable application reaches the double through the account named by the posting link', async () => {
    for (const ats of ['ashby', 'workable', 'smartrecruiters', 'bamboohr', 'jazzhr', 'breezy', 'teamtailor']) {
      expect((await call(tenant, 'POST', '/v1/recruitment/ats-credentials', { ats, board: 'Acme', key: `${ats}-key` })).status, ats).toBe(
        201,
      );
    }
    const workable = await startWorkableApiDouble({ key: 'workable-key' });
    try {
      const url = `https://apply.workable.com/acme/j/${workableDoubleJobs.paragraphs}/`;
      const applied = await call(tenant, 'POST', '/v1/recruitment/job-posts/apply/', {
        jobPostId: 'workable-post',
        url,
        employer: 'Acme',
        jobTitle: 'Sales Lead',
        candidate: { email: 'katherine@example.com', firstName: 'Katherine', lastName: 'Johnson', phone: '+1 757 555 0100' },
        files: { cv: { type: 'File', url: `${filesOrigin}/cv.pdf`, filename: 'katherine-cv.pdf' } },
        answers: [
          { id: 'address', value: 'Hampton, Virginia' },
          { id: 'QA_12441156', value: '$90,000' },
          { id: 'QA_12441157', value: 'In two weeks' },
          { id: 'QA_12441158', value: '25%' },
          { id: 'QA_12566959', value: 'Yes:\nten years of it' },
        ],
      });
      expect(applied.status).toBe(200);
      const { applicationId } = (await applied.json()) as { applicationId: string };
      const hostedForm = createFakeApplier();
      const fetchClientUrl = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
      const endpoints = { ...defaultMinerEndpoints, ...workable.endpoints };
      const summary = await runApplication(
        {
          ...ports,
          miner: createMiner({ fetch: fetchClientUrl, timeoutMs: 5_000, endpoints }),
          recordMining: (post, mined, durationMs) => recordMinedPost({ pool: db }, post, mined, durationMs),
          applier: createAtsApplier({ hostedForm, endpoints, timeoutMs: 5_000, rateLimit: (_key, work) => work() }),
          fetchFile: fetchClientUrl,
          limitHost: (_host, work) => work(),
          maxFileBytes: 1_000_000,
        },
        applicationId,
        { signal: new AbortController().signal, finalAttempt: true },
      );
      expect(summary).toEqual({ applicationId, status: 'success' });
      expect(hostedForm.calls).toHaveLength(0);
      const [received] = workable.submissions();
      expect(received?.headers.authorization).toBe('Bearer workable-key');
      const sent = (
        received?.json as { candidate: { firstname: string; email: string; resume: { name: string; data: string }; answers: unknown[] } }
      ).candidate;
      expect(sent).toMatchObject({
        firstname: 'Katherine',
        email: 'katherine@example.com',
        phone: '+1 757 555 0100',
        address: 'Hampton, Virginia',
      });
      expect(Buffer.from(sent.resume.data, 'base64')).toEqual(cvBytes);
      expect(sent.answers).toContainEqual({ question_key: 'QA_12566959', body: 'Yes:\nten years of it' });
    } finally {
      await workable.close();
    }
  });
});
