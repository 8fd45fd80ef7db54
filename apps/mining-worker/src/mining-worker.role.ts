import { createProcessChromium } from '@quarry/browser';
import { canaryJobHandler } from '@quarry/canary';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import {
  isStoreOutage,
  startRoleWorkers,
  whenRedisIsBack,
  type JobContext,
  type JobHandlers,
  type JobQueues,
  type RoleWorkerConfig,
  type Shared,
  type WorkerEvents,
} from '@quarry/jobs';
import { findAtsAccount, findAtsCredential } from '@quarry/applications';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import { createProcessMiner, createProcessSignIns, type Miner } from '@quarry/miner';
import type { Logger } from '@quarry/observability';
import {
  admitBatch,
  createMiningQueuePort,
  miningJobsOf,
  createOutcomeAnnouncer,
  listBatches,
  mineSubmission,
  reviveStrandedRows,
  type MiningPorts,
} from '@quarry/recruitment';
import { createSafeFetch } from '@quarry/safe-fetch';
import type { Redis } from 'ioredis';
import { startBatchQueueSupervisor } from './batch-queue-supervisor.ts';

export type MiningRole = { stop(graceMs: number): Promise<void> };

/**
 * The mining-worker role: single posts and admission from the shared queues, and each running
 * batch from its own queue. A periodic admission sweep keeps every running batch fed even when
 * the per-row top-up was lost in a crash. With `runsCanary`, it also takes the operator canary
 * (`system.canary`; one worker role per process does).
 */
export async function startMiningRole(runtime: {
  config: ConfigFor<'mining-worker'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  logger: Logger;
  events: WorkerEvents;
  workerId: string;
  runsCanary: boolean;
  shared: Shared;
  /** Replaces the process's miner (tests run the role with one whose browser reaches their doubles). */
  miner?: Miner;
}): Promise<MiningRole> {
  const { config, db, queues, logger } = runtime;
  const { accountsKey } = config;
  const opensAccounts = accountsKey !== undefined || config.keyring.keys.length > 0;
  if (!opensAccounts)
    logger.warn('QUARRY_SECRET_KEY is not set: Workday postings are answered LoginRequired even for clients with a tenant account');
  const sealer = opensAccounts ? createSealer(accountsKey, createDeploymentKeyring(config.keyring)) : null;
  // One Chromium per process, shared by the roles that drive pages (mining, applying), started on the first job that needs it.
  const chromium = config.mining.browser.enabled
    ? runtime.shared('chromium', () =>
        createProcessChromium(config.browser, config.chromiumRunAs, (event) => logger.info(event, 'browser recycled')),
      )
    : null;
  const fetchClientUrl = runtime.shared('client-url-fetch', () =>
    createSafeFetch({ allowPrivate: config.allowPrivateUrls, userAgent: 'Quarry/1.0 (+https://github.com/quarry)' }),
  );
  const ports: MiningPorts = {
    pool: db,
    queue: createMiningQueuePort(miningJobsOf(queues)),
    settings: config.batches,
    miner:
      runtime.miner ??
      createProcessMiner(
        config.mining,
        config.allowPrivateUrls,
        fetchClientUrl,
        chromium,
        runtime.shared('tenant-sign-ins', createProcessSignIns),
      ),
    // The sealed account is read and opened here, at mining time, for the submission's client.
    ...(sealer
      ? {
          findAccount: (clientId: string, url: string) => findAtsAccount({ pool: db, sealer }, clientId, url),
          findCredential: (clientId: string, url: string) => findAtsCredential({ pool: db, sealer }, clientId, url),
        }
      : {}),
    announceOutcome: createOutcomeAnnouncer(runtime.redis, config.queuePrefix, logger),
    logFailure: (failure) => logger.info(failure, 'mining failed'),
  };
  // The process's Chromium is closed after every role stopped: jobs may finish in it first.
  return startMiningWorkers(ports, {
    connection: runtime.redis,
    config,
    canary: runtime.runsCanary ? { 'system.canary': canaryJobHandler({ db, workerId: runtime.workerId }) } : null,
    batchPollMs: config.mining.batchPollMs,
    graceMs: config.shutdownGraceMs,
    events: runtime.events,
    queues,
    logger,
  });
}

/**
 * The mining handlers over given ports: single posts and admission from the shared queues, each
 * running batch from its own queue, and the reconciler that puts back the jobs of unfinished rows.
 */
export async function startMiningWorkers(
  ports: MiningPorts,
  options: {
    queues: JobQueues;
    connection: Redis;
    /** The queue prefix, lock and stall settings, and the shared queues' concurrency. */
    config: RoleWorkerConfig;
    /** The operator canary's handler when this process's mining role takes it. */
    canary?: JobHandlers<'system'> | null;
    batchPollMs: number;
    graceMs: number;
    logger: Logger;
    events?: WorkerEvents;
    /** How often unfinished rows whose job is gone or failed are put back (default 5 s). */
    reviveEveryMs?: number;
  },
): Promise<MiningRole> {
  // Short enough that a post accepted while a producer could not enqueue starts within seconds.
  const reviveEveryMs = options.reviveEveryMs ?? 5_000;
  const mine = (submissionId: string, { signal, isFinalAttempt }: JobContext) =>
    mineSubmission(ports, submissionId, { signal, finalAttempt: isFinalAttempt });

  const workers = startRoleWorkers(
    { redis: options.connection, canary: options.canary ?? null, ...(options.events ? { events: options.events } : {}) },
    options.config,
  );
  workers.start({
    queues: ['mining.single', 'mining.control'],
    handlers: {
      'mining.mine': (payload, job) => mine(payload.submissionId, job),
      'mining.admit': async (payload) => {
        const batchIds = payload.batchId
          ? [payload.batchId]
          : (await listBatches(ports.pool, { limit: 1_000, activeOnly: true })).map((batch) => batch.batchId);
        for (const batchId of batchIds) await admitBatch(ports, batchId);
      },
    },
  });
  await options.queues.schedule('mining.admit', {}, { schedulerId: 'mining-admission-sweep', everyMs: 10_000 });

  const supervisor = startBatchQueueSupervisor({
    db: ports.pool,
    connection: options.connection,
    prefix: options.config.queuePrefix,
    queues: options.queues,
    pollMs: options.batchPollMs,
    graceMs: options.graceMs,
    lockDurationMs: options.config.jobLockMs,
    stalledIntervalMs: options.config.jobStalledIntervalMs,
    handler: (payload, job) => mine(payload.submissionId, job),
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
  let running: Promise<void> | null = null;
  const revive = async (minAgeMs?: number) => {
    clearTimeout(reviveTimer);
    try {
      const revived = await reviveStrandedRows(ports, minAgeMs === undefined ? {} : { minAgeMs });
      if (revived > 0) options.logger.warn({ revived }, 'put back the jobs of unfinished rows');
    } catch (error) {
      if (!isStoreOutage(error)) options.logger.error({ err: error }, 'reviving unfinished rows failed');
    }
    if (reviving) reviveTimer = setTimeout(() => void reviveOnce(), reviveEveryMs);
  };
  const reviveOnce = (minAgeMs?: number) => (running ??= revive(minAgeMs).finally(() => (running = null)));
  reviveTimer = setTimeout(() => void reviveOnce(), reviveEveryMs);
  // Posts accepted while Redis was away are in Postgres only: put them on the queue as soon as
  // Redis is back rather than at the next round, whatever their age.
  // revive reports its own failures.
  const stopRevivingOnReconnect = whenRedisIsBack(options.connection, () => reviveOnce(0), { onError: () => {} });

  return {
    async stop(graceMs) {
      reviving = false;
      clearTimeout(reviveTimer);
      stopRevivingOnReconnect();
      await Promise.all([workers.close(graceMs), supervisor.stop(graceMs)]);
    },
  };
}
