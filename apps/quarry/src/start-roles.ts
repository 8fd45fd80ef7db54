import { once } from 'node:events';
import { hostname } from 'node:os';
import { createApiApp, createOperationalApp, type ReadinessCheck } from '@quarry/api';
import { createAuthenticator, createSessionCodec } from '@quarry/auth';
import { runCanary } from '@quarry/canary';
import type { Config } from '@quarry/config';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, startWorkers } from '@quarry/jobs';
import { createMailService } from '@quarry/mail';
import { createBrowserFormMiner, createChromiumPool, createMiner } from '@quarry/miner';
import { startMiningRole } from '@quarry/mining-worker';
import { createMiningQueuePort, createRetrievalCache, type RecruitmentPorts } from '@quarry/recruitment';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createLogger, createMetrics, type Tracing } from '@quarry/observability';
import type { Redis } from 'ioredis';
import { listenForMetrics } from './metrics-listener.ts';
import { createRatesPorts, startRatesRole } from './rates-role.ts';
import { createOutcomeAnnouncer, followOutcomes } from './result-announcements.ts';

type Role = 'api' | 'mining-worker' | 'rates-worker' | 'mail' | 'all';

const workerRoles: Role[] = ['mining-worker', 'rates-worker', 'mail', 'all'];
const runs = (role: Role, ...roles: Role[]) => role === 'all' || roles.includes(role);

/** Stops one part of the process: waits up to `graceMs` for its active jobs. */
type Stoppable = { stop(graceMs: number): Promise<void> };

function readinessCheck(db: Pool, redis: Redis): ReadinessCheck {
  const within = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref())]);
  return async () => {
    const [postgres, redisState] = await Promise.all([
      within(db.query('SELECT 1'), 2_000).then(() => 'ok' as const, (error: Error) => error.message),
      within(redis.ping(), 2_000).then(() => 'ok' as const, (error: Error) => error.message),
    ]);
    return { postgres, redis: redisState };
  };
}

/** Starts one role (or all) in this process and wires graceful shutdown on SIGTERM/SIGINT; resolves with the HTTP port. */
export async function startRoles(config: Config, role: Role, tracing: Tracing): Promise<{ port: number }> {
  const logger = createLogger({ level: config.logLevel, name: `quarry.${role}` });
  const applied = await migrateToLatest(config.databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'applied migrations');

  const db = createPool(config.databaseUrl, config.databasePoolSize);
  const redis = createRedis(config.redisUrl);
  redis.on('error', (error) => logger.warn({ err: error }, 'redis connection error'));
  const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix });
  const metrics = createMetrics({ collectQueueDepth: () => queues.jobCounts() });
  const checkReadiness = readinessCheck(db, redis);
  const workerId = `${hostname()}:${process.pid}`;
  const fetchClientUrl = createSafeFetch({ allowPrivate: config.allowPrivateUrls, userAgent: 'Quarry/1.0 (+https://github.com/quarry)' });
  const recruitment: RecruitmentPorts = {
    pool: db,
    queue: createMiningQueuePort(queues),
    settings: {
      batch: { concurrency: config.mining.batchConcurrency, ratePerMinute: config.mining.batchRatePerMinute },
      autoPause: config.mining.autoPause,
      maxCsvBytes: config.mining.csvMaxBytes,
    },
  };
  const workerEvents = {
    onOutcome: ({ queue, job, outcome, seconds }: { queue: string; job: string; outcome: string; seconds: number }) =>
      metrics.jobDuration.observe({ queue: queue.startsWith('mining.batch.') ? 'mining.batch' : queue, job, outcome }, seconds),
    onError: (error: unknown, where: string) => logger.error({ err: error, where }, 'worker error'),
  };

  const servesApi = role === 'api' || role === 'all';
  // Completed answers served without a database round trip, dropped when a worker announces a change.
  const retrievalCache = servesApi ? createRetrievalCache(config.retrievalCache) : null;
  const outcomes = retrievalCache ? await followOutcomes(redis, config.queuePrefix, retrievalCache, logger) : null;
  const sessions = createSessionCodec(config.secretKey, { ttlMs: 8 * 3600_000 });
  // Hotel rates (issue 6): the API answers pulls (with live fetches) and manages subscriptions; the rates-worker refreshes and pushes.
  const ratesPorts = servesApi || runs(role, 'rates-worker') ? createRatesPorts(config, db, redis, queues, logger) : null;
  const app = servesApi
    ? createApiApp({
        db,
        queues,
        metrics,
        logger,
        checkReadiness,
        recruitment,
        ...(retrievalCache ? { retrievalCache } : {}),
        fetchClientUrl,
        sessions,
        dashboardOidc: config.dashboardOidc,
        tracing: config.otlpEndpoint !== undefined && !/^(true|1)$/i.test(process.env.OTEL_SDK_DISABLED ?? ''),
        mailDomains: config.mail.domains,
        secretKey: config.secretKey,
        ...(ratesPorts ? { hotels: { pull: ratesPorts.pull, push: ratesPorts.push } } : {}),
        authenticator: createAuthenticator({
          db,
          sessions,
          secretKey: config.secretKey,
          cacheMs: config.authCacheMs,
          jwks: config.jwt.jwksUrl ? { url: config.jwt.jwksUrl, issuer: config.jwt.issuer, audience: config.jwt.audience } : undefined,
        }),
      })
    : createOperationalApp({ metrics, logger, checkReadiness });
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const metricsListener = await listenForMetrics(config, metrics, logger);

  const parts: Stoppable[] = [];
  if (workerRoles.includes(role)) {
    const canaries = startWorkers({
      connection: redis,
      prefix: config.queuePrefix,
      queues: ['system'],
      concurrency: config.workerConcurrency,
      lockDurationMs: config.jobLockMs,
      stalledIntervalMs: config.jobStalledIntervalMs,
      handlers: { 'system.canary': (payload, { signal }) => runCanary({ db, workerId }, payload, signal) },
      events: workerEvents,
    });
    parts.push({ stop: (graceMs) => canaries.close(graceMs) });
  }
  if (runs(role, 'mining-worker')) {
    // One Chromium per mining process, started on the first job that needs it.
    const chromium = config.mining.browser.enabled
      ? createChromiumPool({
          executablePath: config.mining.browser.chromiumPath,
          recycleAfterJobs: config.mining.browser.recycleAfterJobs,
          recycleAboveMb: config.mining.browser.recycleAboveMb,
          maxContexts: config.mining.browser.maxContexts,
          onRecycle: (event) => logger.info(event, 'browser recycled'),
        })
      : null;
    const browser = chromium
      ? createBrowserFormMiner({
          pool: chromium,
          allowPrivate: config.allowPrivateUrls,
          timeoutMs: config.mining.pageTimeoutMs,
          probeDepth: config.mining.browser.probeDepth,
          maxProbeChoices: 60,
        })
      : undefined;
    const mining = await startMiningRole({
      ports: {
        ...recruitment,
        miner: createMiner({ fetch: fetchClientUrl, timeoutMs: config.mining.pageTimeoutMs, browser, endpoints: config.mining.atsEndpoints }),
        announceOutcome: createOutcomeAnnouncer(redis, config.queuePrefix, logger),
      },
      queues,
      connection: redis,
      prefix: config.queuePrefix,
      concurrency: config.workerConcurrency,
      lockDurationMs: config.jobLockMs,
      stalledIntervalMs: config.jobStalledIntervalMs,
      batchPollMs: config.mining.batchPollMs,
      graceMs: config.shutdownGraceMs,
      logger,
      events: workerEvents,
    });
    // The browser goes last: the mining workers may finish their jobs in it first.
    parts.push({ stop: async (graceMs) => { await mining.stop(graceMs); await chromium?.close(); } });
  }

  if (runs(role, 'mail')) {
    // SMTP in + delivery queue (issue 5). The SMTP server closes first at shutdown (sessions in
    // progress get 421), then delivery jobs get the grace period like every other worker.
    const deliveryPool = createPool(config.databaseUrl, config.mail.deliveryConcurrency + 1);
    const mail = createMailService({
      pool: db,
      deliveryPool,
      enqueue: (payload, options) => queues.enqueue('mail.deliver', payload, options),
      enqueueMany: (jobs) => queues.enqueueBulk('mail.deliver', jobs),
      secretKey: config.secretKey,
      mail: config.mail,
      smtp: config.smtp,
      onError: (error, where) => logger.error({ err: error, where }, 'mail error'),
      onDelivered: (latencySeconds) => metrics.mailDeliveryLatency.observe(latencySeconds),
    });
    const smtpPort = await mail.smtp.listen(config.smtpPort, config.smtp.host);
    const mailWorkers = startWorkers({
      connection: redis,
      prefix: config.queuePrefix,
      queues: ['mail'],
      concurrency: config.mail.deliveryConcurrency,
      lockDurationMs: config.jobLockMs,
      stalledIntervalMs: config.jobStalledIntervalMs,
      handlers: { 'mail.deliver': (payload) => mail.deliver(payload), 'mail.housekeeping': () => mail.housekeeping() },
      events: workerEvents,
    });
    await queues.schedule('mail.housekeeping', {}, { schedulerId: 'mail.housekeeping', everyMs: 60_000 });
    logger.info({ smtpPort }, 'smtp listening');
    parts.push({
      stop: async (graceMs) => {
        await Promise.race([mail.smtp.close(), new Promise((resolve) => setTimeout(resolve, Math.min(graceMs, 5_000)).unref())]);
        await mailWorkers.close(graceMs);
        mail.close();
        await deliveryPool.end().catch(() => {});
      },
    });
  }

  if (ratesPorts && runs(role, 'rates-worker')) {
    parts.push(await startRatesRole({ config, db, queues, connection: redis, logger, events: workerEvents, ports: ratesPorts }));
  }

  logger.info({ role, port, metricsPort: metricsListener.port, workerId }, 'quarry started');
  if (servesApi) {
    process.stdout.write(
      `\nQuarry is up (role ${role}): API http://localhost:${port}  docs http://localhost:${port}/docs\n` +
        `Create a client: npm run quarry -- clients create --name demo --scopes recruitment,forwarding,hotels,booking,admin\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.all(parts.map((part) => part.stop(config.shutdownGraceMs)));
    await fetchClientUrl.close().catch(() => {});
    await ratesPorts?.close().catch(() => {});
    outcomes?.stop();
    await Promise.race([serverClosed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    await metricsListener.close();
    await queues.close();
    await redis.quit().catch(() => {});
    await db.end().catch(() => {});
    await tracing.shutdown().catch(() => {});
    logger.info('stopped');
    logger.flush();
    setTimeout(() => process.exit(0), 50);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return { port };
}
