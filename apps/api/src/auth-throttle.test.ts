import { createClient } from '@quarry/auth';
import { createFailureLimiter } from '@quarry/cluster-limits';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 6);
const limits = { perAddress: 3, perClient: 3, windowSeconds: 60 };
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
// Two API processes of one deployment: each has its own limiter object; they share only Redis.
let apps: Array<Awaited<ReturnType<typeof startEdgeApp>>>;
let admin: { clientId: string; secret: string; jwtSecret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
// The API trusts one proxy hop, so X-Forwarded-For is the client address it sees.
const from = (address: string, authorization?: string) => ({ 'x-forwarded-for': address, ...(authorization ? { authorization } : {}) });

beforeAll(async () => {
  database = await createTestDatabase('auth_throttle');
  testRedis = createTestRedis('auth-throttle');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  apps = await Promise.all(
    [0, 1].map(() =>
      startEdgeApp({ db, queues, secretKey, failedAttempts: createFailureLimiter({ redis, prefix: testRedis.prefix, ...limits }) }),
    ),
  );
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

const whoami = (index: number, headers: Record<string, string>) => fetch(`${apps[index % 2]?.base}/v1/whoami`, { headers });

describe('failed authentication limits', () => {
  it('answers 429 with Retry-After once an address spent its failures, across processes, and never slows a success', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) statuses.push((await whoami(attempt, from('203.0.113.7', basic('qs_wrong')))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await whoami(0, from('203.0.113.7', basic('qs_wrong')));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(limits.windowSeconds);
    expect(await limited.json()).toMatchObject({ object: 'error', name: 'TooManyRequests' });
    // The right secret from the same address is answered as ever.
    expect((await whoami(1, from('203.0.113.7', basic(admin.secret)))).status).toBe(200);
    // Another address is not affected.
    expect((await whoami(0, from('203.0.113.8', basic('qs_wrong')))).status).toBe(401);
  });

  it('limits forged tokens naming one client, whatever address they come from', async () => {
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(admin.clientId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('qj_not-the-secret'));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1)
      statuses.push((await whoami(attempt, from(`198.51.100.${attempt + 1}`, `Bearer ${forged}`))).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const valid = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(admin.clientId)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(admin.jwtSecret));
    expect((await whoami(0, from('198.51.100.9', `Bearer ${valid}`))).status).toBe(200);
  });

  it('limits dashboard sign-ins the same way, on the sign-in page', async () => {
    const signIn = (index: number, secret: string) =>
      fetch(`${apps[index % 2]?.base}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...from('192.0.2.44'), 'content-type': 'application/x-www-form-urlencoded' },
        body: `secret=${encodeURIComponent(secret)}`,
      });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt += 1) statuses.push((await signIn(attempt, 'qs_wrong')).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const limited = await signIn(0, 'qs_wrong');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.text()).toContain('Too many failed sign-ins');
    expect((await signIn(1, admin.secret)).status).toBe(303);
  });
});
