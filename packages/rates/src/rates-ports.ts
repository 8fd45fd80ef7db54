import { createChromiumLauncher, type ChromiumRunAs } from '@quarry/browser';
import { createClusterLimiter } from '@quarry/cluster-limits';
import type { RatesSettings } from '@quarry/config';
import type { Pool } from '@quarry/db';
import type { Enqueue, EnqueueMany } from '@quarry/jobs';
import type { Logger } from '@quarry/observability';
import { createSafeFetch } from '@quarry/safe-fetch';
import type { Redis } from 'ioredis';
import { createBodyCache } from './body-cache.ts';
import type { DeliveryPorts } from './push-delivery.ts';
import { createPushSender } from './push-sender.ts';
import type { PullPorts } from './pull-rates.ts';
import type { SubscriptionPorts } from './push-subscriptions.ts';
import type { RefreshTier, SchedulePorts } from './refresh-scheduler.ts';
import { refreshSearch, type EnqueuePush, type RefreshPorts } from './refresh-search.ts';
import { bookingEngineRecipes } from './sources/booking-engine-recipes.ts';
import { createBookingPageSource } from './sources/booking-page.source.ts';
import { createOpenTravelSource } from './sources/opentravel.source.ts';
import { createSourceRegistry } from './sources/source-registry.ts';

/** The rates jobs this domain adds, typed by the job catalog; the role wires them from `JobQueues`. */
export type RatesJobs = {
  push: Enqueue<'rates.push'>;
  pushRetry: Enqueue<'rates.push-retry'>;
  refresh: EnqueueMany<'rates.refresh'>;
};

/** One push job per subscription state: the dedupe key makes a repeated request for it a no-op. */
export const pushEnqueuer =
  (jobs: Pick<RatesJobs, 'push'>): EnqueuePush =>
  (subscriptionId, dedupeKey) =>
    jobs.push({ subscriptionId }, { jobId: `push_${subscriptionId}_${dedupeKey}` });

/** How often a search is refreshed, by how far ahead its arrival date is. */
export const refreshTiers = (rates: RatesSettings): RefreshTier[] => [
  { untilDaysAhead: 7, everyMs: rates.refreshNearMs },
  { untilDaysAhead: 30, everyMs: rates.refreshMidMs },
  { untilDaysAhead: Number.MAX_SAFE_INTEGER, everyMs: rates.refreshFarMs },
];

/** Everything the hotel rates feed needs in one process, API or worker. */
export function createRatesPorts(options: {
  rates: RatesSettings;
  /** Who the booking-page searches' Chromium runs as when this process is root (ADR 0056). */
  chromiumRunAs?: ChromiumRunAs;
  allowPrivateUrls: string[];
  /** Redis key prefix of the per-source limits shared by every process. */
  limitsPrefix: string;
  db: Pool;
  redis: Redis;
  jobs: RatesJobs;
  encrypt: (subscriptionId: string, plaintext: string) => Buffer;
  decrypt: (subscriptionId: string, sealed: Buffer) => string;
  logger: Logger;
}) {
  const { rates, db, logger } = options;
  const sourceFetch = createSafeFetch({
    allowPrivate: options.allowPrivateUrls,
    timeoutMs: rates.sourceTimeoutMs,
    userAgent: 'Quarry/1.0 rates',
  });
  const sender = createPushSender({ allowPrivate: options.allowPrivateUrls });
  const chromium = createChromiumLauncher(rates.chromiumPath, options.chromiumRunAs);
  const sources = createSourceRegistry(
    {
      opentravel: createOpenTravelSource({ fetch: sourceFetch, timeoutMs: rates.sourceTimeoutMs }),
      'booking-page': createBookingPageSource({
        browser: chromium.browser,
        recipes: bookingEngineRecipes,
        checkUrl: (url) => sender.check(url),
        timeoutMs: rates.sourceTimeoutMs,
      }),
    },
    // Limits per source for the whole deployment (API live fetches and every rates-worker), not
    // per process: a booking engine sees the same politeness whatever the replica count.
    createClusterLimiter({
      redis: options.redis,
      prefix: options.limitsPrefix,
      concurrency: rates.sourceConcurrency,
      perSecond: rates.sourcePerSecond,
      leaseMs: rates.sourceTimeoutMs + 30_000,
      onLeaseLost: (key, error) => logger.warn({ source: key, err: error }, 'source slot lease lost'),
    }),
  );
  const enqueuePush = pushEnqueuer(options.jobs);
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
    // A pull's live fetches go before scheduled refreshes at the source's limiter.
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
    encrypt: options.encrypt,
  };
  const schedulePorts: SchedulePorts = {
    db,
    enqueueRefreshes: (items) => options.jobs.refresh(items.map((item) => ({ payload: item.key, options: { jobId: item.jobId } }))),
    enqueuePush,
    now: () => new Date(),
    horizonDays: rates.horizonDays,
    nights: rates.nights,
    tiers: refreshTiers(rates),
  };
  // One cache for all pushes of this process: many subscriptions of the same hotels read each body once.
  let pushCache: ReturnType<typeof createBodyCache> | undefined;
  const deliveryPorts = (): DeliveryPorts => {
    pushCache ??= createBodyCache(rates.pushCacheBytes);
    return {
      db,
      cache: pushCache,
      sender,
      decrypt: options.decrypt,
      enqueueRetry: (subscriptionId, attempt, delayMs) =>
        options.jobs.pushRetry({ subscriptionId }, { jobId: `push_${subscriptionId}_retry${attempt}_${Date.now()}`, delayMs }),
      enqueueAfterLease: (subscriptionId, delayMs, leaseUntil) =>
        options.jobs.push({ subscriptionId }, { jobId: `push_${subscriptionId}_lease${leaseUntil.getTime()}`, delayMs }),
      policy: {
        timeoutMs: rates.pushTimeoutMs,
        backoffBaseMs: rates.pushBackoffBaseMs,
        backoffMaxMs: rates.pushBackoffMaxMs,
        suspendAfterMs: rates.pushSuspendAfterMs,
        maxBytes: rates.pushMaxBytes,
      },
      now: () => new Date(),
      log: (event) => logger.info(event, 'rates push'),
    };
  };
  return {
    pull,
    push,
    refreshPorts,
    schedulePorts,
    deliveryPorts,
    sender,
    async close() {
      await sourceFetch.close().catch(() => {});
      await sender.close().catch(() => {});
      await chromium.close();
    },
  };
}
export type RatesPorts = ReturnType<typeof createRatesPorts>;
