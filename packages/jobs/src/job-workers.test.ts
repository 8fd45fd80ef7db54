import { randomUUID } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { createTestRedis, testRedisUrl, waitFor, type TestRedis } from '@quarry/testing';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { jobCatalog } from './catalog.ts';
import { createJobQueues, type JobQueues } from './job-queues.ts';
import {
  JobLockLostError,
  MissingHandlerError,
  RunLater,
  startWorkers,
  type JobHandler,
  type WorkerEvents,
  type WorkerPool,
} from './job-workers.ts';
import { createRedis } from './redis.ts';

type Outcome = Parameters<NonNullable<WorkerEvents['onOutcome']>>[0];

let redis: Redis;
const prefixes: TestRedis[] = [];
const openQueues: JobQueues[] = [];
const openPools: WorkerPool[] = [];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A key prefix, and so a `system` queue, of its own for one test: tests never see each other's jobs. */
function lane(label: string) {
  const testRedis = createTestRedis(`jobs-${label}`);
  prefixes.push(testRedis);
  const queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  openQueues.push(queues);
  const outcomes: Outcome[] = [];
  const errors: unknown[] = [];
  const start = (handler: JobHandler<'system.canary'>): WorkerPool => {
    const pool = startWorkers({
      connection: redis,
      prefix: testRedis.prefix,
      queues: ['system'],
      handlers: { 'system.canary': handler },
      concurrency: 2,
      lockDurationMs: 2_000,
      stalledIntervalMs: 1_000,
      events: { onOutcome: (event) => outcomes.push(event), onError: (error) => errors.push(error) },
    });
    openPools.push(pool);
    return pool;
  };
  const job = async (id: string): Promise<Job> => {
    const found = await queues.queue('system').getJob(id);
    if (!found) throw new Error(`job ${id} not found`);
    return found;
  };
  const settled = (id: string, state: 'completed' | 'failed', timeoutMs = 15_000) =>
    waitFor(`job ${id} ${state}`, async () => (await queues.queue('system').getJobState(id)) === state, { timeoutMs, intervalMs: 50 });
  return { prefix: testRedis.prefix, queues, outcomes, errors, start, job, settled };
}

beforeAll(() => {
  redis = createRedis(testRedisUrl);
});

afterAll(async () => {
  for (const pool of openPools) await pool.close(0);
  for (const queues of openQueues) await queues.close();
  for (const testRedis of prefixes) await testRedis.cleanup();
  redis.disconnect();
});

describe('the job catalog', () => {
  it('declares system.canary on the system queue with 3 attempts and an 11 minute timeout', () => {
    expect(jobCatalog['system.canary'].queue).toBe('system');
    expect(jobCatalog['system.canary'].attempts).toBe(3);
    expect(jobCatalog['system.canary'].timeoutMs).toBe(11 * 60_000);
    expect(jobCatalog['system.canary'].payload.safeParse({ canaryId: randomUUID() }).success).toBe(true);
    expect(jobCatalog['system.canary'].payload.safeParse({ canaryId: 'nope' }).success).toBe(false);
  });
});

describe('startWorkers', () => {
  it('refuses to start when a job of its queues has no handler, naming the job', () => {
    const { prefix } = lane('missing');
    let thrown: unknown;
    try {
      startWorkers({
        connection: redis,
        prefix,
        queues: ['system'],
        handlers: {} as never,
        concurrency: 1,
        lockDurationMs: 2_000,
        stalledIntervalMs: 1_000,
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MissingHandlerError);
    expect((thrown as Error).message).toContain('system.canary');
  });

  it('runs an enqueued job through its handler with the parsed payload', async () => {
    const { queues, start, job, settled, outcomes } = lane('happy');
    const seen: Array<{ payload: unknown; jobId: string | undefined; aborted: boolean }> = [];
    const pool = start(async (payload, { job: running, signal }) => {
      seen.push({ payload, jobId: running.id, aborted: signal.aborted });
      return { ran: payload.canaryId };
    });
    try {
      const canaryId = randomUUID();
      const id = await queues.enqueue('system.canary', { canaryId });
      await settled(id, 'completed');
      expect(seen).toEqual([{ payload: { canaryId }, jobId: id, aborted: false }]);
      const done = await job(id);
      expect(done.returnvalue).toEqual({ ran: canaryId });
      expect(done.data).toMatchObject({ v: 1, payload: { canaryId }, traceMode: 'child' });
      expect(outcomes).toEqual([expect.objectContaining({ queue: 'system', job: 'system.canary', outcome: 'completed' })]);
    } finally {
      await pool.close(5_000);
    }
  });

  it('hands the handler the payload as parsed by the catalog schema, not the raw job data', async () => {
    const { queues, start, settled } = lane('parsed');
    const seen: unknown[] = [];
    const pool = start(async (payload) => {
      seen.push(payload);
    });
    try {
      const canaryId = randomUUID();
      const added = await queues.queue('system').add('system.canary', { v: 1, payload: { canaryId, smuggled: 'x' } });
      await settled(added.id ?? '', 'completed');
      // The schema is a plain z.object: unknown keys are stripped before the handler sees them.
      expect(seen).toEqual([{ canaryId }]);
    } finally {
      await pool.close(5_000);
    }
  });
});

describe('enqueue validation', () => {
  it('rejects an invalid payload before anything reaches Redis', async () => {
    const { queues } = lane('invalid');
    const attempt = queues.enqueue('system.canary', { canaryId: 'not-a-uuid' });
    await expect(attempt).rejects.toBeInstanceOf(ZodError);
    const error = (await attempt.catch((caught: unknown) => caught)) as ZodError;
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['canaryId']);

    const counts = await queues.jobCounts();
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.filter((row) => row.count !== 0)).toEqual([]);
    expect(await queues.queue('system').count()).toBe(0);
    const all = await queues.queue('system').getJobCounts();
    expect(Object.values(all).reduce((sum, count) => sum + count, 0)).toBe(0);
  });

  it('enqueueBulk stores nothing when any one payload is invalid', async () => {
    const { queues } = lane('invalid-bulk');
    await expect(
      queues.enqueueBulk('system.canary', [{ payload: { canaryId: randomUUID() } }, { payload: { canaryId: 'nope' } }]),
    ).rejects.toBeInstanceOf(ZodError);
    const all = await queues.queue('system').getJobCounts();
    expect(Object.values(all).reduce((sum, count) => sum + count, 0)).toBe(0);
  });
});

describe('jobs that can never succeed fail at once, without retries', () => {
  // The jobs are added with retries allowed, so only an unrecoverable failure stops at one attempt.
  const retriable = { attempts: 3, backoff: { type: 'fixed' as const, delay: 50 } };

  it('fails a job whose payload is malformed after one attempt, naming the field', async () => {
    const { queues, start, job, settled } = lane('bad-payload');
    let calls = 0;
    const pool = start(async () => {
      calls += 1;
    });
    try {
      const added = await queues.queue('system').add('system.canary', { v: 1, payload: { canaryId: 'nope' } }, retriable);
      const id = added.id ?? '';
      await settled(id, 'failed');
      const failed = await job(id);
      expect(failed.attemptsMade).toBe(1);
      expect(failed.failedReason).toContain('canaryId');
      expect(failed.failedReason).toContain('malformed system.canary payload');
      expect(calls).toBe(0);
    } finally {
      await pool.close(5_000);
    }
  });

  it.each([
    ['an object without the envelope version', { canaryId: randomUUID() }],
    ['a wrong envelope version', { v: 2, payload: { canaryId: randomUUID() } }],
    ['a trace carrier that is not a string map', { v: 1, payload: { canaryId: randomUUID() }, trace: 'nope' }],
  ])('fails a job whose envelope is garbage (%s) after one attempt', async (_label, data) => {
    const { queues, start, job, settled } = lane('bad-envelope');
    let calls = 0;
    const pool = start(async () => {
      calls += 1;
    });
    try {
      const added = await queues.queue('system').add('system.canary', data, retriable);
      const id = added.id ?? '';
      await settled(id, 'failed');
      const failed = await job(id);
      expect(failed.attemptsMade).toBe(1);
      expect(failed.failedReason).toContain('malformed job envelope');
      expect(calls).toBe(0);
    } finally {
      await pool.close(5_000);
    }
  });

  it.each(['system.unknown', 'constructor', 'toString', '__proto__'])(
    'fails a job with the unknown name %s after one attempt',
    async (name) => {
      const { queues, start, job, settled } = lane('unknown');
      let calls = 0;
      const pool = start(async () => {
        calls += 1;
      });
      try {
        const added = await queues.queue('system').add(name, { v: 1, payload: { canaryId: randomUUID() } }, retriable);
        const id = added.id ?? '';
        await settled(id, 'failed');
        const failed = await job(id);
        expect(failed.attemptsMade).toBe(1);
        expect(failed.failedReason).toBe(`unknown job ${name} on queue system`);
        expect(calls).toBe(0);
      } finally {
        await pool.close(5_000);
      }
    },
  );
});

describe('retries', () => {
  it('retries a handler that throws up to the catalog attempts, with exponential backoff', async () => {
    const { queues, start, job, settled, outcomes } = lane('retry');
    const attemptsAt: number[] = [];
    const pool = start(async () => {
      attemptsAt.push(Date.now());
      throw new Error(`boom ${attemptsAt.length}`);
    });
    try {
      const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
      await settled(id, 'failed', 20_000);
      const failed = await job(id);
      expect(attemptsAt).toHaveLength(3);
      expect(failed.attemptsMade).toBe(3);
      expect(failed.failedReason).toBe('boom 3');
      const [first, second, third] = attemptsAt as [number, number, number];
      // Exponential from 1 s: ~1 s before the second attempt, ~2 s before the third.
      expect(second - first).toBeGreaterThanOrEqual(900);
      expect(third - second).toBeGreaterThanOrEqual(1_900);
      expect(outcomes.map((event) => event.outcome)).toEqual(['failed', 'failed', 'failed']);
    } finally {
      await pool.close(5_000);
    }
  });
});

describe('graceful shutdown', () => {
  it('waits for an active job that finishes within the grace', async () => {
    const { queues, start, job, outcomes } = lane('grace-ok');
    let started = false;
    let abortedAtEnd: boolean | undefined;
    const pool = start(async (_payload, { signal }) => {
      started = true;
      await sleep(500);
      abortedAtEnd = signal.aborted;
      return 'finished';
    });
    const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
    await waitFor('handler to start', () => started);
    const before = Date.now();
    await pool.close(10_000);
    const elapsed = Date.now() - before;
    expect(abortedAtEnd).toBe(false);
    expect(elapsed).toBeLessThan(5_000);
    const done = await job(id);
    expect(await done.getState()).toBe('completed');
    expect(done.returnvalue).toBe('finished');
    expect(outcomes.map((event) => event.outcome)).toEqual(['completed']);
  });

  it('aborts the handler when the grace runs out and hands the job back untouched', async () => {
    const { queues, start, job, settled, outcomes } = lane('grace-over');
    let started = false;
    let abortReason: unknown;
    // Like fetch or a query given the signal: the handler gives up by rejecting with the reason.
    const first = start(
      (_payload, { signal }) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => {
            abortReason = signal.reason;
            reject(signal.reason);
          });
        }),
    );
    const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
    await waitFor('handler to start', () => started);
    const before = Date.now();
    await first.close(300);
    const elapsed = Date.now() - before;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
    expect(abortReason).toBeInstanceOf(Error);
    expect((abortReason as Error).message).toBe('worker shutting down');

    const handedBack = await job(id);
    expect(await handedBack.getState()).toBe('waiting');
    expect(handedBack.attemptsMade).toBe(0);
    expect(handedBack.failedReason).toBeFalsy();
    expect(outcomes.map((event) => event.outcome)).toEqual(['handed-back']);

    // Another pool (the next process after a rollout) picks the handed-back job up and runs it.
    let secondRuns = 0;
    const second = start(async () => {
      secondRuns += 1;
      return 'second';
    });
    try {
      await settled(id, 'completed');
      const done = await job(id);
      expect(done.returnvalue).toBe('second');
      expect(secondRuns).toBe(1);
      expect(done.failedReason).toBeFalsy();
    } finally {
      await second.close(5_000);
    }
  });
});

describe('a lost lock', () => {
  it('aborts the run that lost its lock (a pause or a cut to Redis let it lapse), saying so in lockLost too', async () => {
    const { queues, start, prefix } = lane('lock-lost');
    let started = false;
    const reasons: unknown[] = [];
    start(
      (_payload, { signal, lockLost }) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => {
            reasons.push(signal.reason, lockLost.aborted);
            reject(signal.reason);
          });
        }),
    );
    const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
    await waitFor('handler to start', () => started);
    // Another worker took the job over while this one was away: its lock is no longer this worker's token.
    await redis.set(`${prefix}:system:${id}:lock`, 'another-worker-token');
    await waitFor('the run to be aborted', () => reasons.length > 0, { timeoutMs: 5_000, intervalMs: 20 });
    expect(reasons[0]).toBeInstanceOf(JobLockLostError);
    expect((reasons[0] as Error).message).toMatch(/could not be renewed|taken back/);
    expect(reasons[1]).toBe(true);
  });

  it('delays a job whose handler must run later, without spending an attempt', async () => {
    const { queues, start, job, settled, outcomes } = lane('run-later');
    let runs = 0;
    start(async () => {
      runs += 1;
      if (runs === 1) throw new RunLater(300, 'held by another run');
      return 'ran';
    });
    const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
    await settled(id, 'completed');
    expect(runs).toBe(2);
    expect((await job(id)).attemptsMade).toBe(1);
    expect(outcomes.map((event) => event.outcome)).toEqual(['run-later', 'completed']);
  });
});

describe('trace propagation', () => {
  const traceId = 'a'.repeat(32);
  const spanId = 'b'.repeat(16);
  const producer = () => trace.setSpanContext(context.active(), { traceId, spanId, traceFlags: 1 });

  beforeAll(() => {
    // No SDK in the test process: without a context manager `context.with` is a no-op, and
    // without a propagator `inject` writes nothing.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });

  afterAll(() => {
    propagation.disable();
    context.disable();
  });

  it('enqueue stores the active trace context and the worker continues that trace', async () => {
    const { queues, start, job, settled } = lane('trace-child');
    const id = await context.with(producer(), () => queues.enqueue('system.canary', { canaryId: randomUUID() }));
    const stored = await job(id);
    expect(stored.data).toMatchObject({ traceMode: 'child', trace: { traceparent: `00-${traceId}-${spanId}-01` } });

    const seenTraceIds: Array<string | undefined> = [];
    const pool = start(async () => {
      seenTraceIds.push(trace.getActiveSpan()?.spanContext().traceId);
    });
    try {
      await settled(id, 'completed');
      expect(seenTraceIds).toEqual([traceId]);
    } finally {
      await pool.close(5_000);
    }
  });

  it('enqueue outside any span stores no trace context', async () => {
    const { queues, job } = lane('trace-none');
    const id = await queues.enqueue('system.canary', { canaryId: randomUUID() });
    const stored = await job(id);
    expect(stored.data).toMatchObject({ traceMode: 'child', trace: {} });
    expect((stored.data as { trace: Record<string, string> }).trace.traceparent).toBeUndefined();
  });

  it('enqueueBulk stores link mode, and the worker starts a new trace rather than continuing it', async () => {
    const { queues, start, job, settled } = lane('trace-link');
    const ids = await context.with(producer(), () =>
      queues.enqueueBulk('system.canary', [{ payload: { canaryId: randomUUID() } }, { payload: { canaryId: randomUUID() } }]),
    );
    expect(ids).toHaveLength(2);
    for (const id of ids) {
      const stored = await job(id);
      expect(stored.data).toMatchObject({ traceMode: 'link' });
      expect((stored.data as { trace: Record<string, string> }).trace.traceparent).toContain(traceId);
    }

    const seenTraceIds: Array<string | undefined> = [];
    const pool = start(async () => {
      seenTraceIds.push(trace.getActiveSpan()?.spanContext().traceId);
    });
    try {
      for (const id of ids) await settled(id, 'completed');
      expect(seenTraceIds).toHaveLength(2);
      for (const seen of seenTraceIds) expect(seen).not.toBe(traceId);
    } finally {
      await pool.close(5_000);
    }
  });
});
