import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createPushSender, deliverPush, pushKeySealing, type DeliveryPorts } from '@quarry/rates';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOtaSource, type FakeOtaSource } from './support/fake-ota-source.ts';
import { startPushReceiver, type PushReceiver } from './support/push-receiver.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * Push on the real stack: a `quarry --role all` process (API + rates-worker), BullMQ on Redis,
 * Postgres, a real OpenTravel endpoint and a real HTTP push receiver, all on loopback.
 */
const secretKey = Buffer.alloc(32, 8);
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: JobQueues;
let ota: FakeOtaSource;
let receiver: PushReceiver;
let quarry: QuarryProcess;
let base: string;
type Client = { clientId: string; secret: string };
let admin: Client;
let partner: Client;

const PUSH_TIMEOUT_MS = 1_500;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const auth = (client: Client) => ({ authorization: `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}` });

async function call(method: string, path: string, client: Client, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...auth(client), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> & { details?: { messages: string[] } } };
}

let jobSequence = 0;
/** What the scheduler does: refresh jobs on the rates.refresh queue. */
async function refresh(hotelIds: string[], days: number[]): Promise<void> {
  const items = hotelIds.flatMap((hotelId) =>
    days.map((offset) => ({
      payload: { hotelId, checkIn: day(offset), nights: 1, guests: 2 },
      options: { jobId: `t${(jobSequence += 1)}` },
    })),
  );
  await queues.enqueueBulk('rates.refresh', items);
}

/** The state a subscription should deliver now, straight from the store. */
async function storedState(hotelIds: string[]): Promise<unknown[]> {
  const result = await db.query<{ body: string }>(
    `SELECT body FROM rate_results WHERE hotel_id = ANY($1::text[]) AND check_in BETWEEN $2 AND $3 AND nights = 1 AND guests = 2
     ORDER BY hotel_id, check_in, nights, guests`,
    [hotelIds, day(0), day(2)],
  );
  return result.rows.map((row) => JSON.parse(row.body) as unknown);
}

const pushesTo = (path: string) => receiver.received.filter((push) => push.path === path);
const lastBody = (path: string) => JSON.parse(pushesTo(path).at(-1)?.body ?? 'null') as unknown[];

async function subscribe(path: string, hotelIds: string[], apiKey = `key-${path}`) {
  const response = await call('POST', '/v1/hotels/push-subscriptions', partner, {
    pushUrl: receiver.url(path),
    apiKey,
    hotelIds,
    searches: { daysAhead: 3, nights: [1], guests: [2] },
  });
  expect(response.status).toBe(200);
  return response.json as { subscriptionId: string; stateVersion: number };
}

beforeAll(async () => {
  database = await createTestDatabase('rates_push');
  testRedis = createTestRedis('rates-push');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  ota = await startFakeOtaSource();
  receiver = await startPushReceiver();
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
  quarry = await startQuarry('all', {
    ...quarryEnv({ database, redis: testRedis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    SMTP_PORT: '0',
    RATES_HORIZON_DAYS: '3',
    // The scheduler's own refreshes (nights 7) stay outside the subscriptions' grids (nights 1),
    // so what each push carries is driven by this file alone.
    RATES_NIGHTS: '7',
    RATES_SCHEDULE_EVERY_MS: '1000',
    RATES_SOURCE_PER_SECOND: '0',
    RATES_SOURCE_CONCURRENCY: '20',
    RATES_PUSH_TIMEOUT_MS: String(PUSH_TIMEOUT_MS),
    RATES_PUSH_BACKOFF_BASE_MS: '200',
    RATES_PUSH_BACKOFF_MAX_MS: '800',
    WORKER_CONCURRENCY: '20',
  });
  base = `http://127.0.0.1:${quarry.port}`;
  let counter = 100;
  for (const code of ['P1', 'P2', 'P3']) {
    ota.hotels.set(code, { price: () => `${(counter += 1)}.00` });
    const put = await call('PUT', `/v1/admin/hotels/${code}`, admin, {
      name: code,
      ibe: 'opentravel',
      address: '',
      countryCode: 'gb',
      guests: [2],
      bookingPageUrl: 'https://book.example.com/',
      source: { kind: 'opentravel', endpointUrl: ota.url, hotelCode: code },
    });
    expect(put.status).toBe(200);
  }
  expect((await call('POST', '/v1/admin/hotel-grants', admin, { clientId: partner.clientId, hotelIds: ['P1', 'P2', 'P3'] })).status).toBe(
    200,
  );
}, 60_000);

afterAll(async () => {
  quarry?.child.kill('SIGKILL');
  await quarry?.exited;
  await receiver?.close();
  await ota?.close();
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

describe('refresh scheduler in the rates-worker role', () => {
  it('fills every hotel’s grid (3 days × nights 7 × guests 2) on its own, from the source', async () => {
    const rows = await waitFor(
      'the scheduled grid stored',
      async () => {
        const result = await db.query<{ hotel_id: string; check_in: string }>(
          `SELECT hotel_id, to_char(check_in, 'YYYY-MM-DD') AS check_in FROM rate_results WHERE nights = 7 AND guests = 2 ORDER BY 1, 2`,
        );
        return result.rows.length === 9 && result.rows;
      },
      { timeoutMs: 20_000 },
    );
    expect(rows.map((row) => `${row.hotel_id}@${row.check_in}`)).toEqual(
      ['P1', 'P2', 'P3'].flatMap((hotelId) => [0, 1, 2].map((offset) => `${hotelId}@${day(offset)}`)),
    );
  });
});

describe('push delivery', () => {
  it('PUTs the complete current state with the client key; a hotel leaving the subscription disappears', async () => {
    const subscription = await subscribe('/complete', ['P1', 'P2'], 'secret-key-123');
    await waitFor('the first (empty) state', () => pushesTo('/complete').length >= 1);
    expect(lastBody('/complete')).toEqual([]);
    await refresh(['P1', 'P2'], [0, 1, 2]);
    const expected = await waitFor('six stored results', async () => {
      const state = await storedState(['P1', 'P2']);
      return state.length === 6 && state;
    });
    await waitFor('a push with the complete state', () => JSON.stringify(lastBody('/complete')) === JSON.stringify(expected), {
      timeoutMs: 10_000,
    });
    const push = pushesTo('/complete').at(-1);
    expect(push?.method).toBe('PUT');
    expect(push?.headers['x-api-key']).toBe('secret-key-123');
    expect(push?.headers['content-type']).toBe('application/json');
    // The key is stored sealed, never in clear, and never logged.
    const row = await db.query<{ api_key_ciphertext: Buffer }>(
      'SELECT api_key_ciphertext FROM push_subscriptions WHERE subscription_id = $1',
      [subscription.subscriptionId],
    );
    expect(row.rows[0]?.api_key_ciphertext.includes('secret-key-123')).toBe(false);
    expect(pushKeySealing(createSealer(secretKey)).decrypt(subscription.subscriptionId, row.rows[0]?.api_key_ciphertext as Buffer)).toBe(
      'secret-key-123',
    );
    expect(quarry.output()).not.toContain('secret-key-123');

    const changed = await call('PATCH', `/v1/hotels/push-subscriptions/${subscription.subscriptionId}`, partner, { hotelIds: ['P1'] });
    expect(changed.status).toBe(200);
    await waitFor('a push without P2', () => {
      const hotels = lastBody('/complete') as Array<{ hotelId: string }>;
      return hotels.length === 3 && hotels.every((hotel) => hotel.hotelId === 'P1');
    });
  });

  it('never delivers older state after newer under concurrent refreshes, one push in flight at a time', async () => {
    receiver.setMode('/ordered', { status: 200, delayMs: 150 });
    await subscribe('/ordered', ['P3']);
    for (let round = 0; round < 6; round += 1) {
      await refresh(['P3'], [0, 1, 2]);
      // Some rounds land while a push is in flight (coalesced into the next), some after.
      await new Promise((resolve) => setTimeout(resolve, round % 2 === 0 ? 50 : 250));
    }
    await waitFor('refreshes drained', async () =>
      Object.values(await queues.queue('rates.refresh').getJobCounts('wait', 'active')).every((count) => count === 0),
    );
    const final = await waitFor(
      'the final state delivered',
      async () => {
        const state = await storedState(['P3']);
        return JSON.stringify(lastBody('/ordered')) === JSON.stringify(state) && state;
      },
      { timeoutMs: 15_000 },
    );
    expect(final).toHaveLength(3);
    const versions = pushesTo('/ordered').map((push) => Number(push.headers['x-quarry-state-version']));
    expect(versions.length).toBeGreaterThanOrEqual(3);
    for (let index = 1; index < versions.length; index += 1) expect(versions[index]).toBeGreaterThan(versions[index - 1] as number);
    expect(receiver.maxInFlight.get('/ordered')).toBe(1);
    // Prices only go up at the source, so any older state arriving later would show a lower price.
    const prices = pushesTo('/ordered').map(
      (push) => JSON.parse(push.body) as Array<{ checkIn: string; rooms: Array<{ rates: Array<{ baseRate: { value: number } }> }> }>,
    );
    for (const checkIn of [day(0), day(1), day(2)]) {
      const series = prices
        .map((state) => state.find((hotel) => hotel.checkIn === checkIn)?.rooms[0]?.rates[0]?.baseRate.value)
        .filter((value) => value !== undefined);
      expect([...series].sort((a, b) => (a as number) - (b as number))).toEqual(series);
    }
  });

  it('retries with backoff and delivers the latest state after the receiver was down for a while', async () => {
    receiver.setMode('/down', { status: 503 });
    const subscription = await subscribe('/down', ['P2']);
    await waitFor('failed attempts', () => (receiver.started.get('/down') ?? 0) >= 2, { timeoutMs: 10_000 });
    await refresh(['P2'], [0, 1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await refresh(['P2'], [0, 1, 2]);
    await waitFor('refreshes drained', async () =>
      Object.values(await queues.queue('rates.refresh').getJobCounts('wait', 'active')).every((count) => count === 0),
    );
    receiver.setMode('/down', { status: 204 });
    const latest = await storedState(['P2']);
    type Entry = { outcome: string; status: number | null; bytes: number; durationMs: number; error: string | null; startedAt: string };
    const entries = await waitFor(
      'a delivery after recovery',
      async () => {
        const log = (await call('GET', `/v1/admin/push-subscriptions/${subscription.subscriptionId}/deliveries`, admin))
          .json as unknown as Entry[];
        return log[0]?.outcome === 'delivered' && log;
      },
      { timeoutMs: 15_000 },
    );
    // The retry sent the state current when it ran (the newest), not the one that first failed.
    expect(lastBody('/down')).toEqual(latest);
    expect(latest).toHaveLength(3);
    expect(entries.filter((entry) => entry.outcome === 'delivered')).toHaveLength(1);
    expect(entries[0]).toMatchObject({ outcome: 'delivered', status: 204, error: null });
    expect(entries[0]?.bytes).toBe(Buffer.byteLength(pushesTo('/down').at(-1)?.body ?? ''));
    expect(
      entries
        .filter((entry) => entry.outcome === 'failed')
        .every((entry) => entry.status === 503 && entry.error === 'receiver answered 503'),
    ).toBe(true);
    expect(entries.some((entry) => entry.outcome === 'failed')).toBe(true);
    // Backoff: consecutive failed attempts are spaced out, not hammered.
    const failedTimes = entries
      .filter((entry) => entry.outcome === 'failed')
      .map((entry) => Date.parse(entry.startedAt))
      .sort();
    for (let index = 1; index < failedTimes.length; index += 1)
      expect((failedTimes[index] as number) - (failedTimes[index - 1] as number)).toBeGreaterThanOrEqual(90);
    expect((await call('GET', `/v1/hotels/push-subscriptions/${subscription.subscriptionId}`, partner)).json).toMatchObject({
      failingSince: null,
      suspendedAt: null,
    });
  });

  it('times out a receiver that never answers', async () => {
    receiver.setMode('/silent', { status: 200, hang: true });
    const subscription = await subscribe('/silent', ['P1']);
    const entries = await waitFor(
      'a timed-out delivery',
      async () => {
        const log = (await call('GET', `/v1/admin/push-subscriptions/${subscription.subscriptionId}/deliveries`, admin))
          .json as unknown as Array<{ outcome: string; error: string; durationMs: number }>;
        return log.length > 0 && log;
      },
      { timeoutMs: 10_000 },
    );
    expect(entries.at(-1)).toMatchObject({ outcome: 'failed', error: `no answer within ${PUSH_TIMEOUT_MS} ms` });
    expect(entries.at(-1)?.durationMs).toBeGreaterThanOrEqual(PUSH_TIMEOUT_MS - 50);
    expect(entries.at(-1)?.durationMs).toBeLessThan(PUSH_TIMEOUT_MS + 1_000);
    await call('DELETE', `/v1/hotels/push-subscriptions/${subscription.subscriptionId}`, partner);
  });

  it('refuses push URLs that are private, metadata, credentialed or not http(s)', async () => {
    for (const pushUrl of [
      'http://10.0.0.8/push',
      'http://169.254.169.254/latest',
      'http://[::1]:9/x',
      'http://user:pw@127.0.0.1/x',
      'ftp://127.0.0.1/x',
    ]) {
      const response = await call('POST', '/v1/hotels/push-subscriptions', partner, {
        pushUrl,
        apiKey: 'k',
        hotelIds: ['P1'],
        searches: { daysAhead: 1, nights: [1], guests: [2] },
      });
      expect(response.status, pushUrl).toBe(400);
      expect(response.json.name).toBe('RequestParametersValidationError');
    }
    const foreign = await call('POST', '/v1/hotels/push-subscriptions', partner, {
      pushUrl: receiver.url('/x'),
      apiKey: 'k',
      hotelIds: ['NOT-MINE'],
      searches: { daysAhead: 1, nights: [1], guests: [2] },
    });
    expect(foreign.json.details?.messages).toEqual(['hotelIds: no access to hotel NOT-MINE']);
  });
});

describe('push sender and suspension (package level, same store)', () => {
  it('refuses loopback without an allow-list entry and sends nothing', async () => {
    const before = receiver.started.get('/ssrf') ?? 0;
    const closed = createPushSender({ allowPrivate: [] });
    await expect(closed.check(receiver.url('/ssrf'))).rejects.toThrow(/Refused to fetch from host "127.0.0.1"/);
    await expect(
      closed.put(
        receiver.url('/ssrf'),
        {},
        (async function* () {
          yield Buffer.from('[]');
        })(),
        1_000,
      ),
    ).rejects.toThrow(/Refused/);
    const open = createPushSender({ allowPrivate: ['127.0.0.1'] });
    expect(
      (
        await open.put(
          receiver.url('/ssrf'),
          {},
          (async function* () {
            yield Buffer.from('[]');
          })(),
          1_000,
        )
      ).status,
    ).toBe(200);
    expect(receiver.started.get('/ssrf')).toBe(before + 1);
    await closed.close();
    await open.close();
  });

  it('refuses to send a state above the push size cap, with a clear error in the delivery log', async () => {
    const subscription = await subscribe('/cap', ['P1']);
    await waitFor('the normal first push', () => pushesTo('/cap').length >= 1);
    const started = receiver.started.get('/cap');
    await db.query('UPDATE push_subscriptions SET state_version = state_version + 1 WHERE subscription_id = $1', [
      subscription.subscriptionId,
    ]);
    const sender = createPushSender({ allowPrivate: ['127.0.0.1'] });
    const outcome = await deliverPush(
      {
        db,
        sender,
        decrypt: pushKeySealing(createSealer(secretKey)).decrypt,
        enqueueRetry: async () => {},
        enqueueAfterLease: async () => {},
        now: () => new Date(),
        policy: { timeoutMs: 1_000, backoffBaseMs: 100, backoffMaxMs: 400, suspendAfterMs: 60_000, maxBytes: 100 },
      },
      subscription.subscriptionId,
      { isRetry: true },
    );
    await sender.close();
    expect(outcome).toBe('failed');
    expect(receiver.started.get('/cap')).toBe(started);
    const log = await db.query<{ error: string }>(
      `SELECT error FROM push_deliveries WHERE subscription_id = $1 ORDER BY delivery_id DESC LIMIT 1`,
      [subscription.subscriptionId],
    );
    expect(log.rows[0]?.error).toMatch(/^state of \d+ bytes is above the push limit of 100 bytes$/);
    await call('DELETE', `/v1/hotels/push-subscriptions/${subscription.subscriptionId}`, partner);
  });

  it('suspends a subscription failing longer than the configured time, visible to operators, until resumed', async () => {
    receiver.setMode('/suspend', { status: 500 });
    const subscription = await subscribe('/suspend', ['P1']);
    // Let the running process give up its own first attempt before driving this one by hand.
    await waitFor('first failure', () => (receiver.started.get('/suspend') ?? 0) >= 1);
    const retries: number[] = [];
    const sender = createPushSender({ allowPrivate: ['127.0.0.1'] });
    const ports: DeliveryPorts = {
      db,
      sender,
      decrypt: pushKeySealing(createSealer(secretKey)).decrypt,
      enqueueRetry: async (_id, _attempt, delayMs) => void retries.push(delayMs),
      enqueueAfterLease: async () => {},
      policy: { timeoutMs: 1_000, backoffBaseMs: 100, backoffMaxMs: 400, suspendAfterMs: 2_000 },
      now: () => new Date(),
    };
    // Suspension is measured on Postgres' clock from the first failure. The process's own attempt
    // failed a while ago, longer than the limit on a loaded machine: the clock starts again here,
    // so the failures below come before the suspension whatever the load.
    await db.query('UPDATE push_subscriptions SET failures = 0, failing_since = NULL WHERE subscription_id = $1', [
      subscription.subscriptionId,
    ]);
    const outcomes: string[] = [];
    const deadline = Date.now() + 20_000;
    while (!outcomes.includes('suspended') && Date.now() < deadline) {
      outcomes.push(await deliverPush(ports, subscription.subscriptionId, { isRetry: true }));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(outcomes.at(-1)).toBe('suspended');
    expect(outcomes.filter((outcome) => outcome === 'failed').length).toBeGreaterThan(1);
    expect(retries.every((delay) => delay >= 50 && delay <= 400)).toBe(true);
    expect(await deliverPush(ports, subscription.subscriptionId, { isRetry: true })).toBe('busy');
    const view = await call('GET', `/v1/admin/push-subscriptions/${subscription.subscriptionId}`, admin);
    expect(view.json.suspendedAt).toEqual(expect.any(String));
    receiver.setMode('/suspend', { status: 200 });
    expect((await call('POST', `/v1/admin/push-subscriptions/${subscription.subscriptionId}/resume`, admin)).status).toBe(200);
    await waitFor(
      'delivered after resume',
      async () =>
        (
          await db.query(`SELECT 1 FROM push_deliveries WHERE subscription_id = $1 AND outcome = 'delivered'`, [
            subscription.subscriptionId,
          ])
        ).rowCount === 1,
    );
    expect((await call('GET', `/v1/admin/push-subscriptions/${subscription.subscriptionId}`, admin)).json).toMatchObject({
      suspendedAt: null,
      failingSince: null,
    });
    await sender.close();
  });
});
