import { createAuthenticator, createSessionCodec, clientFrameOrigins } from '@quarry/auth';
import { createBookingStatusCache, followBookingChanges } from '@quarry/bookings';
import { createFailureLimiter } from '@quarry/cluster-limits';
import type { ConfigFor } from '@quarry/config';
import type { Pool } from '@quarry/db';
import { bulkEnqueuer, createJobQueues, createProducerRedis, enqueuer, type JobQueues, type Shared } from '@quarry/jobs';
import { createDeploymentKeyring, createSealer } from '@quarry/keyring';
import type { Logger, Metrics, StoreHealth } from '@quarry/observability';
import { createRatesPorts, findGrantedHotelRow, pushEnqueuer, pushKeySealing, type RatesPorts } from '@quarry/rates';
import { createMiningQueuePort, createRetrievalCache, findMinedPost, followOutcomes, miningJobsOf } from '@quarry/recruitment';
import { createAddressGuard, createSafeFetch, type SafeFetch } from '@quarry/safe-fetch';
import { createCardVault, hasVaultKeys, noCardVault, vaultKeySettingsOf } from '@quarry/vault';
import type { Redis } from 'ioredis';
import { createApiApp } from './app.ts';
import { readinessCheck, serve, type HttpRole } from './operational-server.ts';

/** The SSRF-guarded fetch for client URLs; one per process (the API's batch fileUrl, the miner's pages). */
const clientUrlFetch = (config: Pick<ConfigFor<'api'>, 'allowPrivateUrls'>): SafeFetch =>
  createSafeFetch({ allowPrivate: config.allowPrivateUrls, userAgent: 'Quarry/1.0 (+https://github.com/quarry)' });

/** Everything the hotel rates feed needs in one process; the API and the rates-worker share one per process. */
const sharedRatesPorts = (runtime: {
  config: Pick<ConfigFor<'api'>, 'rates' | 'chromiumRunAs' | 'allowPrivateUrls' | 'queuePrefix' | 'secretKey' | 'keyring'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  logger: Logger;
}): RatesPorts =>
  createRatesPorts({
    rates: runtime.config.rates,
    chromiumRunAs: runtime.config.chromiumRunAs,
    allowPrivateUrls: runtime.config.allowPrivateUrls,
    limitsPrefix: `${runtime.config.queuePrefix}:source-limits`,
    db: runtime.db,
    redis: runtime.redis,
    jobs: {
      push: enqueuer(runtime.queues, 'rates.push'),
      pushRetry: enqueuer(runtime.queues, 'rates.push-retry'),
      refresh: bulkEnqueuer(runtime.queues, 'rates.refresh'),
    },
    ...pushKeySealing(createSealer(runtime.config.secretKey, createDeploymentKeyring(runtime.config.keyring))),
    logger: runtime.logger,
  });

/**
 * The `api` role: the express gateway (every public and admin route, the dashboard, the
 * operational routes). It runs no job: it enqueues them.
 */
export async function startApiRole(runtime: {
  config: ConfigFor<'api'>;
  db: Pool;
  redis: Redis;
  queues: JobQueues;
  metrics: Metrics;
  logger: Logger;
  shared: Shared;
  storeHealth: { redis: StoreHealth };
  onQueueError: (error: unknown, where: string) => void;
}): Promise<HttpRole> {
  const { config, db, redis, logger } = runtime;
  if (config.allowLoopbackHttpHotels) {
    logger.warn(
      'ALLOW_LOOPBACK_HTTP_HOTELS=true: hotels on a loopback address may take card data over plain http: (tests and the demo only; never in production)',
    );
  }
  // The API's producers fail fast while Redis is away (503, or accepted from Postgres and
  // enqueued later), while the workers' connection waits for Redis to come back.
  const producerRedis = createProducerRedis(config.redisUrl, { health: runtime.storeHealth.redis });
  const queues = createJobQueues({ connection: producerRedis, prefix: config.queuePrefix, onError: runtime.onQueueError });
  // Completed answers served without a database round trip, dropped when a worker announces a change.
  const retrievalCache = createRetrievalCache(config.retrievalCache);
  const outcomes = await followOutcomes(redis, config.queuePrefix, retrievalCache, logger);
  // Callback URLs are refused at creation by the policy the workers' deliveries follow.
  const callbackGuard = createAddressGuard(config.allowPrivateUrls);
  // Bookings' statuses served without a query, dropped by Postgres' announcement of every change.
  const bookingStatusCache = createBookingStatusCache(config.bookingStatusCache);
  const bookingChanges = followBookingChanges(config.databaseUrl, bookingStatusCache, (error) =>
    logger.warn({ err: error }, 'booking changes listener lost its connection; statuses are read from Postgres until it is back'),
  );
  const sessions = createSessionCodec(config.secretKey, { ttlMs: 8 * 3600_000 });
  // Every value sealed at rest goes through the deployment's keyring (ADR 0059).
  const keyring = createDeploymentKeyring(config.keyring);
  const sealer = createSealer(config.secretKey, keyring);
  // Its own key, never QUARRY_SECRET_KEY; CVVs go through the fail-fast producer connection, so a
  // store during a Redis outage is a 503, not a request left waiting.
  const vault = hasVaultKeys(config.vault)
    ? createCardVault({
        db,
        redis: producerRedis,
        keys: vaultKeySettingsOf(config.vault),
        prefix: config.queuePrefix,
        cvvTtlMs: config.vault.cvvTtlMs,
        cardRetentionMs: config.vault.cardRetentionMs,
        logger,
      })
    : undefined;
  // Hotel rates: the API answers pulls (with live fetches) and manages subscriptions; the rates-worker refreshes and pushes.
  const ratesPorts = runtime.shared('rates', () => sharedRatesPorts(runtime));
  const app = createApiApp({
    db,
    queues,
    metrics: runtime.metrics,
    logger,
    checkReadiness: readinessCheck(db, redis),
    recruitment: {
      pool: db,
      queue: createMiningQueuePort(miningJobsOf(queues)),
      settings: config.batches,
      // A request's callbackUrl is refused by the policy the deliveries follow, before anything is stored.
      callbacks: { sealer, checkUrl: async (url) => void (await callbackGuard.vet(new URL(url).hostname)) },
    },
    retrievalCache,
    fetchClientUrl: runtime.shared('client-url-fetch', () => clientUrlFetch(config)),
    sessions,
    dashboardOidc: config.dashboardOidc,
    tracing: config.otlpEndpoint !== undefined && !/^(true|1)$/i.test(process.env.OTEL_SDK_DISABLED ?? ''),
    mailDomains: config.mailDomains,
    accountSealer: sealer,
    // A subscription's change is committed first, then its push is enqueued on the producer
    // connection like every API write: while Redis is away the request answers 503 at once (the
    // rates scheduler's safety net pushes the committed state) instead of waiting for Redis.
    hotels: {
      pull: ratesPorts.pull,
      push: { ...ratesPorts.push, enqueuePush: pushEnqueuer({ push: enqueuer(queues, 'rates.push') }) },
      cardTransport: { allowLoopbackHttp: config.allowLoopbackHttpHotels, warn: (fields, message) => logger.warn(fields, message) },
    },
    vault,
    bookings: {
      pool: db,
      sealer,
      // The API checks a token's shape, and purges the card of a booking cancelled.
      vault: vault ?? noCardVault,
      findGrantedHotel: (clientId, hotelId) => findGrantedHotelRow(db, clientId, hotelId),
      enqueueStep: enqueuer(queues, 'bookings.step'),
      enqueueNotify: enqueuer(queues, 'bookings.notify'),
      checkCallbackUrl: async (url) => void (await callbackGuard.vet(new URL(url).hostname)),
      // The ACS the card holder's browser is sent to passes the policy of every client URL.
      tdsPage: {
        frameOriginsOf: (clientId) => clientFrameOrigins({ db }, clientId),
        vetAcsHost: (hostname) => callbackGuard.vet(hostname),
        allowLoopbackHttp: config.allowLoopbackHttpHotels,
      },
      onError: (error, where) => logger.warn({ err: error, where }, 'booking side effect failed'),
      statusCache: bookingStatusCache,
      // From POST /book the card's CVV is kept as long as the booking may still order.
      cvvHoldMs: config.vault.cvvBookingHoldMs,
      horizonDays: config.rates.horizonDays,
    },
    applications: {
      pool: db,
      sealer,
      findMinedPost: (clientId, jobPostId) => findMinedPost(db, clientId, jobPostId),
      enqueueApply: enqueuer(queues, 'applications.apply'),
      checkCallbackUrl: async (url) => void (await callbackGuard.vet(new URL(url).hostname)),
    },
    authenticator: createAuthenticator({
      db,
      sessions,
      secretKey: config.secretKey,
      keyring,
      cacheMs: config.authCacheMs,
      jwks: config.jwt.jwksUrl ? { url: config.jwt.jwksUrl, issuer: config.jwt.issuer, audience: config.jwt.audience } : undefined,
      failedAttempts: createFailureLimiter({ redis, prefix: config.queuePrefix, ...config.authFailures }),
    }),
  });
  return serve(app, config, async () => {
    outcomes.stop();
    await bookingChanges.stop();
    await queues.close();
    await producerRedis.quit().catch(() => {});
  });
}
