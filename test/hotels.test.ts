import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, waitFor, type TestDatabase, type TestRedis } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOtaSource, type FakeOtaSource } from './support/fake-ota-source.ts';
import { runQuarry, startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * The hotel registry, listing, redirect and pull on the real stack: a `quarry` API process, its
 * Postgres, and a real OpenTravel endpoint on loopback (allowed through ALLOW_PRIVATE_URLS).
 */
const secretKey = Buffer.alloc(32, 6);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let ota: FakeOtaSource;
let api: QuarryProcess;
let base: string;
let env: Record<string, string>;
type Client = { clientId: string; secret: string };
let admin: Client;
let partner: Client;
let other: Client;
let recruiter: Client;

const basic = (client: Client) => ({ authorization: `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}` });
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const checkIn = day(10);

async function call(method: string, path: string, client: Client | null, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(client ? basic(client) : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json') === true;
  return { status: response.status, headers: response.headers, text, json: isJson && text ? (JSON.parse(text) as unknown) : null };
}

const hotelBody = (hotelCode: string, extra: Record<string, unknown> = {}) => ({
  name: `Hotel ${hotelCode}`,
  ibe: 'opentravel',
  address: '1 Main Street, Springfield',
  countryCode: 'us',
  bookingServiceId: null,
  guests: [2],
  bookingPageUrl: `https://book.example.com/${hotelCode}`,
  source: { kind: 'opentravel', endpointUrl: ota.url, hotelCode },
  ...extra,
});

const pull = (client: Client | null, query: string) => call('GET', `/Pull/RatesFeed?${query}`, client);

beforeAll(async () => {
  database = await createTestDatabase('hotels');
  redis = createTestRedis('hotels');
  db = createPool(database.url, 2);
  ota = await startFakeOtaSource();
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  partner = await createClient({ db, secretKey }, { name: 'partner', scopes: ['hotels'] });
  other = await createClient({ db, secretKey }, { name: 'other partner', scopes: ['hotels'] });
  recruiter = await createClient({ db, secretKey }, { name: 'recruiter', scopes: ['recruitment'] });
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    RATES_HORIZON_DAYS: '60',
    RATES_PULL_DEADLINE_MS: '1500',
    RATES_SOURCE_TIMEOUT_MS: '8000',
    RATES_SOURCE_PER_SECOND: '0',
    RATES_SOURCE_CONCURRENCY: '20',
  };
  api = await startQuarry('api', env);
  base = `http://127.0.0.1:${api.port}`;
  ota.hotels.set('H-LIVE', { price: '180.00' });
  ota.hotels.set('H-YEN', { price: '24000', currency: 'JPY' });
  ota.hotels.set('H-SLOW', { price: '99.00', delayMs: 4_000 });
  ota.hotels.set('H-NONE', { behaviour: 'no-availability' });
  ota.hotels.set('H-BAD', { behaviour: 'invalid' });
  ota.hotels.set('H-DUP', { behaviour: 'duplicate-rates' });
  ota.hotels.set('H-OTHER', { price: '50.00' });
  for (const code of ['H-LIVE', 'H-YEN', 'H-SLOW', 'H-NONE', 'H-BAD', 'H-DUP', 'H-GONE', 'H-OTHER']) {
    expect((await call('PUT', `/v1/admin/hotels/${code}`, admin, hotelBody(code))).status).toBe(200);
  }
  expect((await call('PUT', '/v1/admin/hotels/H-SOLO', admin, hotelBody('H-LIVE', { guests: [1, 2] }))).status).toBe(200);
  const granted = await call('POST', '/v1/admin/hotel-grants', admin, {
    clientId: partner.clientId,
    hotelIds: ['H-LIVE', 'H-YEN', 'H-SLOW', 'H-NONE', 'H-BAD', 'H-DUP', 'H-GONE', 'H-SOLO'],
  });
  expect(granted.status).toBe(200);
  expect((await call('POST', '/v1/admin/hotel-grants', admin, { clientId: other.clientId, hotelIds: ['H-OTHER'] })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  api?.child.kill('SIGKILL');
  await api?.exited;
  await ota?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('hotel registry (operators)', () => {
  it('validates a hotel and lists every problem', async () => {
    const response = await call('PUT', '/v1/admin/hotels/H-X', admin, {
      ...hotelBody('H-X'),
      countryCode: 'USA',
      guests: [3],
      source: { kind: 'fax' },
    });
    expect(response.status).toBe(400);
    const body = response.json as { object: string; name: string; details: { messages: string[] } };
    expect(body.object).toBe('error');
    expect(body.name).toBe('RequestParametersValidationError');
    expect(body.details.messages.map((message) => message.split(':')[0])).toEqual(
      expect.arrayContaining(['countryCode', 'guests', 'source.kind']),
    );
  });

  it('refuses an http: booking page or OpenTravel endpoint off loopback with a 400 naming the field, allowance or not', async () => {
    const response = await call(
      'PUT',
      '/v1/admin/hotels/H-PLAIN-API',
      admin,
      hotelBody('H-PLAIN-API', {
        bookingPageUrl: 'http://book.example.com/',
        source: { kind: 'opentravel', endpointUrl: 'http://ota.example.com/ota', hotelCode: 'H-PLAIN-API' },
      }),
    );
    expect(response.status).toBe(400);
    const body = response.json as { name: string; details: { messages: string[] } };
    expect(body.name).toBe('RequestParametersValidationError');
    expect(body.details.messages.map((message) => message.split(':')[0])).toEqual(['bookingPageUrl', 'source.endpointUrl']);
    expect((await call('GET', '/v1/admin/hotels/H-PLAIN-API', admin)).status).toBe(404);
  });

  it('is for operators only, and grants name existing hotels and clients', async () => {
    expect((await call('PUT', '/v1/admin/hotels/H-X', partner, hotelBody('H-X'))).status).toBe(403);
    const unknown = await call('POST', '/v1/admin/hotel-grants', admin, { clientId: partner.clientId, hotelIds: ['NOPE'] });
    expect(unknown.status).toBe(400);
    expect((unknown.json as { details: { messages: string[] } }).details.messages).toEqual(['hotelIds: no hotel NOPE']);
  });
});

describe('hotel registry (CLI)', () => {
  it('adds a hotel, grants it and lists it from the command line', async () => {
    const added = await runQuarry(['hotels', 'add', '--json', JSON.stringify({ hotelId: 'H-CLI', ...hotelBody('H-CLI') })], env);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ hotelId: 'H-CLI', guests: [2], source: { kind: 'opentravel', hotelCode: 'H-CLI' } });
    const granted = await runQuarry(['hotels', 'grant', other.clientId, 'H-CLI'], env);
    expect(JSON.parse(granted.stdout)).toEqual({ clientId: other.clientId, hotelIds: ['H-CLI'], granted: true });
    expect(((await call('GET', '/Pull/Hotels', other)).json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual([
      'H-CLI',
      'H-OTHER',
    ]);
    const listed = await runQuarry(['hotels', 'list'], env);
    expect((JSON.parse(listed.stdout) as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toContain('H-CLI');
    const bad = await runQuarry(['hotels', 'grant', other.clientId, 'NOPE'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('hotels grant: hotelIds: no hotel NOPE');
    await runQuarry(['hotels', 'revoke', other.clientId, 'H-CLI'], env);
    expect(((await call('GET', '/Pull/Hotels', other)).json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual([
      'H-OTHER',
    ]);
  });

  it('refuses plain http: for card data unless the development allowance is on, and logs each hotel it lets through', async () => {
    const { ALLOW_LOOPBACK_HTTP_HOTELS: _allowance, ...production } = env;
    const refused = await runQuarry(
      ['hotels', 'add', '--json', JSON.stringify({ hotelId: 'H-PLAIN', ...hotelBody('H-PLAIN') })],
      production,
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('hotels add: source.endpointUrl: must be an https: URL');
    const allowed = await runQuarry(['hotels', 'add', '--json', JSON.stringify({ hotelId: 'H-PLAIN', ...hotelBody('H-PLAIN') })], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toMatch(/"field":"source\.endpointUrl".*ALLOW_LOOPBACK_HTTP_HOTELS/);
  });
});

describe('listing, detail and redirect', () => {
  it('lists only the hotels granted to the caller, with limit and offset', async () => {
    const all = await call('GET', '/Pull/Hotels', partner);
    expect(all.status).toBe(200);
    const ids = (all.json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId);
    expect(ids).toEqual(['H-BAD', 'H-DUP', 'H-GONE', 'H-LIVE', 'H-NONE', 'H-SLOW', 'H-SOLO', 'H-YEN']);
    expect((all.json as unknown[])[3]).toEqual({
      hotelId: 'H-LIVE',
      name: 'Hotel H-LIVE',
      ibe: 'opentravel',
      address: '1 Main Street, Springfield',
      bookingServiceId: null,
      countryCode: 'us',
      guests: [2],
    });
    const page = await call('GET', '/Pull/Hotels?limit=2&offset=3', partner);
    expect((page.json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual(['H-LIVE', 'H-NONE']);
    expect(((await call('GET', '/Pull/Hotels', other)).json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual([
      'H-OTHER',
    ]);
  });

  it('refuses a limit above 1000 or below 1', async () => {
    for (const limit of ['0', '1001', 'x']) {
      const response = await call('GET', `/Pull/Hotels?limit=${limit}`, partner);
      expect(response.status).toBe(400);
      expect((response.json as { details: { messages: string[] } }).details.messages).toEqual(['limit must be an integer from 1 to 1000']);
    }
  });

  it('answers one hotel by query or path; another client’s hotel is 404', async () => {
    expect((await call('GET', '/Pull/Hotel?hotelId=H-SOLO', partner)).json).toMatchObject({
      hotelId: 'H-SOLO',
      guests: [1, 2],
      bookingServiceId: null,
    });
    expect((await call('GET', '/Pull/Hotel/H-YEN', partner)).json).toMatchObject({ hotelId: 'H-YEN' });
    const foreign = await call('GET', '/Pull/Hotel/H-OTHER', partner);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ object: 'error', name: 'NotFound' });
  });

  it('redirects to the booking page and records the click; the clientId must hold the hotel', async () => {
    const response = await call('GET', `/redirect?hotelId=H-LIVE&clientId=${partner.clientId}`, null);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://book.example.com/H-LIVE');
    const clicks = await db.query('SELECT client_id FROM redirect_clicks WHERE hotel_id = $1', ['H-LIVE']);
    expect(clicks.rows).toEqual([{ client_id: partner.clientId }]);
    expect((await call('GET', `/redirect?hotelId=H-LIVE&clientId=${other.clientId}`, null)).status).toBe(404);
    expect((await call('GET', '/redirect', null)).status).toBe(400);
  });

  it('answers 401 EndpointAccessAuthorizationError without a credential or without the hotels scope', async () => {
    for (const client of [null, recruiter, { clientId: 'x', secret: 'wrong' }]) {
      for (const path of ['/Pull/Hotels', `/Pull/RatesFeed?hotelIds=H-LIVE&checkIn=${checkIn}&nights=1`]) {
        const response = await call('GET', path, client);
        expect(response.status).toBe(401);
        expect(response.json).toEqual({
          object: 'error',
          name: 'EndpointAccessAuthorizationError',
          message: 'The authenticated user has no access to the endpoint',
          details: {},
        });
      }
    }
  });
});

describe('GET /Pull/RatesFeed', () => {
  it('lists every validation problem in details.messages', async () => {
    const none = await pull(partner, '');
    expect(none.status).toBe(400);
    expect(none.json).toEqual({
      object: 'error',
      name: 'RequestParametersValidationError',
      message: 'hotelIds is required; checkIn is required; nights is required',
      details: { messages: ['hotelIds is required', 'checkIn is required', 'nights is required'] },
    });
    const bad = await pull(partner, `hotelIds=H-LIVE&hotelIds=${'x'.repeat(201)}&checkIn=2026-02-30&nights=0&guests=two`);
    expect((bad.json as { details: { messages: string[] } }).details.messages).toEqual([
      'hotelIds[1] must be at most 200 characters',
      'checkIn must be a date in yyyy-MM-dd format',
      'nights must be an integer of at least 1',
      'guests must be an integer of at least 1',
    ]);
    const twice = await pull(partner, `hotelIds=H-LIVE&checkIn=${checkIn}&checkIn=${checkIn}&nights=1.5`);
    expect((twice.json as { details: { messages: string[] } }).details.messages).toEqual([
      'checkIn must be given once',
      'nights must be an integer of at least 1',
    ]);
  });

  it('fetches a missing search live, then answers it from the store', async () => {
    const first = await pull(partner, `hotelIds=H-LIVE&hotelIds=H-YEN&checkIn=${checkIn}&nights=2`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const hotels = first.json as Array<{
      hotelId: string;
      guests: number;
      rooms: Array<{ rates: Array<{ baseRate: unknown; taxes: unknown[] }> }>;
    }>;
    expect(hotels.map((hotel) => hotel.hotelId)).toEqual(['H-LIVE', 'H-YEN']);
    expect(hotels[0]).toEqual({
      hotelId: 'H-LIVE',
      checkIn,
      nights: 2,
      guests: 2,
      rooms: [
        {
          id: 'STD',
          name: 'Standard H-LIVE',
          description: 'Room',
          occupancy: 2,
          rates: [
            {
              id: 'STD:FLEX',
              name: 'Flexible',
              refundable: { available: false },
              baseRate: { currencyCode: 'usd', value: 18000 },
              taxes: [{ type: 'NamedPrice', name: 'VAT', code: 'vat', price: { currencyCode: 'usd', value: 1800 } }],
            },
          ],
        },
      ],
    });
    expect(hotels[1]?.rooms[0]?.rates[0]?.baseRate).toEqual({ currencyCode: 'jpy', value: 24000 });
    const fetches = ota.requests.get('H-LIVE');
    const second = await pull(partner, `hotelIds=H-LIVE&hotelIds=H-YEN&checkIn=${checkIn}&nights=2`);
    expect(second.text).toBe(first.text);
    expect(ota.requests.get('H-LIVE')).toBe(fetches);
  });

  it('refetches a stale search', async () => {
    const fetches = ota.requests.get('H-LIVE') ?? 0;
    ota.hotels.set('H-LIVE', { price: '185.00' });
    await db.query(`UPDATE rate_results SET expires_at = now() - interval '1 second' WHERE hotel_id = 'H-LIVE'`);
    const response = await pull(partner, `hotelIds=H-LIVE&checkIn=${checkIn}&nights=2`);
    expect(ota.requests.get('H-LIVE')).toBe(fetches + 1);
    expect(
      (response.json as Array<{ rooms: Array<{ rates: Array<{ baseRate: { value: number } }> }> }>)[0]?.rooms[0]?.rates[0]?.baseRate.value,
    ).toBe(18500);
    const stored = await db.query<{ fetched_at: Date; expires_at: Date }>(
      `SELECT fetched_at, expires_at FROM rate_results WHERE hotel_id = 'H-LIVE' AND nights = 2`,
    );
    expect(stored.rows[0]?.expires_at.getTime()).toBeGreaterThan(Date.now());
  });

  it('serves what the store holds now, never a copy the API kept of an older result', async () => {
    const query = `hotelIds=H-LIVE&checkIn=${checkIn}&nights=2`;
    const before = await pull(partner, query);
    const hotel = (before.json as Array<Record<string, unknown>>)[0] ?? {};
    // Another process (a refresh in the rates-worker) replaces the stored result.
    const changed = JSON.stringify({ ...hotel, rooms: [] });
    await db.query(
      `UPDATE rate_results SET body = $1, body_sha256 = sha256(convert_to($1, 'UTF8')) WHERE hotel_id = 'H-LIVE' AND nights = 2`,
      [changed],
    );
    expect((await pull(partner, query)).text).toBe(`[${changed}]`);
    expect((await pull(partner, query)).text).toBe(`[${changed}]`);
  });

  it('leaves out what cannot be fetched within the deadline, and serves it once stored', async () => {
    const started = Date.now();
    const response = await pull(partner, `hotelIds=H-SLOW&hotelIds=H-LIVE&checkIn=${checkIn}&nights=2`);
    // Answered at the 1.5 s deadline, well before the 4 s source.
    expect(Date.now() - started).toBeLessThan(3_500);
    expect((response.json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual(['H-LIVE']);
    await waitFor(
      'the slow search stored',
      async () => (await db.query(`SELECT 1 FROM rate_results WHERE hotel_id = 'H-SLOW'`)).rowCount === 1,
      { timeoutMs: 8_000 },
    );
    const later = await pull(partner, `hotelIds=H-SLOW&hotelIds=H-LIVE&checkIn=${checkIn}&nights=2`);
    expect((later.json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual(['H-SLOW', 'H-LIVE']);
  });

  it('returns rooms: [] for no availability', async () => {
    const response = await pull(partner, `hotelIds=H-NONE&checkIn=${checkIn}&nights=1`);
    expect(response.json).toEqual([{ hotelId: 'H-NONE', checkIn, nights: 1, guests: 2, rooms: [] }]);
  });

  it('omits hotels without coverage: not granted, unknown to the source, guests not collected, beyond the horizon or past', async () => {
    expect((await pull(partner, `hotelIds=H-OTHER&hotelIds=H-GONE&checkIn=${checkIn}&nights=1`)).json).toEqual([]);
    expect(ota.requests.get('H-OTHER')).toBeUndefined();
    expect((await pull(partner, `hotelIds=H-LIVE&checkIn=${checkIn}&nights=1&guests=1`)).json).toEqual([]);
    const solo = (await pull(partner, `hotelIds=H-SOLO&hotelIds=H-LIVE&checkIn=${checkIn}&nights=1&guests=1`)).json as Array<{
      hotelId: string;
      guests: number;
    }>;
    expect(solo.map((hotel) => [hotel.hotelId, hotel.guests])).toEqual([['H-SOLO', 1]]);
    expect((await pull(partner, `hotelIds=H-LIVE&checkIn=${day(61)}&nights=1`)).json).toEqual([]);
    expect((await pull(partner, `hotelIds=H-LIVE&checkIn=${day(-1)}&nights=1`)).json).toEqual([]);
  });

  it('names the hotelIds unknown to the client in a header, the body keeping its shape', async () => {
    const response = await pull(partner, `hotelIds=H-NONE&hotelIds=NO-SUCH%2C1&hotelIds=H-OTHER&checkIn=${checkIn}&nights=1`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual([{ hotelId: 'H-NONE', checkIn, nights: 1, guests: 2, rooms: [] }]);
    // Another client's hotel is unknown to this one, like one never registered.
    expect(response.headers.get('quarry-unknown-hotel-ids')).toBe('NO-SUCH%2C1,H-OTHER');
    expect(response.headers.get('quarry-unknown-hotel-count')).toBe('2');
    // Known hotels without coverage are not unknown: no header.
    const uncovered = await pull(partner, `hotelIds=H-LIVE&checkIn=${day(61)}&nights=1`);
    expect(uncovered.json).toEqual([]);
    expect(uncovered.headers.get('quarry-unknown-hotel-ids')).toBeNull();
  });

  it('answers 404 naming them when none of the hotelIds is known to the client', async () => {
    const response = await pull(partner, `hotelIds=NO-SUCH&hotelIds=H-OTHER&checkIn=${day(61)}&nights=1`);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      object: 'error',
      name: 'NotFound',
      message: 'No hotel of hotelIds is known to this client: NO-SUCH, H-OTHER (GET /Pull/Hotels lists the hotels it may pull)',
      details: { unknownHotelIds: ['NO-SUCH', 'H-OTHER'], unknownHotelCount: 2 },
    });
  });

  it('never serves an invalid source result: it is a logged source failure', async () => {
    const response = await pull(partner, `hotelIds=H-BAD&hotelIds=H-DUP&hotelIds=H-LIVE&checkIn=${checkIn}&nights=2`);
    expect((response.json as Array<{ hotelId: string }>).map((hotel) => hotel.hotelId)).toEqual(['H-LIVE']);
    const failures = await db.query<{ hotel_id: string; kind: string; reason: string }>(
      `SELECT hotel_id, kind, reason FROM rate_source_failures WHERE hotel_id IN ('H-BAD', 'H-DUP') ORDER BY hotel_id`,
    );
    expect(failures.rows).toEqual([
      { hotel_id: 'H-BAD', kind: 'InvalidResult', reason: 'amount 180.005 usd has more decimals than the currency (2)' },
      { hotel_id: 'H-DUP', kind: 'InvalidResult', reason: 'rooms.0.rates.1.id: duplicate rate id STD:FLEX' },
    ]);
    expect((await db.query(`SELECT 1 FROM rate_results WHERE hotel_id IN ('H-BAD', 'H-DUP')`)).rowCount).toBe(0);
    expect(api.output()).toContain('rate source failure');
  });

  it('never stores or serves an answer for another stay: the source answered the day after the one asked', async () => {
    const client = await createClient({ db, secretKey }, { name: 'shifted partner', scopes: ['hotels'] });
    ota.hotels.set('H-SHIFT', { price: '120.00', behaviour: 'wrong-stay' });
    expect((await call('PUT', '/v1/admin/hotels/H-SHIFT', admin, hotelBody('H-SHIFT'))).status).toBe(200);
    expect((await call('POST', '/v1/admin/hotel-grants', admin, { clientId: client.clientId, hotelIds: ['H-SHIFT'] })).status).toBe(200);
    const before = ota.requests.get('H-SHIFT') ?? 0;
    expect((await pull(client, `hotelIds=H-SHIFT&checkIn=${checkIn}&nights=2`)).json).toEqual([]);
    expect(ota.requests.get('H-SHIFT')).toBe(before + 1);
    const failures = await db.query<{ kind: string; reason: string }>(
      `SELECT kind, reason FROM rate_source_failures WHERE hotel_id = 'H-SHIFT'`,
    );
    expect(failures.rows).toEqual([
      { kind: 'InvalidResult', reason: `the answer is not for the search asked: TimeSpan starts ${day(11)}, asked ${checkIn}` },
    ]);
    expect((await db.query(`SELECT 1 FROM rate_results WHERE hotel_id = 'H-SHIFT'`)).rowCount).toBe(0);
  });
});
