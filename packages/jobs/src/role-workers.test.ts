import { randomUUID } from 'node:crypto';
import { createTestRedis, testRedisUrl, waitFor, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueues, type JobQueues } from './job-queues.ts';
import { createRedis } from './redis.ts';
import { startRoleWorkers, type RoleWorkerConfig } from './role-workers.ts';

let redis: Redis;
const prefixes: TestRedis[] = [];
const openQueues: JobQueues[] = [];

beforeAll(() => {
  redis = createRedis(testRedisUrl);
});

afterAll(async () => {
  for (const queues of openQueues) await queues.close();
  for (const testRedis of prefixes) await testRedis.cleanup();
  redis.disconnect();
});

/** A key prefix of its own for one test, and the role settings that use it. */
function lane(label: string): { queues: JobQueues; config: RoleWorkerConfig } {
  const testRedis = createTestRedis(`role-workers-${label}`);
  prefixes.push(testRedis);
  const queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  openQueues.push(queues);
  return { queues, config: { queuePrefix: testRedis.prefix, jobLockMs: 2_000, jobStalledIntervalMs: 1_000, workerConcurrency: 2 } };
}

describe('startRoleWorkers', () => {
  it('tells each run of a job its attempt and whether it is the last the catalog allows', async () => {
    const { queues, config } = lane('attempts');
    const runs: Array<{ attempt: number; isFinalAttempt: boolean }> = [];
    // No canary handler: the `system` queue is this role's own group here.
    const workers = startRoleWorkers({ redis, canary: null }, config);
    workers.start({
      queues: ['system'],
      handlers: {
        'system.canary': async (_payload, { attempt, isFinalAttempt }) => {
          runs.push({ attempt, isFinalAttempt });
          if (!isFinalAttempt) throw new Error('fails until its last attempt');
        },
      },
    });
    try {
      const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
      // system.canary: 3 attempts, 1 s then 2 s of backoff.
      await waitFor('the canary completed', async () => (await queues.queue('system').getJobState(id)) === 'completed', {
        timeoutMs: 15_000,
        intervalMs: 50,
      });
      expect(runs).toEqual([
        { attempt: 1, isFinalAttempt: false },
        { attempt: 2, isFinalAttempt: false },
        { attempt: 3, isFinalAttempt: true },
      ]);
    } finally {
      await workers.close(1_000);
    }
  });

  it("runs the canary beside the role's groups when it takes it, and close leaves a group its caller closes", async () => {
    const { queues, config } = lane('canary');
    const canaries: string[] = [];
    const housekeeping: number[] = [];
    const workers = startRoleWorkers(
      { redis, canary: { 'system.canary': async (payload) => void canaries.push(payload.canaryId) } },
      config,
    );
    const mail = workers.start({
      queues: ['mail'],
      closedByCaller: true,
      handlers: { 'mail.deliver': async () => {}, 'mail.housekeeping': async () => void housekeeping.push(Date.now()) },
    });
    try {
      const canaryId = randomUUID();
      await queues.enqueue('system.canary', { canaryId });
      await waitFor('the canary ran', async () => canaries.length === 1, { timeoutMs: 10_000, intervalMs: 50 });
      expect(canaries).toEqual([canaryId]);

      await workers.close(1_000);
      // The canary's worker is closed: a second canary waits in the queue.
      const waiting = await queues.enqueue('system.canary', { canaryId: randomUUID() });
      // The group its caller closes still runs jobs.
      await queues.enqueue('mail.housekeeping', {});
      await waitFor('housekeeping ran', async () => housekeeping.length === 1, { timeoutMs: 10_000, intervalMs: 50 });
      expect(await queues.queue('system').getJobState(waiting)).toBe('waiting');
      expect(canaries).toHaveLength(1);
    } finally {
      await mail.close(1_000);
    }
  });
});
