/**
 * A real `bookings-worker` process whose card vault is a stand-in of our own port (test cards
 * behind v2-shaped tokens). Everything else is the role as `quarry start --role bookings-worker`
 * runs it: the OpenTravel engine over the SSRF guard, the jobs, the sweep.
 */
import { hostname } from 'node:os';
import { startBookingsRole } from '@quarry/bookings-worker';
import { loadConfig } from '@quarry/config';
import { createPool, migrateToLatest } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { createTestCardVault } from './test-cards.ts';

const config = loadConfig(process.env, 'bookings-worker');
const logger = createLogger({ level: config.logLevel, name: 'quarry.bookings-worker' });
await migrateToLatest(config.databaseUrl);
const db = createPool(config.databaseUrl, config.databasePoolSize);
const redis = createRedis(config.redisUrl);
const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix });
const shared = new Map<string, { close(): Promise<void> }>();
const workerId = `${hostname()}:${process.pid}`;
const role = await startBookingsRole({
  config,
  db,
  redis,
  queues,
  logger,
  events: { onError: (error, where) => logger.error({ err: error, where }, 'worker error') },
  workerId,
  runsCanary: false,
  shared: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
    if (!shared.has(name)) shared.set(name, create());
    return shared.get(name) as T;
  },
  vault: createTestCardVault(),
});
// SIGTERM as the process does: the role stops within a short grace, then the process leaves.
process.once('SIGTERM', () => {
  void role.stop(1_000).finally(async () => {
    for (const resource of shared.values()) await resource.close().catch(() => {});
    process.exit(0);
  });
});
logger.info({ port: 0, workerId }, 'quarry started');
