import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAuthenticator, createClient } from '@quarry/auth';
import { MailDeliverySummaryView, QueueJobViews, QueueView, QueueViews } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, queueNames, type JobQueues } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import express from 'express';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../middleware/error-handler.middleware.ts';
import { mailAdminRoutes } from './mail-admin.routes.ts';
import { queueAdminRoutes } from './queue-admin.routes.ts';

// The operators' queue and mail views answer what their contracts describe, through their use cases.
const secretKey = Buffer.alloc(32, 5);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let server: Server;
let base: string;
let authorization: string;
const runningBatch = '11111111-1111-4111-8111-111111111111';
const finishedBatch = '22222222-2222-4222-8222-222222222222';

const call = async (path: string, method = 'GET') => {
  const response = await fetch(`${base}${path}`, { method, headers: { authorization } });
  return { status: response.status, body: (await response.json()) as unknown };
};

beforeAll(async () => {
  database = await createTestDatabase('admin-views');
  testRedis = createTestRedis('admin-views');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  const operator = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  authorization = `Basic ${Buffer.from(`${operator.secret}:`).toString('base64')}`;
  for (const [batchId, state] of [
    [runningBatch, 'processing'],
    [finishedBatch, 'finished'],
  ]) {
    await db.query(
      `INSERT INTO batches (batch_id, client_id, state, jobs_count, concurrency, rate_per_minute) VALUES ($1, $2, $3, 1, 1, 60)`,
      [batchId, operator.clientId, state],
    );
  }
  const authenticator = createAuthenticator({ db, secretKey, cacheMs: 0 });
  const app = express();
  app.use(queueAdminRoutes({ authenticator, db, queues }));
  app.use(mailAdminRoutes({ authenticator, db }));
  app.use(errorHandler(createLogger({ level: 'silent' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('queue admin', () => {
  it("lists the catalog's queues, then the queue of each batch not finished", async () => {
    const { status, body } = await call('/v1/admin/queues');
    expect(status).toBe(200);
    expect(QueueViews.parse(body).map((queue) => queue.name)).toEqual([...queueNames, `mining.batch.${runningBatch}`]);
  });

  it("lists a queue's jobs in one state, payload without the envelope", async () => {
    await queues.enqueue('system.canary', { canaryId: '33333333-3333-4333-8333-333333333333' });
    const { status, body } = await call('/v1/admin/queues/system/jobs?state=waiting');
    expect(status).toBe(200);
    expect(QueueJobViews.parse(body).map((job) => [job.name, job.payload])).toEqual([
      ['system.canary', { canaryId: '33333333-3333-4333-8333-333333333333' }],
    ]);
    expect((await call('/v1/admin/queues/system/jobs?state=sleeping')).status).toBe(400);
  });

  it('pauses and resumes a queue, a batch queue included', async () => {
    for (const name of ['mining.single', `mining.batch.${finishedBatch}`]) {
      expect(QueueView.parse((await call(`/v1/admin/queues/${name}/pause`, 'POST')).body)).toMatchObject({ name, paused: true });
      expect(QueueView.parse((await call(`/v1/admin/queues/${name}/resume`, 'POST')).body)).toMatchObject({ name, paused: false });
    }
  });

  it('answers 404 for a queue that is not in the catalog and not an existing batch', async () => {
    for (const name of ['mining.other', 'mining.batch.44444444-4444-4444-8444-444444444444', 'mining.batch.not-a-uuid']) {
      const { status, body } = await call(`/v1/admin/queues/${name}/jobs`);
      expect(status, name).toBe(404);
      expect(body).toMatchObject({ name: 'NotFound', message: `no queue ${name}` });
    }
  });
});

describe('mail admin', () => {
  it('summarizes delivery with times in ISO 8601', async () => {
    expect(MailDeliverySummaryView.parse((await call('/v1/admin/mail/deliveries')).body)).toEqual({
      queued: 0,
      deferred: 0,
      oldestPendingAt: null,
      received: 0,
      delivered: 0,
      bounced: 0,
      deferredDeliveries: [],
    });
    const messageId = '55555555-5555-4555-8555-555555555555';
    const deliveryId = '66666666-6666-4666-8666-666666666666';
    await db.query(`INSERT INTO mail_messages (message_id, envelope_from, raw, size_bytes) VALUES ($1, 'a@sender.test', 'x', 1)`, [
      messageId,
    ]);
    await db.query(
      `INSERT INTO mail_deliveries (delivery_id, message_id, forwards_to, kind, keep_sender, state, attempts, next_attempt_at, last_error, created_at)
       VALUES ($1, $2, 'b@dest.test', 'forward', false, 'deferred', 2, '2030-01-02T03:04:05Z', '451 try later', '2029-12-31T00:00:00Z')`,
      [deliveryId, messageId],
    );
    expect(MailDeliverySummaryView.parse((await call('/v1/admin/mail/deliveries')).body)).toEqual({
      queued: 0,
      deferred: 1,
      oldestPendingAt: '2029-12-31T00:00:00.000Z',
      received: 0,
      delivered: 0,
      bounced: 0,
      deferredDeliveries: [
        { deliveryId, forwardsTo: 'b@dest.test', attempts: 2, nextAttemptAt: '2030-01-02T03:04:05.000Z', lastError: '451 try later' },
      ],
    });
  });
});
