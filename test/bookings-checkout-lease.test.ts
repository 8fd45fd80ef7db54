import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import {
  bookBooking,
  consentToFinalPrice,
  createBooking,
  type BookingEngine,
  type BookingsPorts,
  type HeldCheckout,
} from '@quarry/bookings';
import { startBookingsRole } from '@quarry/bookings-worker';
import { loadConfig } from '@quarry/config';
import type { BookingPrice, Room } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer } from '@quarry/jobs';
import { createLogger } from '@quarry/observability';
import { findGrantedHotelRow } from '@quarry/rates';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startPrivatePostgres,
  waitFor,
  type PrivatePostgres,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCardVault, testCardToken } from './support/test-cards.ts';

/**
 * A checkout on a hotel's booking page holds its page open while the client decides. Its lease is a
 * setting of its own (BOOKING_CHECKOUT_LEASE_MS, ADR 0048), not the queue lock: a Postgres outage
 * longer than the lock but shorter than the lease is waited out with the page open, and nobody
 * else takes the booking over meanwhile. The bookings-worker role runs in this process on a private
 * PostgreSQL this file stops; the booking page is a stand-in of our own engine port.
 */
const secretKey = Buffer.alloc(32, 41);
const checkIn = new Date(Date.now() + 35 * 86_400_000).toISOString().slice(0, 10);
const details = {
  mainGuest: { firstName: 'Annie', lastName: 'Easley' },
  otherGuests: [],
  contact: { email: 'annie@example.com', phone: '+1 216 555 0102' },
};
const price: BookingPrice = {
  baseRate: { currencyCode: 'eur', value: 18_000 },
  taxes: [],
  fees: [],
  total: { currencyCode: 'eur', value: 18_000 },
};
const rooms: Room[] = [{ id: 'STD', name: 'Standard', rates: [{ id: 'STD:FLEX', name: 'Flexible', baseRate: price.baseRate, taxes: [] }] }];

let postgres: PrivatePostgres;
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let queues: ReturnType<typeof createJobQueues>;
let role: { stop(graceMs: number): Promise<void> };
let clientId: string;
const pages = { opened: 0, ordered: 0 };

/** The booking page: every checkout opens a page (counted), reaches the final price with the card, and orders on the click. */
const bookingPage: BookingEngine = {
  reprice: async () => ({ ok: true, rooms }),
  placeOrder: () => Promise.reject(new Error('a booking page orders from its checkout')),
  findOrderByReference: async () => ({ status: 'notFound' }),
  continueAfterChallenge: async () => ({ status: 'notFound' }),
  checkout: {
    async withCheckout(_hotel, request, _signal, work, onStarted) {
      pages.opened += 1;
      onStarted?.();
      await request.card();
      const page: HeldCheckout = {
        finalPrice: async () => price,
        reloadFinalPrice: async () => price,
        placeOrder: async () => {
          pages.ordered += 1;
          return { status: 'confirmed', confirmation: { reference: `PAGE-${pages.ordered}` } };
        },
        awaitChallengeOutcome: async () => ({ status: 'pending' }),
      };
      return work(page);
    },
    failureOf: () => null,
  },
};

const stageOf = async (bookingId: string) =>
  (await db.query<{ stage: string }>('SELECT stage FROM bookings WHERE booking_id = $1', [bookingId])).rows[0]?.stage;
const untilStage = (bookingId: string, stage: string) =>
  waitFor(
    `booking ${bookingId} to reach ${stage}`,
    async () => ((await stageOf(bookingId).catch(() => undefined)) === stage ? true : undefined),
    { timeoutMs: 30_000, intervalMs: 100 },
  );

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  database = await createTestDatabase('bookings-checkout-lease', postgres.url);
  testRedis = createTestRedis('bookings-checkout-lease');
  // A short queue lock (2 s) and a sweep every half second: before its own setting, a checkout's
  // lease was the lock, and the sweep handed a checkout on as soon as it lapsed.
  const config = loadConfig(
    {
      ...quarryEnv({ database, redis: testRedis, secretKey }),
      JOB_LOCK_MS: '2000',
      JOB_STALLED_INTERVAL_MS: '1000',
      BOOKING_SWEEP_EVERY_MS: '500',
      MINING_BROWSER: 'off',
      LOG_LEVEL: 'silent',
    },
    'bookings-worker',
  );
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  ({ clientId } = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] }));
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('H-PAGE', 'H-PAGE', 'demo-ibe', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'booking-page', engine: 'demo-ibe' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'H-PAGE')`, [clientId]);
  const shared = new Map<string, { close(): Promise<void> }>();
  role = await startBookingsRole({
    config,
    db,
    redis,
    queues,
    logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    events: {},
    workerId: 'checkout-lease-worker',
    runsCanary: false,
    shared: <T extends { close(): Promise<void> }>(name: string, create: () => T): T => {
      if (!shared.has(name)) shared.set(name, create());
      return shared.get(name) as T;
    },
    vault: createTestCardVault(),
    engines: { 'booking-page': bookingPage },
  });
}, 120_000);

afterAll(async () => {
  await postgres?.start().catch(() => undefined);
  await role?.stop(1_000);
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
  await postgres?.remove();
});

describe("a held checkout's lease", () => {
  it('outlasts a Postgres outage longer than the queue lock: the same page takes the consent and orders, once', async () => {
    const ports: BookingsPorts = {
      pool: db,
      sealer: createSealer(secretKey),
      vault: createTestCardVault(),
      findGrantedHotel: (client, hotelId) => findGrantedHotelRow(db, client, hotelId),
      enqueueStep: enqueuer(queues, 'bookings.step'),
      enqueueNotify: enqueuer(queues, 'bookings.notify'),
      checkCallbackUrl: async () => undefined,
    };
    const { bookingId } = await createBooking(ports, clientId, {
      hotelId: 'H-PAGE',
      checkIn,
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
    });
    await untilStage(bookingId, 'priceConfirmed');
    await bookBooking(ports, clientId, bookingId, { details, panToken: testCardToken('visa') });
    await untilStage(bookingId, 'finalPriceConsent');
    const holder = (
      await db.query<{ checkout_worker: string | null }>('SELECT checkout_worker FROM bookings WHERE booking_id = $1', [bookingId])
    ).rows[0]?.checkout_worker;
    expect(holder).toContain('checkout-lease-worker');

    // Postgres is gone for 5 s, over twice the queue lock; the sweep runs again as soon as it is back.
    await postgres.stop();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await postgres.start();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = await db.query<{ checkout_worker: string | null; stage: string }>(
      'SELECT checkout_worker, stage FROM bookings WHERE booking_id = $1',
      [bookingId],
    );
    expect(after.rows[0]).toEqual({ checkout_worker: holder, stage: 'finalPriceConsent' });

    const shown = await db.query<{ final_price: unknown }>('SELECT final_price FROM bookings WHERE booking_id = $1', [bookingId]);
    await consentToFinalPrice(ports, clientId, bookingId, { finalPrice: shown.rows[0]?.final_price });
    await untilStage(bookingId, 'bookingConfirmed');
    expect(pages).toEqual({ opened: 1, ordered: 1 });
  });
});
