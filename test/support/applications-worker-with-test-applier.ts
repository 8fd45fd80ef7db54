/**
 * A real `applications-worker` process whose application engine is a test stand-in (our own
 * port): it tells the test it was called, runs `beforeSubmit` like the engine right before the
 * final click, tells the test, then waits for the test's answer, which is where a crash test
 * SIGKILLs it. Everything else is the role as `quarry start --role applications-worker` runs it.
 */
import { hostname } from 'node:os';
import type { Applier } from '@quarry/hosted-form-apply';
import { startApplicationsRole } from '@quarry/applications-worker';
import { loadConfig } from '@quarry/config';
import { createPool, migrateToLatest } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';

const control = process.env.TEST_APPLIER_URL;
if (!control) throw new Error('TEST_APPLIER_URL is required');

const applier: Applier = async (application, hooks, signal) => {
  await fetch(`${control}/called`, { method: 'POST', body: application.url, signal });
  await hooks.beforeSubmit();
  await fetch(`${control}/submitting`, { method: 'POST', signal });
  const answer = await fetch(`${control}/outcome`, { signal });
  return (await answer.json()) as Awaited<ReturnType<Applier>>;
};

const config = loadConfig(process.env, 'applications-worker');
const logger = createLogger({ level: config.logLevel, name: 'quarry.applications-worker' });
await migrateToLatest(config.databaseUrl);
const db = createPool(config.databaseUrl, config.databasePoolSize);
const redis = createRedis(config.redisUrl);
const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix });
const shared = new Map<string, { close(): Promise<void> }>();
const workerId = `${hostname()}:${process.pid}`;
await startApplicationsRole({
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
  applier,
});
logger.info({ port: 0, workerId }, 'quarry started');
