import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import { canaryJobHandler } from '@quarry/canary';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import { bulkEnqueuer, enqueuer, startRoleWorkers, type JobQueues, type Shared, type WorkerEvents } from '@quarry/jobs';
import type { Logger } from '@quarry/observability';
import { createRatesPorts, deliverPush, pushKeySealing, refreshSearch, scheduleRefreshes, type RatesPorts } from '@quarry/rates';
import type { Redis } from 'ioredis';

/**
 * The `rates-worker` role: the refresh scheduler, refresh jobs and push delivery. With
 * `runsCanary`, it also takes the operator canary (`system.canary`; one worker role per process does).
 */
export async function startRatesRole(runtime: {
  config: ConfigFor<'rates-worker'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  logger: Logger;
  events: WorkerEvents;
  workerId: string;
  runsCanary: boolean;
  shared: Shared;
}): Promise<{ stop(graceMs: number): Promise<void> }> {
  const { config, db, queues, logger } = runtime;
  // The same ports as the API's when both run in this process (one browser, one source limiter).
  const ports: RatesPorts = runtime.shared('rates', () =>
    createRatesPorts({
      rates: config.rates,
      chromiumRunAs: config.chromiumRunAs,
      allowPrivateUrls: config.allowPrivateUrls,
      limitsPrefix: `${config.queuePrefix}:source-limits`,
      db,
      redis: runtime.redis,
      jobs: {
        push: enqueuer(queues, 'rates.push'),
        pushRetry: enqueuer(queues, 'rates.push-retry'),
        refresh: bulkEnqueuer(queues, 'rates.refresh'),
      },
      ...pushKeySealing(createSealer(config.secretKey, createDeploymentKeyring(config.keyring))),
      logger,
    }),
  );
  const workers = startRoleWorkers(
    {
      redis: runtime.redis,
      events: runtime.events,
      canary: runtime.runsCanary ? { 'system.canary': canaryJobHandler({ db, workerId: runtime.workerId }) } : null,
    },
    config,
  );
  workers.start({
    queues: ['rates.refresh', 'rates.push', 'rates.control'],
    handlers: {
      'rates.schedule': async () => scheduleRefreshes(ports.schedulePorts),
      'rates.refresh': (payload, { signal }) => refreshSearch(ports.refreshPorts, payload, signal),
      'rates.push': (payload) => deliverPush(ports.deliveryPorts(), payload.subscriptionId, { isRetry: false }),
      'rates.push-retry': (payload) => deliverPush(ports.deliveryPorts(), payload.subscriptionId, { isRetry: true }),
    },
  });
  await queues.schedule('rates.schedule', {}, { schedulerId: 'rates.schedule', everyMs: config.rates.scheduleEveryMs });
  return {
    async stop(graceMs) {
      await workers.close(graceMs);
    },
  };
}
