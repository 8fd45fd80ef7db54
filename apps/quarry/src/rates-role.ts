import { decryptSecret, encryptSecret } from '@quarry/auth';
import { createClusterLimiter } from '@quarry/cluster-limits';
import type { Config } from '@quarry/config';
import type { Pool } from '@quarry/db';
import { startWorkers, type JobQueues, type WorkerEvents } from '@quarry/jobs';
import type { Logger } from '@quarry/observability';
import {
  bookingEngineRecipes,
  createBookingPageSource,
  createBodyCache,
  createChromiumLauncher,
  createOpenTravelSource,
  createPushSender,
  createSourceRegistry,
  deliverPush,
  refreshSearch,
  scheduleRefreshes,
  type EnqueuePush,
  type PullPorts,
  type RefreshPorts,
  type SubscriptionPorts,
} from '@quarry/rates';
import { createSafeFetch } from '@quarry/safe-fetch';
import type { Redis } from 'ioredis';

/** Everything the hotel rates feed needs in one process, API or worker (issue 6). */
export function createRatesPorts(config: Config, db: Pool, redis: Redis, queues: JobQueues, logger: Logger) {
  const rates = config.rates;
  const sourceFetch = createSafeFetch({ allowPrivate: config.allowPrivateUrls, timeoutMs: rates.sourceTimeoutMs, userAgent: 'Quarry/1.0 rates' });
  const sender = createPushSender({ allowPrivate: config.allowPrivateUrls });
  const chromium = createChromiumLauncher(rates.chromiumPath);
  const sources = createSourceRegistry(
    {
      opentravel: createOpenTravelSource({ fetch: sourceFetch, timeoutMs: rates.sourceTimeoutMs }),
      'booking-page': createBookingPageSource({ browser: chromium.browser, recipes: bookingEngineRecipes, checkUrl: (url) => sender.check(url), timeoutMs: rates.sourceTimeoutMs }),
    },
    // Limits per source for the whole deployment (API live fetches and every rates-worker), not
    // per process: a booking engine sees the same politeness whatever the replica count.
    createClusterLimiter({
      redis,
      prefix: `${config.queuePrefix}:source-limits`,
      concurrency: rates.sourceConcurrency,
      perSecond: rates.sourcePerSecond,
      leaseMs: rates.sourceTimeoutMs + 30_000,
      onLeaseLost: (key, error) => logger.warn({ source: key, err: error }, 'source slot lease lost'),
    }),
  );
  const enqueuePush: EnqueuePush = (subscriptionId, dedupeKey) => queues.enqueue('rates.push', { subscriptionId }, { jobId: `push_${subscriptionId}_${dedupeKey}` });
  const refreshPorts: RefreshPorts = {
    db,
    sources,
    enqueuePush,
    now: () => new Date(),
    freshnessMs: rates.freshnessMs,
    // Never served: an invalid or failed source answer is logged with its reason (and kept in rate_source_failures).
    onFailure: (key, failure) => logger.warn({ search: key, kind: failure.kind, reason: failure.reason }, 'rate source failure'),
  };
  const pull: PullPorts = {
    db,
    // A pull's fetches are live: they go before scheduled refreshes of the same source.
    refresh: (key, signal) => refreshSearch(refreshPorts, key, signal, { live: true }),
    now: () => new Date(),
    horizonDays: rates.horizonDays,
    liveDeadlineMs: rates.pullDeadlineMs,
    sourceTimeoutMs: rates.sourceTimeoutMs,
    // Checked against the stored hash on every pull, so a cached body is never stale.
    cache: createBodyCache(rates.pullCacheBytes),
  };
  const push: SubscriptionPorts = {
    db,
    enqueuePush,
    checkPushUrl: (url) => sender.check(url),
    encrypt: (plaintext) => encryptSecret(config.secretKey, plaintext),
  };
  return {
    pull,
    push,
    refreshPorts,
    sender,
    async close() {
      await sourceFetch.close().catch(() => {});
      await sender.close().catch(() => {});
      await chromium.close();
    },
  };
}

/** The `rates-worker` role: the refresh scheduler, refresh jobs and push delivery. */
export async function startRatesRole(options: {
  config: Config;
  db: Pool;
  queues: JobQueues;
  connection: Redis;
  logger: Logger;
  events: WorkerEvents;
  ports: ReturnType<typeof createRatesPorts>;
}): Promise<{ stop(graceMs: number): Promise<void> }> {
  const { config, db, queues, logger, ports } = options;
  const rates = config.rates;
  const workers = startWorkers({
    connection: options.connection,
    prefix: config.queuePrefix,
    queues: ['rates.refresh', 'rates.push', 'rates.control'],
    concurrency: config.workerConcurrency,
    lockDurationMs: config.jobLockMs,
    stalledIntervalMs: config.jobStalledIntervalMs,
    handlers: {
      'rates.schedule': async () =>
        scheduleRefreshes({
          db,
          enqueueRefreshes: (items) => queues.enqueueBulk('rates.refresh', items.map((item) => ({ payload: item.key, options: { jobId: item.jobId } }))),
          enqueuePush: ports.refreshPorts.enqueuePush,
          now: () => new Date(),
          horizonDays: rates.horizonDays,
          nights: rates.nights,
          tiers: [
            { untilDaysAhead: 7, everyMs: rates.refreshNearMs },
            { untilDaysAhead: 30, everyMs: rates.refreshMidMs },
            { untilDaysAhead: Number.MAX_SAFE_INTEGER, everyMs: rates.refreshFarMs },
          ],
        }),
      'rates.refresh': (payload, { signal }) => refreshSearch(ports.refreshPorts, payload, signal),
      'rates.push': (payload) => deliverPush(deliveryPorts(), payload.subscriptionId, { isRetry: false }),
      'rates.push-retry': (payload) => deliverPush(deliveryPorts(), payload.subscriptionId, { isRetry: true }),
    },
    events: options.events,
  });
  // One cache for all pushes of this process: many subscriptions of the same hotels read each body once.
  const cache = createBodyCache(rates.pushCacheBytes);
  function deliveryPorts() {
    return {
      db,
      cache,
      sender: ports.sender,
      decrypt: (sealed: Buffer) => decryptSecret(config.secretKey, sealed),
      enqueueRetry: (subscriptionId: string, attempt: number, delayMs: number) =>
        queues.enqueue('rates.push-retry', { subscriptionId }, { jobId: `push_${subscriptionId}_retry${attempt}_${Date.now()}`, delayMs }),
      policy: { timeoutMs: rates.pushTimeoutMs, backoffBaseMs: rates.pushBackoffBaseMs, backoffMaxMs: rates.pushBackoffMaxMs, suspendAfterMs: rates.pushSuspendAfterMs, maxBytes: rates.pushMaxBytes },
      now: () => new Date(),
      log: (event: { subscriptionId: string; version: number; outcome: string; status: number | null; bytes: number; error: string | null }) =>
        logger.info(event, 'rates push'),
    };
  }
  await queues.schedule('rates.schedule', {}, { schedulerId: 'rates.schedule', everyMs: rates.scheduleEveryMs });
  return { stop: (graceMs) => workers.close(graceMs) };
}
