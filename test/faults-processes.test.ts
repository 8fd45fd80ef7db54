import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  quarryEnv,
  startPrivatePostgres,
  startPrivateRedis,
  waitFor,
  type PrivatePostgres,
  type PrivateRedis,
  type TestDatabase,
} from '@quarry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

// Roles as separate processes, with default settings, against a private PostgreSQL and Redis
// that this file stops, kills and starts again (never the machine's shared ones).
const secretKey = Buffer.alloc(32, 5);
let postgres: PrivatePostgres;
let redis: PrivateRedis;
let database: TestDatabase;
let db: Pool;
let env: Record<string, string>;
let operator: { clientId: string; secret: string };
const running: QuarryProcess[] = [];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function start(role: string): Promise<QuarryProcess> {
  const quarry = await startQuarry(role, env);
  running.push(quarry);
  return quarry;
}

async function call(api: QuarryProcess, method: string, path: string, body?: unknown, as: { secret: string } = operator) {
  const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${as.secret}:`).toString('base64')}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    json: (await response.json()) as Record<string, unknown>,
  };
}

const alive = (quarry: QuarryProcess) => quarry.child.exitCode === null && quarry.child.signalCode === null;

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  database = await createTestDatabase('faults_processes', postgres.url);
  db = createPool(database.url, 2);
  // Private URLs only so that a push subscription may name a loopback receiver.
  env = {
    ...quarryEnv({ database, redis: { url: redis.url, prefix: 'qf' }, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
  };
  operator = await createClient({ db, secretKey }, { name: 'ops', scopes: ['recruitment', 'admin'] });
});

afterEach(async () => {
  for (const quarry of running.splice(0)) {
    if (alive(quarry)) quarry.child.kill('SIGKILL');
    await quarry.exited;
  }
  await redis.start().catch(() => {});
  await postgres.start().catch(() => {});
});

afterAll(async () => {
  await db?.end();
  await redis?.remove();
  await postgres?.remove();
});

describe('Redis down', () => {
  it('answers writes at once (accepted from Postgres, or 503 with Retry-After), mines the accepted post once Redis is back, and logs the outage in a few structured lines', async () => {
    const api = await start('api');
    const worker = await start('mining-worker');
    await redis.kill();
    // Each answer arrives while Redis is still down: a request held for the outage never would.
    const mined = await call(api, 'POST', '/v1/recruitment/job-posts/mine/', {
      jobPostId: 'accepted-while-away',
      url: 'http://127.0.0.1:9/job',
      employer: 'Acme',
      jobTitle: 'Engineer',
    });
    expect(mined).toMatchObject({ status: 200, json: { jobPostId: 'accepted-while-away', status: 'queued' } });
    const canary = await call(api, 'POST', '/v1/admin/canaries', { holdMs: 0 });
    expect(canary).toMatchObject({ status: 503, retryAfter: '5', json: { object: 'error', name: 'ServiceUnavailable' } });
    await sleep(5_000);
    await redis.start();
    await waitFor(
      'the accepted post mined after Redis came back',
      async () => {
        const row = await db.query<{ state: string }>(`SELECT state FROM submissions WHERE job_post_id = 'accepted-while-away'`);
        return ['completed', 'failed'].includes(row.rows[0]?.state ?? '');
      },
      { timeoutMs: 45_000, intervalMs: 500 },
    );
    expect(alive(api) && alive(worker)).toBe(true);
    for (const quarry of [api, worker]) {
      const lines = quarry
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('Quarry is up') && !line.startsWith('Create a client'));
      const unstructured = lines.filter((line) => !line.startsWith('{'));
      expect(unstructured).toEqual([]);
      const aboutRedis = lines.filter((line) => /redis/i.test(line));
      expect(aboutRedis.length).toBeLessThanOrEqual(4);
      expect(aboutRedis.some((line) => line.includes('"redis connection lost"'))).toBe(true);
      expect(aboutRedis.some((line) => line.includes('"redis connection back"'))).toBe(true);
    }
  }, 90_000);
});

describe('Redis down, a push subscription changed', () => {
  it('answers at once, 503 with Retry-After, and keeps the change in Postgres for the rates scheduler to push', async () => {
    const api = await start('api');
    const partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
    const hotel = {
      name: 'R1',
      ibe: 'opentravel',
      address: '',
      countryCode: 'gb',
      guests: [2],
      bookingPageUrl: 'https://book.example.com/',
      source: { kind: 'opentravel', endpointUrl: 'http://127.0.0.1:9/ota', hotelCode: 'R1' },
    };
    expect((await call(api, 'PUT', '/v1/admin/hotels/R1', hotel)).status).toBe(200);
    expect((await call(api, 'POST', '/v1/admin/hotel-grants', { clientId: partner.clientId, hotelIds: ['R1'] })).status).toBe(200);
    const created = await call(
      api,
      'POST',
      '/v1/hotels/push-subscriptions',
      { pushUrl: 'http://127.0.0.1:9/push', apiKey: 'k', hotelIds: ['R1'], searches: { daysAhead: 2, nights: [1], guests: [2] } },
      partner,
    );
    expect(created.status).toBe(200);
    const subscriptionId = String(created.json.subscriptionId);
    await redis.kill();
    // Once the API has seen Redis go (its readiness says so): a loaded machine may run the request
    // before the process has read its sockets' close.
    await waitFor('the API sees Redis gone', async () => (await fetch(`http://127.0.0.1:${api.port}/readyz`)).status === 503, {
      timeoutMs: 10_000,
    });
    // Answered while Redis is still down: a request waiting for Redis never would be.
    const changed = await call(
      api,
      'PATCH',
      `/v1/hotels/push-subscriptions/${subscriptionId}`,
      { searches: { daysAhead: 3, nights: [1], guests: [2] } },
      partner,
    );
    expect(changed).toMatchObject({ status: 503, retryAfter: '5', json: { object: 'error', name: 'ServiceUnavailable' } });
    const stored = await db.query<{ state_version: string }>('SELECT state_version FROM push_subscriptions WHERE subscription_id = $1', [
      subscriptionId,
    ]);
    expect(Number(stored.rows[0]?.state_version)).toBeGreaterThan(Number(created.json.stateVersion));
  }, 90_000);
});

describe('PostgreSQL down', () => {
  it("answers every endpoint 503 ServiceUnavailable with Retry-After in its surface's error shape, and no role exits", async () => {
    const api = await start('api');
    const worker = await start('mining-worker');
    await postgres.stop();
    const questions = await call(api, 'GET', '/questions/nope');
    expect(questions).toMatchObject({ status: 503, retryAfter: '5', json: { error: 'ServiceUnavailable' } });
    const batches = await call(api, 'GET', '/v1/admin/batches');
    expect(batches).toMatchObject({ status: 503, retryAfter: '5', json: { object: 'error', name: 'ServiceUnavailable' } });
    const mine = await call(api, 'POST', '/v1/recruitment/job-posts/mine/', {
      jobPostId: 'pg-down',
      url: 'http://127.0.0.1:9/job',
      employer: 'Acme',
      jobTitle: 'Engineer',
    });
    expect(mine).toMatchObject({ status: 503, json: { name: 'ServiceUnavailable' } });
    await sleep(5_000);
    expect(alive(api) && alive(worker)).toBe(true);
    await postgres.start();
    await waitFor('answers again', async () => (await call(api, 'GET', '/v1/admin/batches')).status === 200, { timeoutMs: 20_000 });
    expect(alive(api) && alive(worker)).toBe(true);
  }, 90_000);
});

describe('a mining worker SIGKILLed mid-job, default settings', () => {
  it('has its job run again by the other worker within 15 s of the kill', async () => {
    const api = await start('api');
    const doomed = await start('mining-worker');
    const canary = await call(api, 'POST', '/v1/admin/canaries', { holdMs: 3_000 });
    expect(canary.status).toBe(200);
    const canaryId = String(canary.json.canaryId);
    const state = async () =>
      (await db.query<{ state: string }>('SELECT state FROM canaries WHERE canary_id = $1', [canaryId])).rows[0]?.state;
    await waitFor('canary running', async () => (await state()) === 'processing');
    const survivor = await start('mining-worker');
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // Lock expiry (10 s) + the next stalled check (4 s) + the 3 s the canary holds, with room for a
    // loaded test machine: this checks that the survivor takes the job at default settings (without
    // the 10 s lock it would wait 30 s + 30 s); the recovery time itself is measured by `npm run faults`.
    await waitFor('canary completed by the survivor', async () => (await state()) === 'completed', { timeoutMs: 28_000, intervalMs: 200 });
    expect(alive(survivor)).toBe(true);
  }, 90_000);
});
