import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAuthenticator, createSessionCodec, type FailedAttempts } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import type { Pool } from '@quarry/db';
import { enqueuer, type JobQueues } from '@quarry/jobs';
import { createLogger, createMetrics, type Logger, type Metrics } from '@quarry/observability';
import { createMiningQueuePort, findMinedPost, miningJobsOf } from '@quarry/recruitment';
import { createAddressGuard, createSafeFetch } from '@quarry/safe-fetch';
import { findGrantedHotelRow, pushKeySealing } from '@quarry/rates';
import { noCardVault, type CardVaultService } from '@quarry/vault';
import { createApiApp, type ApiDeps } from '../app.ts';

/**
 * The whole API (hotel routes included) on a loopback port, as one process of a deployment: the
 * one way the API's tests build it. The rate source is our own port and answers nothing: these
 * tests are about the edge.
 */
export async function startEdgeApp(options: {
  db: Pool;
  queues: JobQueues;
  secretKey: Buffer;
  failedAttempts?: FailedAttempts;
  maxCsvBytes?: number;
  /** A real card vault (POST /vault/otp, /vault/pan, and the tokens POST /book checks); none by default. */
  vault?: CardVaultService;
  /** Replaces the vault routes' port only (a vault that fails as a real one would not). */
  vaultRoutes?: ApiDeps['vault'];
  /** The rates feed's horizon bookings are checked against (RATES_HORIZON_DAYS). */
  horizonDays?: number;
  /** Replaces the applications' ports (a test that calls the same ports beside the routes). */
  applications?: ApiDeps['applications'];
  /** The metrics the API records into (a test that also serves them); new ones by default. */
  metrics?: Metrics;
  /** Silent by default. */
  logger?: Logger;
}) {
  const { db, queues, secretKey } = options;
  const sessions = createSessionCodec(secretKey, { ttlMs: 60_000 });
  const vaultRoutes = options.vaultRoutes ?? options.vault;
  const app = createApiApp({
    db,
    queues,
    metrics: options.metrics ?? createMetrics({ collectQueueDepth: () => queues.jobCounts() }),
    logger: options.logger ?? createLogger({ level: 'silent' }),
    checkReadiness: async () => ({ postgres: 'ok', redis: 'ok' }),
    recruitment: {
      pool: db,
      queue: createMiningQueuePort(miningJobsOf(queues)),
      settings: {
        batch: { concurrency: 2, ratePerMinute: 60 },
        autoPause: { window: 10, minSuccessRate: 0.2 },
        maxCsvBytes: options.maxCsvBytes ?? 1_000_000,
      },
      callbacks: {
        sealer: createSealer(secretKey),
        checkUrl: async (url) => void (await createAddressGuard([]).vet(new URL(url).hostname)),
      },
    },
    fetchClientUrl: createSafeFetch({ allowPrivate: [] }),
    sessions,
    authenticator: createAuthenticator({ db, secretKey, cacheMs: 0, sessions, failedAttempts: options.failedAttempts }),
    accountSealer: createSealer(secretKey),
    ...(vaultRoutes ? { vault: vaultRoutes } : {}),
    bookings: {
      pool: db,
      sealer: createSealer(secretKey),
      vault: options.vault ?? noCardVault,
      ...(options.horizonDays !== undefined ? { horizonDays: options.horizonDays } : {}),
      findGrantedHotel: (clientId, hotelId) => findGrantedHotelRow(db, clientId, hotelId),
      enqueueStep: enqueuer(queues, 'bookings.step'),
      enqueueNotify: enqueuer(queues, 'bookings.notify'),
      checkCallbackUrl: async (url) => void (await createAddressGuard([]).vet(new URL(url).hostname)),
      tdsPage: { frameOriginsOf: async () => [], vetAcsHost: (hostname) => createAddressGuard([]).vet(hostname), allowLoopbackHttp: false },
    },
    applications: options.applications ?? {
      pool: db,
      sealer: createSealer(secretKey),
      findMinedPost: (clientId, jobPostId) => findMinedPost(db, clientId, jobPostId),
      enqueueApply: enqueuer(queues, 'applications.apply'),
      checkCallbackUrl: async (url) => void (await createAddressGuard([]).vet(new URL(url).hostname)),
    },
    hotels: {
      pull: {
        db,
        refresh: async () => ({ status: 'no-coverage', reason: 'no source in this test' }),
        now: () => new Date(),
        horizonDays: 90,
        liveDeadlineMs: 100,
        sourceTimeoutMs: 100,
      },
      push: { db, enqueuePush: async () => {}, checkPushUrl: async () => {}, encrypt: pushKeySealing(createSealer(secretKey)).encrypt },
    },
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
