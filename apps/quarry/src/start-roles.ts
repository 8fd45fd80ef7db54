import { hostname } from 'node:os';
import type { ConfigFor } from '@quarry/config';
import { createPool, migrateToLatest } from '@quarry/db';
import { createJobQueues, createRedis, isStoreOutage, type Shared } from '@quarry/jobs';
import { createLogger, createMetrics, createStoreHealth, type Tracing } from '@quarry/observability';
import { listUnfinishedBatchIds } from '@quarry/recruitment';
import { listenForMetrics } from './metrics-listener.ts';

type Role = 'api' | 'mining-worker' | 'rates-worker' | 'mail' | 'applications-worker' | 'bookings-worker' | 'all';
/** The settings `loadConfig` read for one of the roles: the launcher itself uses only what they all share. */
export type RoleConfig = { [R in Role]: ConfigFor<R> }[Role];

const runs = (role: Role, ...roles: Role[]) => role === 'all' || roles.includes(role);

async function storesReachable(db: { query(sql: string): Promise<unknown> }, redis: { ping(): Promise<unknown> }): Promise<boolean> {
  const within = <T>(promise: Promise<T>) =>
    Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer')), 2_000).unref())]);
  return Promise.all([within(db.query('SELECT 1')), within(redis.ping())]).then(
    () => true,
    () => false,
  );
}

/** Stops one part of the process: waits up to `graceMs` for its active jobs. */
type Stoppable = { stop(graceMs: number): Promise<void> };

/**
 * Objects several roles of one process use (the client-URL fetch, the rates ports): created by
 * the first role that asks, closed once after every role has stopped.
 */
function sharedObjects(): { get: Shared; close(): Promise<void> } {
  const objects = new Map<string, { close(): Promise<void> }>();
  return {
    get: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
      let object = objects.get(name);
      if (!object) {
        object = create();
        objects.set(name, object);
      }
      return object as T;
    },
    async close() {
      for (const object of objects.values()) await object.close().catch(() => {});
    },
  };
}

/**
 * Starts one role (or all) in this process and wires graceful shutdown on SIGTERM/SIGINT. Each
 * role's file owns its handlers and schedules; this file owns only what the process shares
 * (migrations, pools, Redis, queues, metrics) and the order of shutdown.
 */
export async function startRoles(config: RoleConfig, role: Role, tracing: Tracing): Promise<{ port: number }> {
  const logger = createLogger({ level: config.logLevel, name: `quarry.${role}` });
  const applied = await migrateToLatest(config.databaseUrl);
  if (applied.length > 0) logger.info({ applied }, 'applied migrations');

  // One line when a store is lost and one when it is back, whichever connection noticed.
  const storeHealth = { postgres: createStoreHealth(logger, 'postgres'), redis: createStoreHealth(logger, 'redis') };
  const poolEvents = { onConnectionError: storeHealth.postgres.lost, onConnected: storeHealth.postgres.back };
  const db = createPool(config.databaseUrl, config.databasePoolSize, poolEvents);
  const redis = createRedis(config.redisUrl, { health: storeHealth.redis });
  const onQueueError = (error: unknown, where: string) => logger.error({ err: error, where }, 'queue error');
  const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix, onError: onQueueError });
  const metrics = createMetrics({
    collectQueueDepth: () => queues.jobCounts(),
    collectQueueBacklog: async () => queues.backlog({ 'mining.batch': await listUnfinishedBatchIds(db) }),
  });
  const workerId = `${hostname()}:${process.pid}`;
  const shared = sharedObjects();
  const events = {
    onOutcome: ({ queue, job, outcome, seconds }: { queue: string; job: string; outcome: string; seconds: number }) =>
      metrics.jobDuration.observe({ queue: queue.startsWith('mining.batch.') ? 'mining.batch' : queue, job, outcome }, seconds),
    onError: (error: unknown, where: string) =>
      isStoreOutage(error) ? storeHealth.redis.lost(error) : logger.error({ err: error, where }, 'worker error'),
    // A job whose handler met a store outage is put back without spending an attempt, but only
    // when the stores really are unreachable from here (ADR 0005).
    storesReachable: () => storesReachable(db, redis),
  };
  const runtime = { db, redis, queues, metrics, logger, events, workerId, shared: shared.get, poolEvents, storeHealth, onQueueError };
  // loadConfig(role) read the sections of every role that `runs` here (all of them for `all`).
  const configOf = <R extends Role>(_role: R) => config as ConfigFor<R>;

  const servesApi = runs(role, 'api');
  // Each role's modules are loaded only where it runs: a worker process does not carry the API's,
  // nor the other roles' (a mail process, for one, leaves out about 85 MB).
  const http = servesApi
    ? await (await import('@quarry/api')).startApiRole({ ...runtime, config: configOf('api') })
    : await (await import('@quarry/api/operational')).startOperationalServer({ ...runtime, config });

  const metricsListener = await listenForMetrics(config, metrics, logger);

  const parts: Stoppable[] = [];
  // Every worker role can run the operator canary; in one process, the first one started does.
  let canaryTaken = false;
  const takeCanary = () => !canaryTaken && (canaryTaken = true);
  if (runs(role, 'mining-worker'))
    parts.push(
      await (
        await import('@quarry/mining-worker')
      ).startMiningRole({ ...runtime, config: configOf('mining-worker'), runsCanary: takeCanary() }),
    );
  if (runs(role, 'mail'))
    parts.push(await (await import('@quarry/mail-role')).startMailRole({ ...runtime, config: configOf('mail'), runsCanary: takeCanary() }));
  if (runs(role, 'rates-worker'))
    parts.push(
      await (
        await import('@quarry/rates-worker')
      ).startRatesRole({ ...runtime, config: configOf('rates-worker'), runsCanary: takeCanary() }),
    );
  if (runs(role, 'applications-worker'))
    parts.push(
      await (
        await import('@quarry/applications-worker')
      ).startApplicationsRole({ ...runtime, config: configOf('applications-worker'), runsCanary: takeCanary() }),
    );
  if (runs(role, 'bookings-worker'))
    parts.push(
      await (
        await import('@quarry/bookings-worker')
      ).startBookingsRole({ ...runtime, config: configOf('bookings-worker'), runsCanary: takeCanary() }),
    );

  logger.info({ role, port: http.port, metricsPort: metricsListener.port, workerId }, 'quarry started');
  if (servesApi) {
    process.stdout.write(
      `\nQuarry is up (role ${role}): API http://localhost:${http.port}  docs http://localhost:${http.port}/docs\n` +
        `Create a client: npm run quarry -- clients create --name demo --scopes recruitment,forwarding,hotels,booking,admin\n\n`,
    );
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    await Promise.all([http.stop(), ...parts.map((part) => part.stop(config.shutdownGraceMs))]);
    await metricsListener.close();
    await shared.close();
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
  return { port: http.port };
}
