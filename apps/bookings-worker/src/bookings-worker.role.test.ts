import { loadConfig } from '@quarry/config';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBookingsRole } from './bookings-worker.role.ts';

/**
 * In one process (`all`), mining and applying share the process's Chromium, which renders any URL
 * a client submits: the bookings role must never take it for its checkouts.
 */
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;

beforeAll(async () => {
  database = await createTestDatabase('bookings_role_browser');
  testRedis = createTestRedis('bookings-role-browser');
  db = createPool(database.url, 2);
});

afterAll(async () => {
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

/** Starts the role with `env` added to the test's, stops it, and says which shared objects it asked for. */
async function sharedObjectsAsked(env: Record<string, string>): Promise<string[]> {
  const config = loadConfig(
    { ...quarryEnv({ database, redis: testRedis, secretKey: Buffer.alloc(32, 5) }), LOG_LEVEL: 'silent', ...env },
    'bookings-worker',
  );
  const redis = createRedis(config.redisUrl);
  const queues = createJobQueues({ connection: redis, prefix: config.queuePrefix });
  const asked: string[] = [];
  const objects: Array<{ close(): Promise<void> }> = [];
  const role = await startBookingsRole({
    config,
    db,
    redis,
    queues,
    logger: createLogger({ level: 'silent', name: 'test' }),
    events: { onError: () => {} },
    workerId: 'test:1',
    runsCanary: false,
    shared: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
      asked.push(name);
      const object = create();
      objects.push(object);
      return object;
    },
  });
  await role.stop(1_000);
  for (const object of objects) await object.close();
  await queues.close();
  await redis.quit();
  return asked;
}

describe('the bookings role', () => {
  it("runs its checkouts in a Chromium of its own, never the process's shared one", async () => {
    const asked = await sharedObjectsAsked({});
    expect(asked).toContain('checkout-chromium');
    expect(asked).not.toContain('chromium');
  });

  it("keeps hotels' booking pages when mining runs without a browser (MINING_BROWSER=off is mining's switch alone)", async () => {
    expect(await sharedObjectsAsked({ MINING_BROWSER: 'off' })).toContain('checkout-chromium');
  });
});
