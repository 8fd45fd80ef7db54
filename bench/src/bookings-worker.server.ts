/**
 * The bench's bookings-worker: the role as `quarry start --role bookings-worker` runs it, with a
 * vault stand-in (our own port) that gives one test card (with its CVV) for any v2-shaped token.
 */
import { hostname } from 'node:os';
import { startBookingsRole } from '@quarry/bookings-worker';
import { loadConfig } from '@quarry/config';
import { createPool } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';

const config = loadConfig(process.env, 'bookings-worker');
const logger = createLogger({ level: config.logLevel, name: 'quarry.bookings-worker' });
const db = createPool(config.databaseUrl, config.databasePoolSize);
const redis = createRedis(config.redisUrl);
const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix });
const shared = new Map<string, { close(): Promise<void> }>();
const role = await startBookingsRole({
  config,
  db,
  redis,
  queues,
  logger,
  events: { onError: (error, where) => logger.error({ err: error, where }, 'worker error') },
  workerId: `${hostname()}:${process.pid}`,
  runsCanary: false,
  shared: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
    if (!shared.has(name)) shared.set(name, create());
    return shared.get(name) as T;
  },
  vault: {
    isPanTokenShaped: (token) => token.startsWith('v2:') && token.length === 299,
    checkCard: () => Promise.resolve(),
    openCard: async () => ({ pan: '4111111111111111', expiryMonth: 12, expiryYear: 2030, name: 'Bench Card', cvv: '123' }),
    holdCvv: async () => {},
    spendCvv: async () => {},
    purgeCard: async () => {},
  },
});
// Stopped as `quarry start` stops a role: the jobs in flight first, then the shared browser and the stores.
process.once('SIGTERM', () => {
  void (async () => {
    await role.stop(config.shutdownGraceMs);
    for (const object of shared.values()) await object.close().catch(() => {});
    await queues.close();
    await redis.quit().catch(() => {});
    await db.end().catch(() => {});
    process.exit(0);
  })();
});
logger.info({ port: 0 }, 'quarry started');
