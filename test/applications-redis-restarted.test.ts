import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
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
import { createTestDatabase, quarryEnv, startPrivateRedis, waitFor, type PrivateRedis, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A Redis restarted empty loses every queued application's job, and the scheduled reconcile with
 * it. The applications-worker puts those jobs back as soon as Redis is back, not at its next
 * round: here the round is out of reach (10 minutes), so only Redis coming back can run them. A
 * private redis-server this file kills and starts again empty; the engine is a stand-in of our own
 * port that answers at once.
 */
const secretKey = Buffer.alloc(32, 17);
const prefix = 'qt-apps-redis-restarted';
let database: TestDatabase;
let redisServer: PrivateRedis;
let db: Pool;
let connection: ReturnType<typeof createRedis>;
let queues: JobQueues;
let role: { stop(graceMs: number): Promise<void> };
let site: Server;
let origin: string;
let clientId: string;
const submitted: string[] = [];

const applier: Applier = async (application, hooks) => {
  await hooks.beforeSubmit();
  submitted.push(application.url);
  return { status: 'success', confirmation: { text: 'Thank you for applying' } };
};

beforeAll(async () => {
  redisServer = await startPrivateRedis();
  database = await createTestDatabase('applications-redis-restarted');
  db = createPool(database.url, 6);
  clientId = (await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] })).clientId;
  site = createServer((_request, response) => void response.end('%PDF-1.7\nCV')).listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const config = loadConfig(
    {
      ...quarryEnv({ database, redis: { url: redisServer.url, prefix }, secretKey }),
      ALLOW_PRIVATE_URLS: '127.0.0.1',
      MINING_BROWSER: 'off',
      APPLY_RECONCILE_EVERY_MS: '600000',
      LOG_LEVEL: 'silent',
    },
    'applications-worker',
  );
  connection = createRedis(config.redisUrl);
  queues = createJobQueues({ connection, prefix });
  await waitFor('the worker connected to Redis', async () => (connection.status === 'ready' ? true : undefined), { timeoutMs: 10_000 });
  role = await startApplicationsRole({
    config,
    db,
    redis: connection,
    queues,
    logger: createLogger({ level: 'silent' }),
    events: {},
    workerId: 'redis-restarted',
    runsCanary: false,
    shared: (_name, create) => create(),
    applier,
  });
}, 60_000);

afterAll(async () => {
  await role?.stop(500);
  await queues?.close();
  connection?.disconnect();
  site?.close();
  await db?.end();
  await database?.drop();
  await redisServer?.remove();
});

describe('a Redis restarted empty', () => {
  it("has the applications whose jobs it lost enqueued again as soon as it is back, not at the reconciler's next round", async () => {
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
    const url = `${origin}/careers/1`;
    await recordMinedPost(
      { pool: db },
      { clientId, jobPostId: 'post-1', url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' },
      { ok: true, adapter: 'test', form: { questions, answers: [] } },
      1,
    );
    // Committed and enqueued into a queue no worker runs yet (the job is in Redis only), as an
    // application waiting behind its employer's politeness limit would be.
    let enqueued = false;
    const ports = {
      pool: db,
      sealer: createSealer(secretKey),
      findMinedPost: (client: string, post: string) => findMinedPost(db, client, post),
      enqueueApply: async (...args: Parameters<ReturnType<typeof enqueuer<'applications.apply'>>>) => {
        enqueued = true;
        return enqueuer(queues, 'applications.apply')(args[0], { ...args[1], delayMs: 3_600_000 });
      },
    };
    const { applicationId } = await submitApplication(ports, clientId, {
      jobPostId: 'post-1',
      candidate: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
      files: { cv: { type: 'File', url: `${origin}/cv.pdf`, filename: 'cv.pdf' } },
    });
    expect(enqueued).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(submitted).toHaveLength(0);
    await redisServer.kill();
    await redisServer.start();
    const back = Date.now();
    await waitFor(
      'the application applied',
      async () =>
        (await db.query<{ state: string }>('SELECT state FROM applications WHERE application_id = $1', [applicationId])).rows[0]?.state ===
        'success'
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(submitted).toEqual([url]);
    // Within the follow-up pass after Redis came back (the application is younger than the stranded age at the first).
    expect(Date.now() - back).toBeLessThan(15_000);
  }, 60_000);
});
