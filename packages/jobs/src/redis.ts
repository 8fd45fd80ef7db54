import { Redis } from 'ioredis';

/**
 * BullMQ requires `maxRetriesPerRequest: null` on connections used by workers: a blocking command
 * must wait for Redis to come back rather than fail the worker loop.
 */
export function createRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: options.lazyConnect ?? false });
}
