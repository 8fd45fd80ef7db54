import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { createCardVault, type CardVaultService } from '@quarry/vault';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeApp } from './test-support/edge-app.ts';

/**
 * What `POST /v1/bookings` and `POST /book/{id}` refuse at the edge, before any work is queued:
 * a stay in the past or one the rates feed cannot price (400 naming the field), and a card token
 * this vault did not issue, another client's, or a purged card's (400 naming `panToken`, the
 * booking left waiting for a good one). Real Postgres, Redis and card vault.
 */
const secretKey = Buffer.alloc(32, 51);
const vaultKey = Buffer.alloc(32, 52);
const otherVaultKey = Buffer.alloc(32, 53);
const horizonDays = 30;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const details = {
  mainGuest: { firstName: 'Mary', lastName: 'Jackson' },
  otherGuests: [],
  contact: { email: 'mary@example.com', phone: '+1 757 555 0101' },
};
const card = { pan: '4111111111111111', expiryMonth: 8, expiryYear: 2033, name: 'Mary Jackson' };

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let vault: CardVaultService;
let otherVault: CardVaultService;
let app: Awaited<ReturnType<typeof startEdgeApp>>;
let booker: { clientId: string; secret: string };
let other: { clientId: string; secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
async function call(method: string, path: string, body?: unknown, as = booker) {
  const response = await fetch(`${app.base}${path}`, {
    method,
    headers: { authorization: basic(as.secret), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { bookingId?: string; stage?: string; message?: string; details?: { messages?: string[] } },
  };
}

async function tokenOf(store: CardVaultService, clientId: string): Promise<string> {
  const otp = await store.issueOtp(clientId);
  return (await store.storePan(clientId, { otp: otp.id, ...card })).panToken;
}

/** A booking moved to priceConfirmed as the worker would: POST /book is taken in that stage only. */
async function priceConfirmedBooking(): Promise<string> {
  const created = await call('POST', '/v1/bookings', {
    hotelId: 'H-EDGE',
    checkIn: day(10),
    nights: 1,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await db.query(
    `UPDATE bookings SET stage = 'priceConfirmed', state = 'pending', work = NULL, price_confirmed_until = now() + interval '15 minutes' WHERE booking_id = $1`,
    [created.body.bookingId],
  );
  return created.body.bookingId!;
}

beforeAll(async () => {
  database = await createTestDatabase('bookings-routes');
  testRedis = createTestRedis('bookings-routes');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  vault = createCardVault({ db, redis, vaultKey, prefix: testRedis.prefix });
  otherVault = createCardVault({ db, redis, vaultKey: otherVaultKey, prefix: testRedis.prefix });
  booker = await createClient({ db, secretKey }, { name: 'booker', scopes: ['booking'] });
  other = await createClient({ db, secretKey }, { name: 'other', scopes: ['booking'] });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('H-EDGE', 'H-EDGE', 'opentravel', '1 Main St', 'us', NULL, '{1,2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'opentravel', endpointUrl: 'https://hotel.example/ota', hotelCode: 'H-EDGE' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'H-EDGE')`, [booker.clientId]);
  app = await startEdgeApp({ db, queues, secretKey, vault, horizonDays });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

describe('POST /v1/bookings refuses a stay it cannot book', () => {
  it('a check-in in the past: 400 naming checkIn, nothing stored', async () => {
    const refused = await call('POST', '/v1/bookings', {
      hotelId: 'H-EDGE',
      checkIn: '2020-01-01',
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details?.messages).toEqual([
      expect.stringMatching(/^checkIn: 2020-01-01 is in the past \(today is \d{4}-\d{2}-\d{2}, UTC\)/),
    ]);
    expect(refused.body.message).toContain('checkIn');
    expect((await db.query('SELECT 1 FROM bookings')).rowCount).toBe(0);
  });

  it('a stay the feed cannot price: a guest count the hotel is not priced for, a check-in past the horizon, each field named', async () => {
    const refused = await call('POST', '/v1/bookings', {
      hotelId: 'H-EDGE',
      checkIn: day(horizonDays + 5),
      nights: 1,
      guests: 3,
      roomId: 'STD',
      rateId: 'STD:FLEX',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details?.messages).toEqual([
      "guests: hotel H-EDGE is priced for 1 or 2 guest(s) only, not 3 (GET /Pull/Hotels lists each hotel's guest counts)",
      `checkIn: ${day(horizonDays + 5)} is beyond the rates feed's horizon of ${horizonDays} days: the last check-in it prices is ${day(horizonDays - 1)}`,
    ]);
    expect(
      (await call('POST', '/v1/bookings', { hotelId: 'H-EDGE', checkIn: day(0), nights: 1, guests: 1, roomId: 'STD', rateId: 'STD:FLEX' }))
        .status,
    ).toBe(201);
  });
});

describe('POST /book checks the card token and leaves the booking waiting for a good one', () => {
  it('a token of another vault, of another client, of a purged card: 400 naming panToken; then a good token books', async () => {
    const bookingId = await priceConfirmedBooking();
    const refusals: Array<[string, string]> = [
      [await tokenOf(otherVault, booker.clientId), 'not issued by this vault'],
      [await tokenOf(vault, other.clientId), 'unknown, purged or expired card'],
    ];
    const purged = await tokenOf(vault, booker.clientId);
    await vault.purgeCard(purged, { clientId: booker.clientId });
    refusals.push([purged, 'unknown, purged or expired card']);
    for (const [panToken, reason] of refusals) {
      const refused = await call('POST', `/book/${bookingId}`, { details, panToken });
      expect(refused.status).toBe(400);
      expect(refused.body.details?.messages).toEqual([expect.stringContaining(`panToken: not usable (${reason})`)]);
      expect(refused.body.details?.messages?.[0]).toContain(`booking ${bookingId} stays in priceConfirmed`);
      expect((await call('GET', `/book/${bookingId}`)).body.stage).toBe('priceConfirmed');
    }
    const booked = await call('POST', `/book/${bookingId}`, { details, panToken: await tokenOf(vault, booker.clientId) });
    expect(booked.status, JSON.stringify(booked.body)).toBe(200);
    expect(booked.body.stage).toBe('processingBooking');
  });
});
