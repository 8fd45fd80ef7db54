import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createMiningQueuePort, miningJobsOf } from '@quarry/recruitment';
import { createTestDatabase, createTestRedis, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBatchQueueSupervisor } from './batch-queue-supervisor.ts';
import { batchRateLimit } from './batch-rate-limit.ts';

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;

beforeAll(async () => {
  database = await createTestDatabase('batch_supervisor');
  testRedis = createTestRedis('batch-supervisor');
  db = createPool(database.url, 2);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_supervisortest0000000', 's', '{recruitment}', 'x', 'x')`,
  );
});
afterAll(async () => {
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('batch queue supervisor', () => {
  it('spreads a batch’s rate over the minute instead of starting a minute’s rows at once', async () => {
    // 300 rows a minute: one every 200 ms. Five rows with room for all five to run at once must
    // still start one by one; with a per-minute window they would all start together.
    const batchId = randomUUID();
    await db.query(
      `INSERT INTO batches (batch_id, client_id, state, jobs_count, concurrency, rate_per_minute) VALUES ($1, 'cl_supervisortest0000000', 'processing', 5, 5, 300)`,
      [batchId],
    );
    const rows = Array.from({ length: 5 }, (_, index) => ({ submissionId: String(index + 1), rowNo: index + 1 }));
    await createMiningQueuePort(miningJobsOf(queues)).enqueueBatchRows(batchId, rows, { concurrency: 5, ratePerMinute: 300 });
    const starts: number[] = [];
    const supervisor = startBatchQueueSupervisor({
      db,
      connection: redis,
      prefix: testRedis.prefix,
      queues,
      pollMs: 50,
      graceMs: 1_000,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      handler: async () => void starts.push(performance.now()),
      onError: (error) => {
        throw error;
      },
    });
    try {
      await waitFor('five rows started', async () => (starts.length >= 5 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    } finally {
      await supervisor.stop(1_000);
    }
    const gaps = starts.slice(1).map((start, index) => start - (starts[index] ?? start));
    // Generous: only a burst (gaps near 0) fails; the limiter's spacing is 200 ms.
    for (const gap of gaps) expect(gap).toBeGreaterThan(100);
  });
});

describe('batch rate limit', () => {
  it.each([
    [120, { max: 1, durationMs: 500 }],
    [1, { max: 1, durationMs: 60_000 }],
    [7, { max: 1, durationMs: 8_571 }],
    [6_000, { max: 1, durationMs: 10 }],
    [100_000, { max: 17, durationMs: 10 }],
  ])('%i a minute starts rows evenly: %o', (ratePerMinute, limit) => {
    expect(batchRateLimit(ratePerMinute)).toEqual(limit);
  });
});
