import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type TestRedis = { url: string; prefix: string; cleanup: () => Promise<void> };

/** A key prefix of its own for one test file, so files never see each other's queues. */
export function createTestRedis(label = 'test'): TestRedis {
  const prefix = `qt-${label}-${randomBytes(4).toString('hex')}`;
  return {
    url: testRedisUrl,
    prefix,
    cleanup: async () => {
      const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length > 0) await redis.unlink(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
