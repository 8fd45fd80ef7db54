import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { deliverCallbacks, startCallbackRelay, type CallbackRelay } from '@quarry/callbacks';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { bulkEnqueuer, createJobQueues, createRedis, startWorkers, type JobQueues, type WorkerPool } from '@quarry/jobs';
import type { Miner } from '@quarry/miner';
import { acceptBatch, mineSubmission, type MiningPorts } from '@quarry/recruitment';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createTestDatabase, createTestRedis, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A batch of 30,000 rows with a batch callback: every row's outcome is recorded by the mining
 * worker's own use case (`mineSubmission`, 16 at once, so the batch's last rows race for its end)
 * and each owes its event in its own transaction; the relay and the `callbacks.deliver` queue send
 * them to a receiver on loopback. Exactly one `batch.finished` arrives, with the batch's counts,
 * and every row's event arrives. The miner is a stand-in (our own port): mining itself is not
 * what is measured. Rows: QUARRY_CALLBACK_BATCH_ROWS; the suite runs 3,000 (about 1 minute), a run with 30,000 took 12.6 minutes on a loaded 2-core machine (docs/benchmarks.md), nearly all of it the rows' own recording.
 */
const rows = Number(process.env.QUARRY_CALLBACK_BATCH_ROWS ?? 3_000);
const secretKey = Buffer.alloc(32, 9);

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let relay: CallbackRelay;
let workers: WorkerPool;
let receiver: Server;
const byType = new Map<string, number>();
const ids = new Set<string>();
const finished: Array<{ body: string; headers: Record<string, string> }> = [];
let requests = 0;

beforeAll(async () => {
  database = await createTestDatabase('callbacks-batch');
  testRedis = createTestRedis('callbacks-batch');
  await migrateToLatest(database.url);
  db = createPool(database.url, 24);
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests += 1;
      ids.add(String(request.headers['webhook-id']));
      const type = (JSON.parse(body) as { type: string }).type;
      byType.set(type, (byType.get(type) ?? 0) + 1);
      if (type === 'batch.finished') {
        const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = request.headers;
        finished.push({
          body,
          headers: { 'webhook-id': String(id), 'webhook-timestamp': String(timestamp), 'webhook-signature': String(signature) },
        });
      }
      response.writeHead(204).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  const sealer = createSealer(secretKey);
  relay = startCallbackRelay({
    pool: db,
    enqueue: bulkEnqueuer(queues, 'callbacks.deliver'),
    settings: { clientConcurrency: 20, eventsPerJob: 25, leaseMs: 90_000, pollMs: 1_000, retentionMs: 7 * 86_400_000 },
    onError: () => {},
  });
  const ports = {
    pool: db,
    sealer,
    fetchCallback: createSafeFetch({ allowPrivate: ['127.0.0.1'] }),
    settings: {
      timeoutMs: 15_000,
      retryBaseMs: 1_000,
      retryMaxMs: 10_000,
      giveUpAfterMs: 86_400_000,
      lane: { clientConcurrency: 20, leaseMs: 90_000, eventsPerRound: 25, forMs: 10_000 },
    },
  };
  workers = startWorkers({
    connection: redis,
    prefix: testRedis.prefix,
    queues: ['callbacks.deliver'],
    concurrency: 20,
    lockDurationMs: 10_000,
    stalledIntervalMs: 4_000,
    handlers: { 'callbacks.deliver': (payload, { signal }) => deliverCallbacks(ports, payload, signal).finally(() => relay.wake()) },
  });
}, 60_000);

afterAll(async () => {
  await relay?.stop();
  await workers?.close(1_000);
  await queues?.close();
  redis?.disconnect();
  receiver?.close();
  await db?.end();
  await database?.drop();
  await testRedis?.cleanup();
});

describe('a 30,000-row batch with a batch callback', () => {
  it(`ends with exactly one batch.finished, after every row's event (${rows} rows)`, async () => {
    const started = performance.now();
    const client = await createClient({ db, secretKey }, { name: 'batch platform', scopes: ['recruitment'] });
    const noQueue = {
      enqueueSingle: async () => {},
      enqueueBatchRows: async () => {},
      requestAdmission: async () => {},
      pauseBatchQueue: async () => {},
      resumeBatchQueue: async () => {},
      reviveJobs: async () => 0,
    };
    const settings = {
      batch: { concurrency: 16, ratePerMinute: 60_000 },
      autoPause: { window: 50, minSuccessRate: 0 },
      maxCsvBytes: 64 * 1024 * 1024,
    };
    const csv = [
      'jobPostId,url,employer,jobTitle',
      ...Array.from({ length: rows }, (_, index) => `post-${index},https://jobs.example.com/${index},Acme,Engineer`),
    ].join('\n');
    const accepted = await acceptBatch(
      { pool: db, queue: noQueue, settings, callbacks: { sealer: createSealer(secretKey), checkUrl: async () => {} } },
      client.clientId,
      Readable.from([csv]),
      { maxRows: 30_000, source: 'text/csv', callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/batch` },
    );
    expect(accepted.jobsCount).toBe(rows);
    const secret = accepted.webhookSecret as string;
    expect(secret).toMatch(/^whsec_/);
    // Every 10th row fails (JobExpired), the others are mined.
    const miner: Miner = async (post) =>
      Number(new URL(post.url).pathname.slice(1)) % 10 === 0
        ? { ok: false, errorCode: 'JobExpired', adapter: 'stand-in', detail: 'closed' }
        : {
            ok: true,
            adapter: 'stand-in',
            form: { questions: [{ id: 'name', question: 'Name', inputType: 'Text', label: '', mandatory: true }], answers: [] },
          };
    const ports: MiningPorts = { pool: db, queue: noQueue, settings, miner };
    const submissions = (
      await db.query<{ submission_id: string }>('SELECT submission_id FROM submissions WHERE batch_id = $1 ORDER BY row_no', [
        accepted.batchId,
      ])
    ).rows.map((row) => String(row.submission_id));
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < submissions.length) {
          const submissionId = submissions[next++] as string;
          await mineSubmission(ports, submissionId, { signal: new AbortController().signal, finalAttempt: true });
        }
      }),
    );
    const recordedMs = performance.now() - started;
    await waitFor('every event delivered', () => ids.size >= rows + 1, { timeoutMs: 600_000, intervalMs: 250 });
    const deliveredMs = performance.now() - started;
    expect(byType.get('batch.finished')).toBe(1);
    expect(byType.get('jobPost.mined')).toBe(rows - Math.ceil(rows / 10));
    expect(byType.get('jobPost.failed')).toBe(Math.ceil(rows / 10));
    expect(ids.size).toBe(rows + 1);
    const event = new Webhook(secret).verify(finished[0]?.body ?? '', finished[0]?.headers ?? {}) as { data: Record<string, unknown> };
    expect(event.data).toMatchObject({
      batchId: accepted.batchId,
      jobsCount: rows,
      counts: {
        completed: rows - Math.ceil(rows / 10),
        failed: Math.ceil(rows / 10),
        failedByErrorCode: { JobExpired: Math.ceil(rows / 10) },
      },
    });
    // Nothing left owed, and a second run of every row owes nothing more.
    // A job records its answers after the receiver has read the last of them: wait for that record.
    const settled = async () => (await db.query(`SELECT state, count(*)::int AS count FROM callback_outbox GROUP BY state`)).rows;
    const left = await waitFor(
      'every answer recorded',
      async () => {
        const states = await settled();
        return states.every((row) => row.state === 'delivered') && states;
      },
      { timeoutMs: 30_000 },
    ).catch(settled);
    expect(left).toEqual([{ state: 'delivered', count: rows + 1 }]);
    process.stdout.write(
      `callbacks-batch: ${rows} rows recorded in ${(recordedMs / 1000).toFixed(1)} s, ${requests} POSTs, all ${rows + 1} events delivered ${(deliveredMs / 1000).toFixed(1)} s after the batch was accepted\n`,
    );
  }, 1_200_000);
});
