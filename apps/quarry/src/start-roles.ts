import { once } from 'node:events';
import { hostname } from 'node:os';
import { createApiApp, createOperationalApp, type ReadinessCheck } from '@quarry/api';
import { createAuthenticator } from '@quarry/auth';
import { runCanary } from '@quarry/canary';
import type { Config } from '@quarry/config';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, startWorkers, type QueueName, type WorkerPool } from '@quarry/jobs';
import { createLogger, createMetrics, type Tracing } from '@quarry/observability';
import type { Redis } from 'ioredis';

type Role = 'api' | 'mining-worker' | 'rates-worker' | 'mail' | 'all';

/** Queues each worker role consumes. `system` (canaries) runs on every worker role. */
const queuesByRole: Record<Role, QueueName[]> = {
  api: [],
  'mining-worker': ['system'],
  'rates-worker': ['system'],
  mail: ['system'],
  all: ['system'],
};

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

/** Starts one role (or all) in this process and wires graceful shutdown on SIGTERM/SIGINT. */
export async function startRoles(config: Config, role: Role, tracing: Tracing): Promise<void> {
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

  const servesApi = role === 'api' || role === 'all';
  const app = servesApi
    ? createApiApp({
        db,
        queues,
        metrics,
        logger,
        checkReadiness,
        authenticator: createAuthenticator({
          db,
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

  let workers: WorkerPool | null = null;
  const workerQueues = queuesByRole[role];
  if (workerQueues.length > 0) {
    workers = startWorkers({
      connection: redis,
      prefix: config.queuePrefix,
      queues: workerQueues,
      concurrency: config.workerConcurrency,
      lockDurationMs: config.jobLockMs,
      stalledIntervalMs: config.jobStalledIntervalMs,
      handlers: { 'system.canary': (payload, { signal }) => runCanary({ db, workerId }, payload, signal) },
      events: {
        onOutcome: ({ queue, job, outcome, seconds }) => metrics.jobDuration.observe({ queue, job, outcome }, seconds),
        onError: (error, where) => logger.error({ err: error, where }, 'worker error'),
      },
    });
  }

  logger.info({ role, port, workerId, queues: workerQueues }, 'quarry started');
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
    await workers?.close(config.shutdownGraceMs);
    await Promise.race([serverClosed, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
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
}
