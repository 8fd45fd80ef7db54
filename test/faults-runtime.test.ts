import { Readable } from 'node:stream';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createProducerRedis, createRedis, isStoreOutage, type JobQueues } from '@quarry/jobs';
import { startMiningWorkers, type MiningRole } from '@quarry/mining-worker';
import { createLogger } from '@quarry/observability';
import { acceptBatch, createMiningQueuePort, miningJobsOf, submitJobPost, type MiningPorts } from '@quarry/recruitment';
import {
  createTestDatabase,
  createTestRedis,
  startPrivatePostgres,
  startPrivateRedis,
  testRedisUrl,
  waitFor,
  type PrivatePostgres,
  type PrivateRedis,
  type TestDatabase,
} from '@quarry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { csvOf } from './support/recruitment-stack.ts';

// The job runtime against stores that go away: a private PostgreSQL this file stops and starts,
// and private redis-servers it kills (never the machine's shared ones).
let postgres: PrivatePostgres;
let database: TestDatabase;
let db: Pool;
let clientId: string;
const cleanups: Array<() => Promise<unknown>> = [];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  database = await createTestDatabase('faults_runtime', postgres.url);
  db = createPool(database.url, 10);
  clientId = (await createClient({ db, secretKey: Buffer.alloc(32, 3) }, { name: 'faults', scopes: ['recruitment'] })).clientId;
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

afterAll(async () => {
  await db?.end();
  await postgres?.remove();
});

/** A mining role in this process on the given Redis, with a miner that takes `mineMs` per post. */
async function startMining(
  redisUrl: string,
  prefix: string,
  mineMs: number,
  reviveEveryMs = 1_000,
): Promise<{ ports: MiningPorts; queues: JobQueues; role: MiningRole }> {
  const redis = createRedis(redisUrl);
  const queues = createJobQueues({ connection: redis, prefix, scheduleCheckMs: 1_000 });
  const ports: MiningPorts = {
    pool: db,
    queue: createMiningQueuePort(miningJobsOf(queues)),
    settings: { batch: { concurrency: 4, ratePerMinute: 10_000 }, autoPause: { window: 1_000, minSuccessRate: 0 }, maxCsvBytes: 1_000_000 },
    miner: async () => {
      await sleep(mineMs);
      return { ok: true, form: { questions: [], answers: [] }, adapter: 'fake' };
    },
  };
  const role = await startMiningWorkers(ports, {
    queues,
    connection: redis,
    config: { queuePrefix: prefix, workerConcurrency: 4, jobLockMs: 5_000, jobStalledIntervalMs: 2_000 },
    batchPollMs: 200,
    reviveEveryMs,
    graceMs: 500,
    logger: createLogger({ level: 'silent' }),
    events: { storesReachable: async () => (await db.query('SELECT 1')).rowCount === 1 },
  });
  cleanups.push(async () => {
    await role.stop(500);
    await queues.close();
    redis.disconnect();
  });
  return { ports, queues, role };
}

async function submitBatch(ports: MiningPorts, label: string, rows: number): Promise<string> {
  const csv = csvOf(
    Array.from({ length: rows }, (_, index) => ({ jobPostId: `${label}-${index + 1}`, url: `https://jobs.example/${label}/${index + 1}` })),
  );
  const accepted = await acceptBatch(ports, clientId, Readable.from([csv]), { maxRows: 1_000, source: 'test' });
  return accepted.batchId;
}

async function batchRow(batchId: string) {
  const result = await db.query<{ state: string; processed_count: number; succeeded_count: number; failed_count: number }>(
    'SELECT state, processed_count, succeeded_count, failed_count FROM batches WHERE batch_id = $1',
    [batchId],
  );
  return result.rows[0];
}

describe('a PostgreSQL outage during a batch', () => {
  it('spends no attempt and ends no row: the batch finishes, every row mined, once Postgres is back', async () => {
    const lane = createTestRedis('faults-pg');
    cleanups.push(() => lane.cleanup());
    const { ports } = await startMining(testRedisUrl, lane.prefix, 150);
    const batchId = await submitBatch(ports, 'pg', 40);
    await waitFor('30% of the batch processed', async () => ((await batchRow(batchId))?.processed_count ?? 0) >= 12, { timeoutMs: 30_000 });
    await postgres.stop();
    await sleep(10_000);
    await postgres.start();
    const done = await waitFor(
      'batch finished',
      async () => {
        const row = await batchRow(batchId).catch(() => undefined);
        return row?.state === 'finished' ? row : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 200 },
    );
    expect(done).toMatchObject({ processed_count: 40, succeeded_count: 40, failed_count: 0 });
  }, 90_000);
});

describe('a Redis restarted empty during a batch', () => {
  it('puts the lost jobs of admitted rows back from Postgres, and the batch finishes', async () => {
    const redis: PrivateRedis = await startPrivateRedis();
    cleanups.push(() => redis.remove());
    const { ports } = await startMining(redis.url, 'qt-faults-empty', 300);
    const batchId = await submitBatch(ports, 'empty', 24);
    await waitFor('a quarter of the batch processed', async () => ((await batchRow(batchId))?.processed_count ?? 0) >= 6, {
      timeoutMs: 30_000,
    });
    await redis.kill();
    await redis.start();
    const done = await waitFor(
      'batch finished',
      async () => {
        const row = await batchRow(batchId);
        return row?.state === 'finished' ? row : undefined;
      },
      { timeoutMs: 40_000, intervalMs: 200 },
    );
    expect(done).toMatchObject({ processed_count: 24, succeeded_count: 24, failed_count: 0 });
  }, 90_000);
});

describe('a job post accepted while Redis was away', () => {
  it("is queued as soon as Redis is back, not at the reconciler's next round", async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.remove());
    // The reconciler's own round is out of reach: only Redis coming back can queue the post.
    const { ports } = await startMining(redis.url, 'qt-faults-back', 50, 600_000);
    const producer = createProducerRedis(redis.url);
    const producerQueues = createJobQueues({ connection: producer, prefix: 'qt-faults-back' });
    cleanups.push(async () => {
      await producerQueues.close();
      producer.disconnect();
    });
    const producerPorts = { pool: db, queue: createMiningQueuePort(miningJobsOf(producerQueues)) };
    const mined = (jobPostId: string) => async () => {
      const row = await ports.pool.query<{ state: string }>('SELECT state FROM submissions WHERE job_post_id = $1', [jobPostId]);
      return row.rows[0]?.state === 'completed';
    };
    // As in a running API, the producer has been connected before Redis goes away.
    await submitJobPost(producerPorts, clientId, {
      jobPostId: 'before-away',
      url: 'https://jobs.example/before-away',
      employer: 'Acme',
      jobTitle: 'Engineer',
    });
    await waitFor('the first post mined', mined('before-away'), { timeoutMs: 20_000 });
    await redis.kill();
    const accepted = await submitJobPost(producerPorts, clientId, {
      jobPostId: 'while-away',
      url: 'https://jobs.example/while-away',
      employer: 'Acme',
      jobTitle: 'Engineer',
    });
    expect(accepted).toMatchObject({ jobPostId: 'while-away', status: 'queued' });
    await redis.start();
    await waitFor('the post accepted while away mined', mined('while-away'), { timeoutMs: 30_000, intervalMs: 200 });
  }, 60_000);
});

describe('recurring work', () => {
  it('creates its job schedulers again when Redis comes back without them', async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.remove());
    const connection = createRedis(redis.url);
    const queues = createJobQueues({ connection, prefix: 'qt-faults-schedules' });
    cleanups.push(async () => {
      await queues.close();
      connection.disconnect();
    });
    await queues.schedule('mail.housekeeping', {}, { schedulerId: 'mail.housekeeping', everyMs: 60_000 });
    expect(await queues.queue('mail').getJobScheduler('mail.housekeeping')).toBeTruthy();
    await redis.kill();
    await redis.start();
    await waitFor('scheduler created again', async () => Boolean(await queues.queue('mail').getJobScheduler('mail.housekeeping')), {
      timeoutMs: 20_000,
    });
  });
});

describe("the API's producer connection", () => {
  it('fails an enqueue at once while Redis is down, with an error read as a store outage, and enqueues again once it is back', async () => {
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.remove());
    const connection = createProducerRedis(redis.url);
    const queues = createJobQueues({ connection, prefix: 'qt-faults-producer' });
    cleanups.push(async () => {
      await queues.close();
      connection.disconnect();
    });
    const canary = { canaryId: '00000000-0000-4000-8000-000000000001' };
    await queues.enqueue('system.canary', canary);
    await redis.kill();
    // A connection with ioredis's offline queue would wait here until Redis is back (never, in this test).
    const failure = await queues.enqueue('system.canary', canary).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(isStoreOutage(failure)).toBe(true);
    await redis.start();
    await waitFor('enqueued after Redis is back', () => queues.enqueue('system.canary', canary).then((id) => id.length > 0), {
      timeoutMs: 20_000,
    });
  });
});
