import { createPool } from '@quarry/db';
import { Redis } from 'ioredis';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startPrivatePostgres } from './private-postgres.ts';
import { startPrivateRedis } from './private-redis.ts';

// The fault suite reaches its private stores from a network namespace, through an address of its
// own; 127.0.0.2 stands in for it here (every 127/8 address is this machine's).
describe("private stores on an address of the test's own", () => {
  it('PostgreSQL and Redis answer on the extra address they were given, and only then', async () => {
    const [postgres, redis, plain] = await Promise.all([
      startPrivatePostgres({ listen: ['127.0.0.2'], trust: ['127.0.0.2/32'] }),
      startPrivateRedis({ listen: ['127.0.0.2'] }),
      startPrivateRedis(),
    ]);
    const pool = createPool(postgres.url.replace('127.0.0.1', '127.0.0.2'), 1);
    const client = new Redis(redis.port, '127.0.0.2', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      await client.connect();
      expect(await client.ping()).toBe('PONG');
      // Without `listen`, loopback 127.0.0.1 only.
      const refused = connect(plain.port, '127.0.0.2');
      const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toBe('ECONNREFUSED');
    } finally {
      client.disconnect();
      await pool.end();
      await Promise.all([postgres.remove(), redis.remove(), plain.remove()]);
    }
  });
});
