import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from './support/otlp-receiver.ts';
import { runQuarry, startQuarry, type QuarryProcess } from './support/quarry-process.ts';

const secretKey = Buffer.alloc(32, 9);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let env: Record<string, string>;
let admin: { clientId: string; secret: string };
const running: QuarryProcess[] = [];

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;

async function start(role: string, extra: Record<string, string> = {}): Promise<QuarryProcess> {
  const quarry = await startQuarry(role, { ...env, ...extra });
  running.push(quarry);
  return quarry;
}

async function requestCanary(api: QuarryProcess, holdMs: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${api.port}/v1/admin/canaries`, {
    method: 'POST',
    headers: { authorization: basic(admin.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ holdMs }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { canaryId: string }).canaryId;
}

async function canaryRow(canaryId: string) {
  const result = await db.query<{ state: string; runs: number; completed_by: string | null }>(
    'SELECT state, runs, completed_by FROM canaries WHERE canary_id = $1',
    [canaryId],
  );
  return result.rows[0];
}

beforeAll(async () => {
  database = await createTestDatabase('platform');
  redis = createTestRedis('platform');
  db = createPool(database.url, 2);
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    // Short locks so a killed worker's job is recovered in seconds rather than the default 30 s.
    JOB_LOCK_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
  };
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
});

afterEach(async () => {
  for (const quarry of running.splice(0)) {
    if (quarry.child.exitCode === null && quarry.child.signalCode === null) quarry.child.kill('SIGKILL');
    await quarry.exited;
  }
});

afterAll(async () => {
  await db.end();
  await redis.cleanup();
  await database.drop();
});

describe('one trace from request to worker', () => {
  it('spans the HTTP request, the job it enqueued and the worker that ran it', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
      const api = await start('api', traced);
      await start('mining-worker', traced);
      const canaryId = await requestCanary(api, 0);
      await waitFor('canary completed', async () => (await canaryRow(canaryId))?.state === 'completed');

      const consumer = await waitFor('worker span exported', () =>
        receiver.spans.find((span) => span.name === 'system process system.canary'),
      );
      const trace = () => receiver.spans.filter((span) => span.traceId === consumer.traceId);
      await waitFor('worker database span exported', () =>
        trace().some((span) => span.scope.includes('instrumentation-pg') && span.parentSpanId === consumer.spanId),
      );
      // The server span ends last (after the response), so it is exported last.
      const server = await waitFor('HTTP server span exported', () =>
        trace().find((span) => span.kind === 2 && span.scope === '@quarry/api'),
      );
      const spans = trace();
      const producer = spans.find((span) => span.name === 'system publish system.canary');
      expect(server.name).toBe('POST /v1/admin/canaries');
      expect(server.parentSpanId ?? '').toBe('');
      // One span per request from the API: its server span, named after the route (ADR 0052).
      expect(spans.some((span) => span.scope.includes('instrumentation-express'))).toBe(false);
      expect(spans.some((span) => span.scope.includes('instrumentation-ioredis'))).toBe(true);
      expect(producer).toBeDefined();
      expect(consumer.parentSpanId).toBe(producer?.spanId);
    } finally {
      await receiver.close();
    }
  });
});

describe('crash and shutdown', () => {
  it('completes a job whose worker was SIGKILLed mid-job once a worker runs again', async () => {
    const api = await start('api');
    const doomed = await start('mining-worker');
    const canaryId = await requestCanary(api, 3_000);
    await waitFor('canary running on the first worker', async () => (await canaryRow(canaryId))?.state === 'processing');
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect((await canaryRow(canaryId))?.state).toBe('processing');

    const survivor = await start('mining-worker');
    const done = await waitFor(
      'canary completed by the second worker',
      async () => {
        const row = await canaryRow(canaryId);
        return row?.state === 'completed' ? row : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(done.completed_by).toBe(survivor.workerId);
    expect(done.runs).toBe(2);
  });

  it('finishes the active job on SIGTERM before exiting', async () => {
    const api = await start('api');
    const worker = await start('mining-worker', { SHUTDOWN_GRACE_MS: '20000' });
    const canaryId = await requestCanary(api, 1_500);
    await waitFor('canary running', async () => (await canaryRow(canaryId))?.state === 'processing');
    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    const row = await canaryRow(canaryId);
    expect(row).toMatchObject({ state: 'completed', runs: 1, completed_by: worker.workerId });
  });

  it('hands the job back when the grace period runs out, and another worker completes it', async () => {
    const api = await start('api');
    const worker = await start('mining-worker', { SHUTDOWN_GRACE_MS: '500' });
    const canaryId = await requestCanary(api, 5_000);
    await waitFor('canary running', async () => (await canaryRow(canaryId))?.state === 'processing');
    const signalledAt = Date.now();
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect((await canaryRow(canaryId))?.state).toBe('processing');

    const next = await start('mining-worker');
    const done = await waitFor(
      'canary completed after hand-back',
      async () => {
        const row = await canaryRow(canaryId);
        return row?.state === 'completed' ? row : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(done.completed_by).toBe(next.workerId);
  });
});

describe('the quarry command', () => {
  it('refuses to boot with a message naming each bad variable', async () => {
    const result = await runQuarry(['start', '--role', 'api'], {
      ...env,
      PORT: 'eighty',
      QUARRY_SECRET_KEY: 'short',
      REDIS_URL: 'http://x',
    });
    expect(result.code).toBe(1);
    for (const name of ['PORT', 'QUARRY_SECRET_KEY', 'REDIS_URL']) expect(result.stderr).toContain(name);
  });

  it('creates, lists and revokes clients; a revoked secret stops working', async () => {
    const created = await runQuarry(['clients', 'create', '--name', 'cli tenant', '--scopes', 'recruitment,hotels'], env);
    expect(created.code).toBe(0);
    const client = JSON.parse(created.stdout) as { clientId: string; secret: string; jwtSecret: string };
    expect(client).toEqual({ clientId: expect.stringMatching(/^cl_/), secret: expect.any(String), jwtSecret: expect.any(String) });

    const listed = await runQuarry(['clients', 'list'], env);
    expect(listed.stdout).toContain(client.clientId);
    expect(listed.stdout).not.toContain(client.secret);
    const stored = await db.query('SELECT * FROM clients WHERE client_id = $1', [client.clientId]);
    expect(JSON.stringify(stored.rows)).not.toContain(client.secret.slice(3));

    const api = await start('api');
    const whoami = () => fetch(`http://127.0.0.1:${api.port}/v1/whoami`, { headers: { authorization: basic(client.secret) } });
    expect((await whoami()).status).toBe(200);
    expect((await runQuarry(['clients', 'revoke', client.clientId], env)).code).toBe(0);
    expect((await whoami()).status).toBe(401);
  });

  it('rejects a client with an unknown scope, naming it', async () => {
    const result = await runQuarry(['clients', 'create', '--name', 'x', '--scopes', 'recruitment,everything'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/scopes\.1/);
  });
});
