import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startApplicationSites,
  waitFor,
  type ApplicationSites,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * The whole stack: a real `quarry start --role all` (API, mining worker and applications worker,
 * Chromium on) mines a local application site, then applies to it with a File served by a local
 * storage server, and the client reads the outcome back through the API.
 */

const secretKey = Buffer.alloc(32, 11);
// Not a real PDF: bytes the site must get back unchanged, a NUL and high bytes included.
const cvBytes = Buffer.concat([
  Buffer.from('%PDF-1.7\n'),
  Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a]),
  Buffer.from('Ada Lovelace, analyst\n'),
]);
const storageHeaders = { authorization: 'Bearer storage-token', 'x-storage-tenant': 'acme' };
const candidate = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0001' };

let sites: ApplicationSites;
let storage: Server;
let storageOrigin: string;
const storageRequests: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let quarry: QuarryProcess;
let base: string;
let authorization: string;

beforeAll(async () => {
  sites = await startApplicationSites();
  // The client's file storage: answers only with the headers the application names.
  storage = createServer((request, response) => {
    storageRequests.push({ path: request.url ?? '', headers: request.headers });
    const allowed =
      request.headers.authorization === storageHeaders.authorization &&
      request.headers['x-storage-tenant'] === storageHeaders['x-storage-tenant'];
    if (request.url !== '/files/ada-cv.pdf' || !allowed) return void response.writeHead(403).end('forbidden');
    response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(cvBytes);
  });
  storage.listen(0, '127.0.0.1');
  await once(storage, 'listening');
  storageOrigin = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;

  database = await createTestDatabase('applications-e2e');
  redis = createTestRedis('applications-e2e');
  db = createPool(database.url, 2);
  const tenant = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  authorization = `Basic ${Buffer.from(`${tenant.secret}:`).toString('base64')}`;
  quarry = await startQuarry(
    'all',
    {
      ...quarryEnv({ database, redis, secretKey }),
      // Both the application site and the file storage listen on loopback.
      ALLOW_PRIVATE_URLS: '127.0.0.1',
      AUTH_CACHE_MS: '0',
      MINING_BROWSER: 'on',
      CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    },
    60_000,
  );
  base = `http://127.0.0.1:${quarry.port}`;
});

afterAll(async () => {
  if (quarry && quarry.child.exitCode === null && quarry.child.signalCode === null) {
    quarry.child.kill('SIGKILL');
    await quarry.exited;
  }
  storage?.closeAllConnections();
  storage?.close();
  await sites?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string> | undefined),
    },
  });
const post = (path: string, body: unknown) => call(path, { method: 'POST', body: JSON.stringify(body) });

type Status = {
  applicationId: string;
  jobPostId: string;
  status: string;
  errorCode?: string;
  message?: string;
  submittedAt?: string;
  confirmation?: { reference?: string; text: string; screenshot?: string };
};

async function apply(body: Record<string, unknown>): Promise<string> {
  const response = await post('/v1/recruitment/job-posts/apply/', body);
  const answer = (await response.json()) as { applicationId: string; status: string };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  expect(answer.status).toBe('processing');
  return answer.applicationId;
}

async function ended(applicationId: string): Promise<Status> {
  return waitFor(
    `application ${applicationId} to end`,
    async () => {
      const status = (await (await call(`/v1/recruitment/job-posts/find/application/?applicationId=${applicationId}`)).json()) as Status;
      return status.status === 'processing' ? undefined : status;
    },
    { timeoutMs: 150_000, intervalMs: 250 },
  );
}

const submissionsTo = (path: string) => sites.received.filter((submission) => submission.path === path);

describe('applying through the whole stack', () => {
  it(
    'mines a post, applies with answers and a stored file, and reports the confirmation; the same candidate again is AlreadyApplied without the site being touched',
    { timeout: 300_000 },
    async () => {
      const mine = await post('/v1/recruitment/job-posts/mine/', {
        jobPostId: 'platform-1',
        url: `${sites.origin}/one-page`,
        employer: 'Acme',
        jobTitle: 'Platform Engineer',
      });
      expect(mine.status).toBe(200);
      const mined = await waitFor(
        'the post to be mined',
        async () => {
          const body = (await (await call('/questions/platform-1')).json()) as { questions?: Array<{ id: string }>; status?: string };
          if (body.status === 'failed') throw new Error(`mining failed: ${JSON.stringify(body)}`);
          return body.questions;
        },
        { timeoutMs: 120_000, intervalMs: 250 },
      );
      expect(mined.map((question) => question.id)).toEqual(
        expect.arrayContaining(['first_name', 'country', 'work_auth', 'languages[]', 'start_date', 'motivation', 'resume', 'privacy']),
      );

      const applicationId = await apply({
        jobPostId: 'platform-1',
        candidate,
        files: { cv: { type: 'File', url: `${storageOrigin}/files/ada-cv.pdf`, filename: 'ada-cv.pdf', headers: storageHeaders } },
        answers: [
          { id: 'country', value: 'Germany' },
          { id: 'work_auth', value: 'No' },
          { id: 'languages[]', value: ['TypeScript', 'Rust'] },
          { id: 'start_date', value: '2027-01-15' },
          { id: 'motivation', value: 'Engines.\nAnd analysis.' },
          { id: 'privacy', value: true },
        ],
      });
      const status = await ended(applicationId);
      expect(status, JSON.stringify(status)).toMatchObject({
        applicationId,
        jobPostId: 'platform-1',
        status: 'success',
        confirmation: { reference: expect.stringMatching(/^PE-400\d\d$/), text: expect.stringContaining('Thank you for applying') },
      });
      expect(Date.parse(status.submittedAt ?? '')).not.toBeNaN();

      // The file was fetched with the application's headers, and the site got every field and the file unchanged.
      expect(storageRequests.map((request) => [request.path, request.headers.authorization, request.headers['x-storage-tenant']])).toEqual([
        ['/files/ada-cv.pdf', 'Bearer storage-token', 'acme'],
      ]);
      const [received, ...more] = submissionsTo('/one-page/submit');
      expect(more).toHaveLength(0);
      expect(received?.fields).toEqual({
        first_name: ['Ada'],
        last_name: ['Lovelace'],
        email: ['ada@example.com'],
        phone: ['+44 20 7946 0001'],
        country: ['de'],
        work_auth: ['no'],
        'languages[]': ['ts', 'rust'],
        start_date: ['2027-01-15'],
        motivation: ['Engines.\r\nAnd analysis.'],
        privacy: ['accepted'],
      });
      expect(Object.keys(received?.files ?? {})).toEqual(['resume']);
      expect(received?.files.resume).toHaveLength(1);
      expect(received?.files.resume?.[0]).toMatchObject({ filename: 'ada-cv.pdf', contentType: 'application/pdf' });
      expect(received?.files.resume?.[0]?.bytes.equals(cvBytes)).toBe(true);
      // The reference the client reads is the one the site gave for this submission.
      expect(status.confirmation?.reference).toBe(`PE-${40000 + sites.received.indexOf(received!) + 1}`);

      const screenshot = await call(status.confirmation?.screenshot ?? '/missing');
      expect(screenshot.status).toBe(200);
      expect(screenshot.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await screenshot.arrayBuffer()).subarray(0, 8)).toEqual(
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      );

      // The same candidate (any letter case) to the same post: refused here, never sent to the site.
      const eventsBefore = sites.events.length;
      const again = await apply({
        jobPostId: 'platform-1',
        candidate: { ...candidate, email: 'ADA@example.com' },
        files: { cv: { type: 'File', url: `${storageOrigin}/files/ada-cv.pdf`, filename: 'ada-cv.pdf', headers: storageHeaders } },
        answers: [
          { id: 'country', value: 'France' },
          { id: 'work_auth', value: 'Yes' },
          { id: 'motivation', value: 'Again.' },
          { id: 'privacy', value: true },
        ],
      });
      expect(await ended(again)).toMatchObject({ applicationId: again, status: 'failed', errorCode: 'AlreadyApplied' });
      // Long enough for a queued job to have reached the site, were there one.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(sites.events.slice(eventsBefore)).toEqual([]);
      expect(storageRequests).toHaveLength(1);
      expect(submissionsTo('/one-page/submit')).toHaveLength(1);
    },
  );

  it(
    "applies to a post never mined: mines it inside the job (then readable at /questions), and reports the site's refusal with its message",
    { timeout: 300_000 },
    async () => {
      const applicationId = await apply({
        jobPostId: 'sre-1',
        url: `${sites.origin}/strict`,
        employer: 'Acme',
        jobTitle: 'Site Reliability Engineer',
        // No phone: the form does not mark it required, but the site's server refuses without one.
        candidate: { email: 'grace@example.com', firstName: 'Grace', lastName: 'Hopper' },
        files: { cv: { type: 'File', url: `${storageOrigin}/files/ada-cv.pdf`, filename: 'cv.pdf', headers: storageHeaders } },
        answers: [],
      });
      const status = await ended(applicationId);
      expect(status, JSON.stringify(status)).toMatchObject({
        applicationId,
        jobPostId: 'sre-1',
        status: 'failed',
        errorCode: 'MandatoryQuestionsNotAnswered',
        message: expect.stringContaining('Phone number is required.'),
      });
      const [received, ...more] = submissionsTo('/strict/submit');
      expect(more).toHaveLength(0);
      expect(received?.fields).toEqual({ first_name: ['Grace'], last_name: ['Hopper'], email: ['grace@example.com'], phone: [''] });

      // The mining the application did is the client's, like one it asked for.
      const questions = await call('/questions/sre-1');
      expect(questions.status).toBe(200);
      const body = (await questions.json()) as { jobPostId: string; questions: Array<{ id: string; mandatory: boolean }> };
      expect(body.jobPostId).toBe('sre-1');
      expect(body.questions.map((question) => [question.id, question.mandatory])).toEqual([
        ['first_name', true],
        ['last_name', true],
        ['email', true],
        ['phone', false],
      ]);
    },
  );
});
