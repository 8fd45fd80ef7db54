import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { submitApplication } from '@quarry/applications';
import { startApplicationsRole } from '@quarry/applications-worker';
import type { Applier } from '@quarry/hosted-form-apply';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { loadConfig } from '@quarry/config';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { findMinedPost, recordMinedPost } from '@quarry/recruitment';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The per-employer-host limit (APPLY_HOST_CONCURRENCY) holds across worker instances that share
 * only Redis: two applications-worker roles, each with its own Redis connection, apply to two
 * employer sites (127.0.0.1 and 127.0.0.2) that hold every submission until the test lets it go
 * and count how many of theirs are in flight.
 */

const secretKey = Buffer.alloc(32, 13);

type Site = { server: Server; origin: string; inFlight: number; maxInFlight: number; arrived: string[]; held: Map<string, ServerResponse> };

async function startSite(address: string): Promise<Site> {
  const site: Site = { server: createServer(), origin: '', inFlight: 0, maxInFlight: 0, arrived: [], held: new Map() };
  site.server.on('request', (request, response) => {
    const path = request.url ?? '/';
    request.resume();
    site.inFlight += 1;
    site.maxInFlight = Math.max(site.maxInFlight, site.inFlight);
    site.arrived.push(path);
    site.held.set(path, response);
    response.on('close', () => (site.inFlight -= 1));
  });
  site.server.listen(0, address);
  await once(site.server, 'listening');
  site.origin = `http://${address}:${(site.server.address() as AddressInfo).port}`;
  return site;
}

function release(site: Site, path: string): void {
  const response = site.held.get(path);
  if (!response) throw new Error(`${path} is not held at ${site.origin}`);
  site.held.delete(path);
  response.end('Thank you for applying');
}

/** The engine's stand-in (our own port): one request to the employer's site per application, after beforeSubmit like the real one. */
const applier: Applier = async (application, hooks, signal) => {
  await hooks.beforeSubmit();
  const response = await fetch(application.url, { method: 'POST', signal });
  return { status: 'success', confirmation: { text: await response.text() } };
};

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let siteX: Site;
let siteY: Site;
const roles: Array<{ stop(graceMs: number): Promise<void> }> = [];
const connections: Array<ReturnType<typeof createRedis>> = [];

/** One worker instance: the role as a process runs it, on a Redis connection and queues of its own. */
async function startWorker(name: string, applyConcurrency: number): Promise<void> {
  const env = {
    ...quarryEnv({ database, redis: testRedis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1,127.0.0.2',
    MINING_BROWSER: 'off',
    APPLY_CONCURRENCY: String(applyConcurrency),
    APPLY_HOST_CONCURRENCY: '1',
    // No start rate: only the concurrency limit can keep two applications of a host apart here.
    APPLY_HOST_PER_SECOND: '0',
    LOG_LEVEL: 'warn',
  };
  const config = loadConfig(env, 'applications-worker');
  const connection = createRedis(config.redisUrl);
  connections.push(connection);
  const logger = createLogger({ level: config.logLevel, name });
  roles.push(
    await startApplicationsRole({
      config,
      db,
      redis: connection,
      queues: createJobQueues({ connection, prefix: config.queuePrefix }),
      logger,
      events: { onError: (error, where) => logger.error({ err: error, where }, 'worker error') },
      workerId: name,
      runsCanary: false,
      shared: (_name, create) => create(),
      applier,
    }),
  );
}

let clientId: string;
async function apply(jobPostId: string, url: string): Promise<string> {
  // Mined for the client beforehand, as the mining role would have recorded it.
  const questions = [
    {
      id: 'first_name',
      question: 'First name',
      inputType: 'Text' as const,
      label: 'Apply',
      mandatory: true,
      category: 'firstName' as const,
    },
  ];
  await recordMinedPost(
    { pool: db },
    { clientId, jobPostId, url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' },
    { ok: true, adapter: 'test', form: { questions, answers: [] } },
    1,
  );
  const ports = {
    pool: db,
    sealer: createSealer(secretKey),
    findMinedPost: (client: string, post: string) => findMinedPost(db, client, post),
    enqueueApply: enqueuer(queues, 'applications.apply'),
  };
  const { applicationId } = await submitApplication(ports, clientId, {
    jobPostId,
    candidate: { email: `${jobPostId}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
    files: { cv: { type: 'File', url: `${url}/cv.pdf`, filename: 'cv.pdf' } },
  });
  return applicationId;
}

const stateOf = async (applicationId: string) =>
  (await db.query<{ state: string }>('SELECT state FROM applications WHERE application_id = $1', [applicationId])).rows[0]?.state;

beforeAll(async () => {
  database = await createTestDatabase('applications-host-limits');
  testRedis = createTestRedis('applications-host-limits');
  db = createPool(database.url, 6);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  clientId = (await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] })).clientId;
  siteX = await startSite('127.0.0.1');
  siteY = await startSite('127.0.0.2');
});

afterAll(async () => {
  for (const site of [siteX, siteY]) {
    if (!site) continue;
    for (const response of site.held.values()) response.end();
    site.server.closeAllConnections();
    site.server.close();
  }
  await Promise.all(roles.map((role) => role.stop(1_000)));
  for (const connection of connections) connection.disconnect();
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

describe('the per-employer-host limit', () => {
  it("never runs two applications to one host at once across two workers, and runs another host's meanwhile", async () => {
    // Worker A takes the first application to X and is then busy: worker B must take the rest.
    await startWorker('worker-a', 1);
    const x1 = await apply('x-1', `${siteX.origin}/jobs/x-1`);
    await waitFor('the first application to reach host X', () => siteX.arrived.includes('/jobs/x-1'), { timeoutMs: 30_000 });

    await startWorker('worker-b', 2);
    const x2 = await apply('x-2', `${siteX.origin}/jobs/x-2`);
    const y1 = await apply('y-1', `${siteY.origin}/jobs/y-1`);
    // Another host is not held back by X's slot: Y's application runs while X's first is in flight.
    await waitFor('the application to host Y to arrive while X is busy', () => siteY.arrived.includes('/jobs/y-1'), { timeoutMs: 30_000 });
    expect(siteX.held.has('/jobs/x-1')).toBe(true);

    // The second application to X waits for X's slot in worker B (its waiter is registered in
    // Redis) instead of reaching the site, for as long as the first is in flight.
    const waiters = `${testRedis.prefix}:apply-hosts:live-waiters:127.0.0.1`;
    await waitFor(
      'the second application to X to wait for the host, or to arrive',
      async () => siteX.arrived.includes('/jobs/x-2') || (await redis.zcount(waiters, Date.now(), '+inf')) > 0,
      { timeoutMs: 30_000 },
    );
    expect(await stateOf(x2)).toBe('processing');
    expect(siteX.arrived).toEqual(['/jobs/x-1']);

    release(siteX, '/jobs/x-1');
    await waitFor('the second application to reach host X once the first ended', () => siteX.arrived.includes('/jobs/x-2'), {
      timeoutMs: 30_000,
    });
    release(siteX, '/jobs/x-2');
    release(siteY, '/jobs/y-1');
    for (const applicationId of [x1, x2, y1])
      await waitFor(`application ${applicationId} to succeed`, async () => (await stateOf(applicationId)) === 'success', {
        timeoutMs: 30_000,
      });
    expect(siteX.maxInFlight).toBe(1);
    expect(siteX.arrived).toEqual(['/jobs/x-1', '/jobs/x-2']);
    expect(siteY.arrived).toEqual(['/jobs/y-1']);
  });
});
