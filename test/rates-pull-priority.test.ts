import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOtaSource, type FakeOtaSource } from './support/fake-ota-source.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * Pulls while the scheduler makes its first pass over newly registered hotels of one source host:
 * a rates-worker and an API process sharing the per-host limit (default: 2 at once, 2 starts a
 * second) through Redis, and a real OpenTravel endpoint on loopback.
 */
const secretKey = Buffer.alloc(32, 8);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let ota: FakeOtaSource;
let api: QuarryProcess;
let worker: QuarryProcess;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const pulledDate = day(12);
const hotelCodes = ['NEW-1', 'NEW-2', 'NEW-3', 'NEW-4'];

beforeAll(async () => {
  database = await createTestDatabase('rates_pull_priority');
  redis = createTestRedis('rates_pull_priority');
  db = createPool(database.url, 2);
  ota = await startFakeOtaSource();
  // The scheduled searches of the first pass are slow (4 s each, longer than the pull's deadline);
  // the date the client pulls answers at once.
  for (const code of hotelCodes) ota.hotels.set(code, { price: '150.00', delayMs: (checkIn) => (checkIn === pulledDate ? 100 : 4_000) });
  const env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    RATES_HORIZON_DAYS: '30',
    RATES_NIGHTS: '1',
    RATES_SCHEDULE_EVERY_MS: '1000',
    RATES_PULL_DEADLINE_MS: '2500',
    RATES_SOURCE_TIMEOUT_MS: '10000',
  };
  [api, worker] = await Promise.all([startQuarry('api', env), startQuarry('rates-worker', env)]);
}, 60_000);

afterAll(async () => {
  for (const child of [api, worker]) child?.child.kill('SIGKILL');
  await Promise.all([api?.exited, worker?.exited]);
  await ota?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
}, 60_000);

describe('a pull during the first pass over new hotels', () => {
  it('gets its live fetch ahead of the scheduled refreshes that fill the per-host limit', async () => {
    const admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
    const partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
    const base = `http://127.0.0.1:${api.port}`;
    const call = (method: string, path: string, secret: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    for (const code of hotelCodes) {
      const body = {
        name: code,
        ibe: 'opentravel',
        address: '',
        countryCode: 'us',
        bookingServiceId: null,
        guests: [2],
        bookingPageUrl: `https://book.example.com/${code}`,
        source: { kind: 'opentravel', endpointUrl: ota.url, hotelCode: code },
      };
      expect((await call('PUT', `/v1/admin/hotels/${code}`, admin.secret, body)).status).toBe(200);
    }
    expect((await call('POST', '/v1/admin/hotel-grants', admin.secret, { clientId: partner.clientId, hotelIds: hotelCodes })).status).toBe(
      200,
    );
    // The first pass has begun: scheduled refreshes hold the host's slots and more wait for them.
    await waitFor('scheduled refreshes at the source', () => [...ota.requests.values()].reduce((sum, count) => sum + count, 0) >= 2, {
      timeoutMs: 30_000,
    });
    const response = await call('GET', `/Pull/RatesFeed?hotelIds=NEW-1&checkIn=${pulledDate}&nights=1&guests=2`, partner.secret);
    expect(response.status).toBe(200);
    const hotels = (await response.json()) as Array<{ hotelId: string; rooms: unknown[] }>;
    expect(hotels.map((hotel) => [hotel.hotelId, hotel.rooms.length])).toEqual([['NEW-1', 1]]);
  });
});
