import { type Queryable } from '@quarry/db';
import { listBatches } from '@quarry/recruitment';
import type { JobHandler, JobQueues, WorkerEvents, WorkerPool } from '@quarry/jobs';
import { startWorkers } from '@quarry/jobs';
import type { Redis } from 'ioredis';
import { batchRateLimit } from './batch-rate-limit.ts';

export type BatchQueueSupervisor = { stop(graceMs: number): Promise<void>; attached(): string[] };

/**
 * Keeps one BullMQ worker per running batch in this process: batches appear in Postgres, so the
 * supervisor polls it and attaches to new batch queues without a restart, and detaches from
 * paused and finished ones (their running rows finish first), releasing the Redis connection
 * each worker holds (ADR 0006 on the limits of this design).
 */
export function startBatchQueueSupervisor(options: {
  db: Queryable;
  connection: Redis;
  prefix: string;
  queues: JobQueues;
  pollMs: number;
  graceMs: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  handler: JobHandler<'mining.mine-batch-row'>;
  events?: WorkerEvents;
  onError: (error: unknown) => void;
}): BatchQueueSupervisor {
  const pools = new Map<string, WorkerPool>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const detach = async (batchId: string) => {
    const pool = pools.get(batchId);
    pools.delete(batchId);
    await pool?.close(options.graceMs);
    await options.queues.releaseFamilyQueue('mining.batch', batchId);
  };

  const reconcile = async () => {
    const running = new Map(
      (await listBatches(options.db, { limit: 1_000, activeOnly: true }))
        .filter((batch) => batch.state !== 'paused')
        .map((batch) => [batch.batchId, batch]),
    );
    for (const [batchId, batch] of running) {
      if (pools.has(batchId) || stopped) continue;
      pools.set(
        batchId,
        startWorkers({
          connection: options.connection,
          prefix: options.prefix,
          queues: ['mining.batch'],
          key: batchId,
          concurrency: batch.concurrency,
          limiter: batchRateLimit(batch.ratePerMinute),
          lockDurationMs: options.lockDurationMs,
          stalledIntervalMs: options.stalledIntervalMs,
          handlers: { 'mining.mine-batch-row': options.handler },
          ...(options.events ? { events: options.events } : {}),
        }),
      );
    }
    await Promise.all([...pools.keys()].filter((batchId) => !running.has(batchId)).map(detach));
  };

  const loop = async () => {
    try {
      await reconcile();
    } catch (error) {
      options.onError(error);
    }
    if (!stopped) timer = setTimeout(() => void loop(), options.pollMs);
  };
  void loop();

  return {
    attached: () => [...pools.keys()],
    async stop(graceMs) {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([...pools.values()].map((pool) => pool.close(graceMs)));
      pools.clear();
    },
  };
}
