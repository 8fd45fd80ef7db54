import type { Redis } from 'ioredis';
import { startWorkers, type JobHandlers, type WorkerEvents, type WorkerPool } from './job-workers.ts';
import type { QueueFamily, QueueName } from './catalog.ts';

/** Something a process keeps once for every role that asks (a client, a browser), closed after the roles stop. */
export type Shared = <T extends { close(): Promise<void> }>(name: string, create: () => T) => T;

/** What every worker role of a process is started with, and what its workers take from it. */
export type RoleWorkerRuntime = {
  redis: Redis;
  events?: WorkerEvents;
  /** The operator canary's handler map when this role takes `system.canary` (one role per process does), else null. */
  canary: JobHandlers<'system'> | null;
};

/** The settings every worker role reads the same way (a role's config has them all). */
export type RoleWorkerConfig = {
  queuePrefix: string;
  /** A job's lock: a crashed worker's job is taken over when it lapses. */
  jobLockMs: number;
  jobStalledIntervalMs: number;
  /** The concurrency of queues that have no setting of their own (the canary's, for one). */
  workerConcurrency: number;
};

export type RoleWorkers = {
  /**
   * Workers for `queues`, with a handler for each of their jobs (concurrency: the role's
   * `workerConcurrency` unless given). `close` closes them with the rest unless `closedByCaller`:
   * a role that must close them at a point of its own (mail: after its SMTP server) does it itself.
   */
  start<Queues extends QueueName | QueueFamily>(group: {
    queues: readonly Queues[];
    handlers: JobHandlers<Queues>;
    concurrency?: number;
    closedByCaller?: boolean;
  }): WorkerPool;
  /** Closes every group (the canary's too, not those `closedByCaller`) at once, each with `graceMs` for its active jobs. */
  close(graceMs: number): Promise<void>;
};

/**
 * The workers of one role: every group shares the role's connection, prefix, lock and stall
 * settings and events, and the canary (when the role takes it) starts with them. Each handler's
 * context carries its attempt and whether it is the last (`isFinalAttempt`).
 */
export function startRoleWorkers(runtime: RoleWorkerRuntime, config: RoleWorkerConfig): RoleWorkers {
  const pools: WorkerPool[] = [];
  const start: RoleWorkers['start'] = (group) => {
    const pool = startWorkers({
      connection: runtime.redis,
      prefix: config.queuePrefix,
      queues: group.queues,
      handlers: group.handlers,
      concurrency: group.concurrency ?? config.workerConcurrency,
      lockDurationMs: config.jobLockMs,
      stalledIntervalMs: config.jobStalledIntervalMs,
      ...(runtime.events ? { events: runtime.events } : {}),
    });
    if (!group.closedByCaller) pools.push(pool);
    return pool;
  };
  if (runtime.canary) start({ queues: ['system'], handlers: runtime.canary });
  return {
    start,
    async close(graceMs) {
      await Promise.all(pools.map((pool) => pool.close(graceMs)));
    },
  };
}
