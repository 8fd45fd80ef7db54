import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createLogger, createMetrics } from '@quarry/observability';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetricsApp } from './metrics-app.ts';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 3);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let app: Awaited<ReturnType<typeof startEdgeApp>>;
let base: string;
let metricsServer: Server;
let metricsBase: string;
let admin: { clientId: string; secret: string; jwtSecret: string };
let hotelsOnly: { clientId: string; secret: string; jwtSecret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
const hs256 = (clientId: string, jwtSecret: string, expiresIn: string | number) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(clientId)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(jwtSecret));

beforeAll(async () => {
  database = await createTestDatabase('api');
  testRedis = createTestRedis('api');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin', 'recruitment'] });
  hotelsOnly = await createClient({ db, secretKey }, { name: 'hotel partner', scopes: ['hotels'] });
  const metrics = createMetrics({ collectQueueDepth: () => queues.jobCounts() });
  app = await startEdgeApp({ db, queues, secretKey, metrics });
  base = app.base;
  metricsServer = createMetricsApp({ metrics, logger: createLogger({ level: 'silent' }) }).listen(0, '127.0.0.1');
  await new Promise((resolve) => metricsServer.once('listening', resolve));
  metricsBase = `http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await new Promise((resolve) => metricsServer.close(resolve));
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('authentication', () => {
  const unauthorized = {
    object: 'error',
    name: 'AuthenticationRequired',
    message:
      "Invalid or missing secret: send the client's secret as the Basic user name with an empty password, or a Bearer JWT signed with its jwtSecret",
    details: {},
  };

  it('accepts Basic with the secret as user name and an empty password', async () => {
    const response = await fetch(`${base}/v1/whoami`, { headers: { authorization: basic(admin.secret) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ clientId: admin.clientId, name: 'ops', scopes: ['admin', 'recruitment'] });
  });

  it('accepts a Bearer JWT signed with the client JWT secret', async () => {
    const token = await hs256(admin.clientId, admin.jwtSecret, '5m');
    const response = await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { clientId: string }).clientId).toBe(admin.clientId);
  });

  it.each([
    ['missing', undefined],
    ['a wrong Basic secret', basic('qs_not-a-real-secret')],
    ['a Basic header that is not base64 of a secret', 'Basic %%%'],
    ['an unknown scheme', 'token-scheme'],
    ['a JWT signed with another key', 'jwt-other-key'],
    ['an expired JWT', 'jwt-expired'],
    ['a JWT without exp', 'jwt-no-exp'],
    ['a JWT naming another client as subject', 'jwt-wrong-sub'],
  ])('answers 401 with the exact body for %s credentials', async (_label, header) => {
    let authorization = header;
    if (header === 'jwt-other-key') authorization = `Bearer ${await hs256(admin.clientId, 'qj_someone-else', '5m')}`;
    if (header === 'jwt-expired')
      authorization = `Bearer ${await hs256(admin.clientId, admin.jwtSecret, Math.floor(Date.now() / 1000) - 10)}`;
    if (header === 'jwt-no-exp') {
      authorization = `Bearer ${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(admin.clientId).sign(new TextEncoder().encode(admin.jwtSecret))}`;
    }
    if (header === 'token-scheme') authorization = `Token ${admin.secret}`;
    if (header === 'jwt-wrong-sub') authorization = `Bearer ${await hs256(hotelsOnly.clientId, admin.jwtSecret, '5m')}`;
    const response = await fetch(`${base}/v1/whoami`, { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(unauthorized);
  });

  it('answers 403 when the credential lacks the scope', async () => {
    const response = await fetch(`${base}/v1/admin/canaries`, { method: 'POST', headers: { authorization: basic(hotelsOnly.secret) } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      object: 'error',
      name: 'Forbidden',
      message: 'This endpoint needs the "admin" scope, which this client does not have (it has: hotels); use a client created with it',
      details: { missingScope: 'admin' },
    });
  });
});

describe('errors and documents', () => {
  it('names each invalid field in a 400', async () => {
    const response = await fetch(`${base}/v1/admin/canaries`, {
      method: 'POST',
      headers: { authorization: basic(admin.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ holdMs: -5 }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { name: string; details: { messages: string[] } };
    expect(body.name).toBe('RequestParametersValidationError');
    expect(body.details.messages[0]).toMatch(/^holdMs: /);
  });

  it('answers malformed JSON with a 400, not a 500', async () => {
    const response = await fetch(`${base}/v1/admin/canaries`, {
      method: 'POST',
      headers: { authorization: basic(admin.secret), 'content-type': 'application/json' },
      body: '{"holdMs":',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ name: 'RequestParametersValidationError' });
  });

  it.each([
    ['a body that ends early', '{"holdMs":', 'body: not valid JSON at position 10 (line 1, column 11): Unexpected end of JSON input'],
    [
      'a trailing comma on the second line',
      '{\n  "holdMs": 5,\n}',
      'body: not valid JSON at position 17 (line 3, column 1): Expected double-quoted property name',
    ],
    [
      'a stray word, never quoted back',
      '{"holdMs": qs_secret}',
      "body: not valid JSON at position 11 (line 1, column 12): Unexpected token 'q'",
    ],
  ])('says where malformed JSON breaks: %s', async (_label, body, message) => {
    const response = await fetch(`${base}/v1/admin/canaries`, {
      method: 'POST',
      headers: { authorization: basic(admin.secret), 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      object: 'error',
      name: 'RequestParametersValidationError',
      message,
      details: { messages: [message] },
    });
  });

  it('hides another tenant’s resources behind a 404', async () => {
    const created = await fetch(`${base}/v1/admin/canaries`, {
      method: 'POST',
      headers: { authorization: basic(admin.secret), 'content-type': 'application/json' },
      body: '{}',
    });
    const { canaryId } = (await created.json()) as { canaryId: string };
    const other = await createClient({ db, secretKey }, { name: 'other ops', scopes: ['admin'] });
    const mine = await fetch(`${base}/v1/admin/canaries/${canaryId}`, { headers: { authorization: basic(admin.secret) } });
    const theirs = await fetch(`${base}/v1/admin/canaries/${canaryId}`, { headers: { authorization: basic(other.secret) } });
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(404);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await fetch(`${base}/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ object: 'error', name: 'NotFound' });
  });

  it('serves an OpenAPI 3.1 document and its rendering', async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/whoami', '/v1/admin/canaries', '/v1/admin/canaries/{canaryId}']),
    );
    const page = await fetch(`${base}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
  });

  it('exposes Prometheus metrics with HTTP latency and queue depth on the metrics listener only', async () => {
    await queues.enqueue('system.canary', { canaryId: '00000000-0000-4000-8000-000000000001' });
    const { wait } = await queues.queue('system').getJobCounts('wait');
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const text = await (await fetch(`${metricsBase}/metrics`)).text();
    expect(text).toMatch(/quarry_http_request_duration_seconds_bucket\{[^}]*route="\/v1\/whoami"/);
    expect(wait).toBeGreaterThan(0);
    expect(text).toContain(`quarry_queue_jobs{queue="system",state="wait"} ${wait}`);
  });
});
