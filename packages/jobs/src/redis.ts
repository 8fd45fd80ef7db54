import { Redis } from 'ioredis';

/** Where a connection reports losing Redis and getting it back (see createStoreHealth). */
export type RedisHealth = { lost(error: unknown): void; back(): void };

function watch(redis: Redis, health: RedisHealth | undefined): Redis {
  // Always a listener: ioredis prints every 'error' nobody listens to as a multi-line dump.
  redis.on('error', (error) => health?.lost(error));
  redis.on('ready', () => health?.back());
  return redis;
}

/**
 * A connection for workers and everything that waits for Redis. BullMQ requires
 * `maxRetriesPerRequest: null` on connections used by workers: a blocking command must wait for
 * Redis to come back rather than fail the worker loop.
 */
export function createRedis(url: string, options: { lazyConnect?: boolean; health?: RedisHealth } = {}): Redis {
  return watch(new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: options.lazyConnect ?? false }), options.health);
}

/**
 * A connection for producers answering a caller (the API): while Redis is away its commands fail
 * at once instead of waiting in ioredis's offline queue, so a request answers 503 (or falls back
 * on Postgres) instead of hanging for the whole outage (BullMQ's "failing fast when Redis is
 * down"). It reconnects on its own like any other. Never give it to a worker.
 */
export function createProducerRedis(url: string, options: { health?: RedisHealth } = {}): Redis {
  // Reconnects every 250 ms (ioredis grows to 2 s): writes are refused while it is away, so it
  // must be back as soon as Redis is.
  return watch(new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableReadyCheck: true, retryStrategy: () => 250 }), options.health);
}
