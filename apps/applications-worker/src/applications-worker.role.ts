import { purgeApplications, reconcileApplications, runApplication, type RunPorts } from '@quarry/applications';
import { createBrowserApplier, type Applier } from '@quarry/hosted-form-apply';
import { createAtsApplier } from '@quarry/ats-api-apply';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import { deliverCallbacks, startCallbackRelay } from '@quarry/callbacks';
import { createProcessChromium } from '@quarry/browser';
import { canaryJobHandler } from '@quarry/canary';
import { createClusterLimiter } from '@quarry/cluster-limits';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import {
  bulkEnqueuer,
  enqueuer,
  isStoreOutage,
  queuedJobFinder,
  startRoleWorkers,
  whenRedisIsBack,
  type JobQueues,
  type Shared,
  type WorkerEvents,
} from '@quarry/jobs';
import { createProcessMiner, createProcessSignIns, type Miner } from '@quarry/miner';
import type { Logger } from '@quarry/observability';
import { createOutcomeAnnouncer, findMinedPost, recordMinedPost } from '@quarry/recruitment';
import { createSafeFetch } from '@quarry/safe-fetch';
import type { Redis } from 'ioredis';

/**
 * Used when the browser is turned off (`MINING_BROWSER=off`): every application fails before
 * anything reaches the employer's site, saying so, rather than waiting for an engine that is not there.
 */
const noEngine: Applier = async () => ({
  status: 'failed',
  errorCode: 'ApplicationFailed',
  message: 'This deployment has no application engine; nothing was submitted',
  submitted: false,
});

/**
 * The `applications-worker` role: runs `applications.apply` (one application at most once, the
 * employer's host within its cluster-wide politeness budget) and the recurring purge of
 * candidates' data. Applications are mined first when their post was not. It also delivers
 * recruitment's callbacks (mining outcomes, batches' ends, applications' ends, ADR 0053): the
 * outbox's relay and the `callbacks.deliver` queue. With `runsCanary`, it also takes the operator canary.
 */
export async function startApplicationsRole(runtime: {
  config: ConfigFor<'applications-worker'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  logger: Logger;
  events: WorkerEvents;
  workerId: string;
  runsCanary: boolean;
  shared: Shared;
  /** Replaces the browser engine of hosted forms (tests run the role with an engine of their own). */
  applier?: Applier;
  /** Replaces the miner of posts applied to unmined (tests run the role with one whose browser reaches their doubles). */
  miner?: Miner;
}): Promise<{ stop(graceMs: number): Promise<void> }> {
  const { config, db, queues, logger } = runtime;
  // One Chromium per process, shared by the roles that drive pages (mining, applying), started on the first job that needs it.
  const chromium = config.mining.browser.enabled
    ? runtime.shared('chromium', () =>
        createProcessChromium(config.browser, config.chromiumRunAs, (event) => logger.info(event, 'browser recycled')),
      )
    : null;
  if (!runtime.applier && !chromium) logger.warn('the browser is off (MINING_BROWSER=off): applications will fail with ApplicationFailed');
  const fetchClientUrl = runtime.shared('client-url-fetch', () =>
    createSafeFetch({ allowPrivate: config.allowPrivateUrls, userAgent: 'Quarry/1.0 (+https://github.com/quarry)' }),
  );
  const hostLimiter = createClusterLimiter({
    redis: runtime.redis,
    prefix: `${config.queuePrefix}:apply-hosts`,
    concurrency: config.applications.hostConcurrency,
    perSecond: config.applications.hostPerSecond,
    // A crashed worker's slot frees itself within a lock period.
    leaseMs: config.jobLockMs,
    onLeaseLost: (host, error) => logger.warn({ host, err: error }, 'employer host slot lost'),
  });
  // API processes drop their cached answer for a post this role mined, as after the mining role's.
  const announceOutcome = createOutcomeAnnouncer(runtime.redis, config.queuePrefix, logger);
  // Submissions through a vendor's API, per vendor board, counted across every worker through Redis:
  // Lever refuses more than 2 application POSTs a second, the others document no rate in our sources.
  const vendorLimiter = createClusterLimiter({
    redis: runtime.redis,
    prefix: `${config.queuePrefix}:apply-vendors`,
    concurrency: 2,
    perSecond: 2,
    leaseMs: config.jobLockMs,
  });
  // A tenant's refusal of an account holds for every role of the process that signs in with it.
  const signIns = runtime.shared('tenant-sign-ins', createProcessSignIns);
  // The same Chromium as the miner of this role: one browser per process, its contexts shared.
  const hostedForm =
    runtime.applier ??
    (chromium
      ? createBrowserApplier({ pool: chromium, allowPrivate: config.allowPrivateUrls, timeoutMs: config.applications.timeoutMs, signIns })
      : noEngine);
  const ports: RunPorts = {
    pool: db,
    sealer: createSealer(config.secretKey, createDeploymentKeyring(config.keyring)),
    findMinedPost: (clientId, jobPostId) => findMinedPost(db, clientId, jobPostId),
    miner: runtime.miner ?? createProcessMiner(config.mining, config.allowPrivateUrls, fetchClientUrl, chromium, signIns),
    recordMining: (post, mined, durationMs) => recordMinedPost({ pool: db, announceOutcome }, post, mined, durationMs),
    // The vendor's API where the client registered the employer's key (or none is needed), else the hosted form.
    applier: createAtsApplier({
      hostedForm,
      endpoints: config.mining.atsEndpoints,
      timeoutMs: config.applications.timeoutMs,
      rateLimit: vendorLimiter,
    }),
    fetchFile: fetchClientUrl,
    limitHost: hostLimiter,
    maxFileBytes: config.applications.maxFileBytes,
    // A run's lease lapses as its queue lock does: a crashed worker's application is taken over as
    // soon as its job is, and a paused one's second run waits no longer than the lock it lost.
    leaseMs: config.jobLockMs,
  };
  const workers = startRoleWorkers(
    {
      redis: runtime.redis,
      events: runtime.events,
      canary: runtime.runsCanary ? { 'system.canary': canaryJobHandler({ db, workerId: runtime.workerId }) } : null,
    },
    config,
  );
  workers.start({
    queues: ['applications.apply'],
    concurrency: config.applications.concurrency,
    handlers: {
      'applications.apply': async (payload, { signal, lockLost, isFinalAttempt }) => {
        const summary = await runApplication(ports, payload.applicationId, { signal, lockLost, finalAttempt: isFinalAttempt });
        // Ids and codes only: the candidate's data is never logged.
        logger.info(summary, 'application finished');
        return summary;
      },
    },
  });
  const reconcile = async () => {
    const reconciled = await reconcileApplications(
      { pool: db, enqueueApply: enqueuer(queues, 'applications.apply'), findApplyJob: queuedJobFinder(queues, 'applications.apply') },
      { strandedAfterMs: config.applications.strandedAfterMs, retentionDays: config.applications.retentionDays },
    );
    if (reconciled.requeued > 0 || reconciled.abandoned > 0)
      logger.warn(reconciled, 'applications whose job was lost were enqueued again, or abandoned ones ended');
    return reconciled;
  };
  // A Redis restarted empty lost every queued application's job, and the scheduled reconcile with
  // them: put them back as soon as Redis is back instead of at the next round.
  const stopReconcilingOnReconnect = whenRedisIsBack(runtime.redis, async () => void (await reconcile()), {
    followUpMs: config.applications.strandedAfterMs + 1_000,
    onError: (error) => {
      if (!isStoreOutage(error)) logger.error({ err: error }, 'reconciling applications after Redis came back failed');
    },
  });
  workers.start({
    queues: ['applications.control'],
    concurrency: 1,
    handlers: {
      'applications.purge': async () => {
        const purged = await purgeApplications(db, { retentionDays: config.applications.retentionDays });
        if (purged > 0) logger.info({ purged }, "purged candidates' data of ended applications");
        return { purged };
      },
      'applications.reconcile': () => reconcile(),
    },
  });
  // Recruitment's callbacks: the relay claims what the outbox owes (each client under its cap) and
  // enqueues it; the deliveries POST it through the SSRF guard, signed with the client's secrets.
  // A dispatch's lease: a POST's answer (and its connection) twice over, and a minute for the rest.
  const callbackLeaseMs = config.callbacks.timeoutMs * 2 + 60_000;
  const relay = startCallbackRelay({
    pool: db,
    enqueue: bulkEnqueuer(queues, 'callbacks.deliver'),
    settings: { ...config.callbacks, pollMs: config.callbacks.relayPollMs, leaseMs: callbackLeaseMs },
    onError: (error, where) => logger.warn({ err: error, where }, 'callback relay'),
  });
  const callbackPorts = {
    pool: db,
    sealer: ports.sealer,
    fetchCallback: fetchClientUrl,
    // Each job keeps its client's lane for up to 10 s of rounds (its last round well within the job's 2-min timeout).
    settings: {
      ...config.callbacks,
      lane: {
        clientConcurrency: config.callbacks.clientConcurrency,
        leaseMs: callbackLeaseMs,
        eventsPerRound: config.callbacks.eventsPerJob,
        forMs: 10_000,
      },
    },
  };
  workers.start({
    queues: ['callbacks.deliver'],
    concurrency: config.callbacks.concurrency,
    handlers: {
      'callbacks.deliver': async (payload, { signal }) => {
        try {
          return await deliverCallbacks(callbackPorts, payload, signal);
        } finally {
          // The client's room under its cap changed: the next of its events need not wait for a poll.
          relay.wake();
        }
      },
    },
  });
  await queues.schedule('applications.purge', {}, { schedulerId: 'applications-purge', everyMs: config.applications.purgeEveryMs });
  await queues.schedule(
    'applications.reconcile',
    {},
    { schedulerId: 'applications-reconcile', everyMs: config.applications.reconcileEveryMs },
  );
  return {
    async stop(graceMs) {
      stopReconcilingOnReconnect();
      await relay.stop();
      await workers.close(graceMs);
    },
  };
}
