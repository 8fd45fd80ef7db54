import type { TestDatabase } from './test-database.ts';
import type { TestRedis } from './test-redis.ts';

/**
 * The environment a spawned `quarry` process needs to use one test file's own database, Redis key
 * prefix and secret key; callers add what their scenario tunes.
 */
export function quarryEnv(stores: {
  database: Pick<TestDatabase, 'url'>;
  redis: Pick<TestRedis, 'url' | 'prefix'>;
  secretKey: Buffer;
}): Record<string, string> {
  return {
    DATABASE_URL: stores.database.url,
    REDIS_URL: stores.redis.url,
    QUEUE_PREFIX: stores.redis.prefix,
    QUARRY_SECRET_KEY: stores.secretKey.toString('base64'),
    // Any free port: test processes run side by side and must not fight over the default 9464.
    METRICS_PORT: '0',
    // The same for the SMTP server of the roles that run one (mail, all): never the default 2525.
    SMTP_PORT: '0',
  };
}
