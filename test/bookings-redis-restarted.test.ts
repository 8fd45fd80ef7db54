import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createBooking, type BookingEngine, type BookingsPorts } from '@quarry/bookings';
import { startBookingsRole } from '@quarry/bookings-worker';
import { loadConfig } from '@quarry/config';
import type { BookingPrice, Room } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, type JobQueues } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { findGrantedHotelRow } from '@quarry/rates';
import { createTestDatabase, quarryEnv, startPrivateRedis, waitFor, type PrivateRedis, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCardVault } from './support/test-cards.ts';

/**
 * A Redis restarted empty loses the bookings' steps queued in it, and the scheduled sweep with
 * them. The bookings-worker sweeps as soon as Redis is back, not at its next round: here the round
 * is out of reach (10 minutes), so only Redis coming back can run the lost step. A private
 * redis-server this file kills and starts again empty; the hotel is a stand-in of our own engine port.
 */
const secretKey = Buffer.alloc(32, 19);
const prefix = 'qt-bookings-redis-restarted';
const checkIn = new Date(Date.now() + 35 * 86_400_000).toISOString().slice(0, 10);
const price: BookingPrice = {
  baseRate: { currencyCode: 'eur', value: 18_000 },
  taxes: [],
  fees: [],
  total: { currencyCode: 'eur', value: 18_000 },
};
const rooms: Room[] = [{ id: 'STD', name: 'Standard', rates: [{ id: 'STD:FLEX', name: 'Flexible', baseRate: price.baseRate, taxes: [] }] }];

let database: TestDatabase;
let redisServer: PrivateRedis;
let db: Pool;
let connection: ReturnType<typeof createRedis>;
let queues: JobQueues;
let role: { stop(graceMs: number): Promise<void> };
let clientId: string;
let repriced = 0;

const hotel: BookingEngine = {
  reprice: async () => {
    repriced += 1;
    return { ok: true, rooms };
  },
  placeOrder: () => Promise.reject(new Error('not ordered in this test')),
  findOrderByReference: async () => ({ status: 'notFound' }),
  continueAfterChallenge: async () => ({ status: 'notFound' }),
};

beforeAll(async () => {
  redisServer = await startPrivateRedis();
  database = await createTestDatabase('bookings-redis-restarted');
  db = createPool(database.url, 6);
  ({ clientId } = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] }));
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('H-OTA', 'H-OTA', 'demo-ibe', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'booking-page', engine: 'demo-ibe' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'H-OTA')`, [clientId]);
  const config = loadConfig(
    {
      ...quarryEnv({ database, redis: { url: redisServer.url, prefix }, secretKey }),
      BOOKING_SWEEP_EVERY_MS: '600000',
      MINING_BROWSER: 'off',
      LOG_LEVEL: 'silent',
    },
    'bookings-worker',
  );
  connection = createRedis(config.redisUrl);
  queues = createJobQueues({ connection, prefix });
  await waitFor('the worker connected to Redis', async () => (connection.status === 'ready' ? true : undefined), { timeoutMs: 10_000 });
  role = await startBookingsRole({
    config,
    db,
    redis: connection,
    queues,
    logger: createLogger({ level: 'silent' }),
    events: {},
    workerId: 'redis-restarted',
    runsCanary: false,
    shared: (_name, create) => create(),
    vault: createTestCardVault(),
    engines: { 'booking-page': hotel },
  });
}, 60_000);

afterAll(async () => {
  await role?.stop(500);
  await queues?.close();
  connection?.disconnect();
  await db?.end();
  await database?.drop();
  await redisServer?.remove();
});

describe('a Redis restarted empty', () => {
  it("has the booking steps it lost enqueued again as soon as it is back, not at the sweep's next round", async () => {
    // The first step is committed with the booking and enqueued into Redis only, for an hour from now.
    const ports: BookingsPorts = {
      pool: db,
      sealer: createSealer(secretKey),
      vault: createTestCardVault(),
      findGrantedHotel: (client, hotelId) => findGrantedHotelRow(db, client, hotelId),
      enqueueStep: (payload, options) => enqueuer(queues, 'bookings.step')(payload, { ...options, delayMs: 3_600_000 }),
      enqueueNotify: enqueuer(queues, 'bookings.notify'),
      checkCallbackUrl: async () => undefined,
    };
    const { bookingId } = await createBooking(ports, clientId, {
      hotelId: 'H-OTA',
      checkIn,
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(repriced).toBe(0);
    await redisServer.kill();
    await redisServer.start();
    const back = Date.now();
    await waitFor(
      'the price checked',
      async () =>
        (await db.query<{ stage: string }>('SELECT stage FROM bookings WHERE booking_id = $1', [bookingId])).rows[0]?.stage ===
        'priceConfirmed'
          ? true
          : undefined,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(repriced).toBe(1);
    expect(Date.now() - back).toBeLessThan(15_000);
  }, 60_000);
});
