import { listBatches } from '@quarry/db';
import { isStoreOutage, startWorkers, type JobQueues, type WorkerEvents } from '@quarry/jobs';
import type { Logger } from '@quarry/observability';
import { admitBatch, mineSubmission, reviveStrandedRows, type MiningPorts } from '@quarry/recruitment';
import type { Redis } from 'ioredis';
import { startBatchQueueSupervisor } from './batch-queue-supervisor.ts';

export type MiningRole = { stop(graceMs: number): Promise<void> };

/**
 * The mining-worker role: single posts and admission from the shared queues, and each running
 * batch from its own queue. A periodic admission sweep keeps every running batch fed even when
 * the per-row top-up was lost in a crash.
 */
export async function startMiningRole(options: {
  ports: MiningPorts;
  queues: JobQueues;
  connection: Redis;
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  batchPollMs: number;
  /** How often unfinished rows whose job is gone or failed are put back (default 15 s). */
  reviveEveryMs?: number;
  graceMs: number;
  logger: Logger;
  events?: WorkerEvents;
}): Promise<MiningRole> {
  const { ports } = options;
  const mine = (submissionId: string, job: { attemptsMade: number; opts: { attempts?: number } }, signal: AbortSignal) =>
    mineSubmission(ports, submissionId, { signal, finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1) });

  const shared = startWorkers({
    connection: options.connection,
    prefix: options.prefix,
    queues: ['mining.single', 'mining.control'],
    concurrency: options.concurrency,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
    handlers: {
      'mining.mine': (payload, { job, signal }) => mine(payload.submissionId, job, signal),
      'mining.admit': async (payload) => {
        const batchIds = payload.batchId
          ? [payload.batchId]
          : (await listBatches(ports.pool, { limit: 1_000, activeOnly: true })).map((batch) => batch.batchId);
        for (const batchId of batchIds) await admitBatch(ports, batchId);
      },
    },
    ...(options.events ? { events: options.events } : {}),
  });
  await options.queues.schedule('mining.admit', {}, { schedulerId: 'mining-admission-sweep', everyMs: 10_000 });

  const supervisor = startBatchQueueSupervisor({
    db: ports.pool,
    connection: options.connection,
    prefix: options.prefix,
    queues: options.queues,
    pollMs: options.batchPollMs,
    graceMs: options.graceMs,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
    handler: (payload, { job, signal }) => mine(payload.submissionId, job, signal),
    ...(options.events ? { events: options.events } : {}),
    // A store outage is logged once by the store's own health log, not at every poll.
    onError: (error) => {
      if (!isStoreOutage(error)) options.logger.error({ err: error }, 'batch queue supervisor failed');
    },
  });

  // Not a BullMQ job scheduler: it must run when Redis lost every job and schedule, and it
  // needs Postgres only to find the rows. Each process runs it; job ids keep it idempotent.
  let reviving = true;
  let reviveTimer: NodeJS.Timeout | undefined;
  const revive = async () => {
    try {
      const revived = await reviveStrandedRows(ports);
      if (revived > 0) options.logger.warn({ revived }, 'put back the jobs of unfinished rows');
    } catch (error) {
      if (!isStoreOutage(error)) options.logger.error({ err: error }, 'reviving unfinished rows failed');
    }
    if (reviving) reviveTimer = setTimeout(() => void revive(), options.reviveEveryMs ?? 15_000);
  };
  reviveTimer = setTimeout(() => void revive(), options.reviveEveryMs ?? 15_000);

  return {
    async stop(graceMs) {
      reviving = false;
      clearTimeout(reviveTimer);
      await Promise.all([shared.close(graceMs), supervisor.stop(graceMs)]);
    },
  };
}
