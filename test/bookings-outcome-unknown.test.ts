import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import {
  bookBooking,
  consentToFinalPrice,
  createBooking,
  createOpenTravelBookingEngine,
  findBookingStatusText,
  runBookingStep,
  stepLogLevel,
  type WorkerPorts,
} from '@quarry/bookings';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer } from '@quarry/jobs';
import { findGrantedHotelRow, findHotelRow } from '@quarry/rates';
import { createSafeFetch } from '@quarry/safe-fetch';
import {
  createTestDatabase,
  createTestRedis,
  startOpenTravelHotel,
  type OpenTravelHotel,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { createCardVault } from '@quarry/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A booking whose order's answer could not be read, at a hotel that cannot say either: it ends
 * `BookingOutcomeUnknown` with the first cause in its message (not only the lookup's failure),
 * the status names the reference the hotel knows the order by, and the end is logged at warn.
 * Real Postgres, Redis and vault; the OpenTravel engine over loopback to the hotel double.
 */
const secretKey = Buffer.alloc(32, 41);
const vaultKey = Buffer.alloc(32, 42);
const card = { pan: '4111111111111111', expiryMonth: 10, expiryYear: 2032, name: 'Grace Hopper' };
const details = {
  mainGuest: { firstName: 'Grace', lastName: 'Hopper' },
  otherGuests: [],
  contact: { email: 'grace@example.com', phone: '+1 202 555 0100' },
};
const checkIn = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let hotel: OpenTravelHotel;
let vault: ReturnType<typeof createCardVault>;
let queues: ReturnType<typeof createJobQueues>;
let clientId: string;
const cleanups: Array<() => Promise<unknown>> = [];

function workerPorts(overrides: Partial<WorkerPorts> = {}): WorkerPorts {
  const fetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], timeoutMs: 5_000 });
  cleanups.push(() => fetch.close());
  return {
    pool: db,
    sealer: createSealer(secretKey),
    vault,
    findGrantedHotel: (client, hotelId) => findGrantedHotelRow(db, client, hotelId),
    findHotel: (hotelId) => findHotelRow(db, hotelId),
    storedRooms: async () => null,
    enqueueStep: enqueuer(queues, 'bookings.step'),
    enqueueNotify: enqueuer(queues, 'bookings.notify'),
    enqueueCheckout: enqueuer(queues, 'bookings.checkout'),
    engines: { opentravel: createOpenTravelBookingEngine({ fetch, timeoutMs: 5_000 }) },
    timers: {
      priceHoldMs: 900_000,
      inputTimeoutMs: 900_000,
      jobTimeoutMs: 3_600_000,
      tdsTimeoutMs: 600_000,
      tdsPollMs: 1_000,
      sourceTimeoutMs: 5_000,
    },
    fetchCallback: fetch,
    workerId: 'test-worker',
    checkoutLeaseMs: 60_000,
    orderLeaseMs: 5_000,
    ...overrides,
  } as WorkerPorts;
}

async function consentedBooking(code: string): Promise<string> {
  hotel.hotels.set(code, { price: '120.00', order: 'unreadable' });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, code]);
  const ports = { ...workerPorts(), checkCallbackUrl: async () => undefined };
  const otp = await vault.issueOtp(clientId);
  const { panToken } = await vault.storePan(clientId, { otp: otp.id, ...card });
  const { bookingId } = await createBooking(ports, clientId, {
    hotelId: code,
    checkIn,
    nights: 1,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
  });
  const step = () => runBookingStep(ports, bookingId, { signal: AbortSignal.timeout(30_000), finalAttempt: false });
  expect((await step()).outcome).toBe('priceConfirmed');
  await bookBooking(ports, clientId, bookingId, { details, panToken });
  expect((await step()).outcome).toBe('finalPriceConsent');
  const shown = await db.query<{ final_price: unknown }>('SELECT final_price FROM bookings WHERE booking_id = $1', [bookingId]);
  await consentToFinalPrice(ports, clientId, bookingId, { finalPrice: shown.rows[0]?.final_price });
  return bookingId;
}

const statusOf = async (bookingId: string) =>
  JSON.parse(await findBookingStatusText({ pool: db }, clientId, bookingId)) as {
    stage: string;
    orderReference: string;
    error: { code: string; message: string } | null;
  };

beforeAll(async () => {
  database = await createTestDatabase('bookings-outcome-unknown');
  testRedis = createTestRedis('bookings-outcome-unknown');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  vault = createCardVault({ db, redis, vaultKey, prefix: testRedis.prefix });
  hotel = await startOpenTravelHotel();
  ({ clientId } = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] }));
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await hotel?.close();
  await queues?.close();
  redis?.disconnect();
  await db?.end();
  await testRedis?.cleanup();
  await database?.drop();
});

describe('an order whose outcome is unknown', () => {
  it("keeps the order's unreadable answer as the first cause, across runs, and names the reference to quote to the hotel", async () => {
    const bookingId = await consentedBooking('H-AVAIL-ONLY');
    // The first run sends the order, cannot read the answer, cannot read the reservation either:
    // not its final attempt, the job is tried again.
    await expect(runBookingStep(workerPorts(), bookingId, { signal: AbortSignal.timeout(30_000), finalAttempt: false })).rejects.toThrow(
      /could not read|not an OTA_ResRetrieveRS/,
    );
    const last = await runBookingStep(workerPorts(), bookingId, { signal: AbortSignal.timeout(30_000), finalAttempt: true });
    expect(last.outcome).toBe('failed BookingOutcomeUnknown');
    expect(stepLogLevel(last)).toBe('warn');
    const status = await statusOf(bookingId);
    const reference = (await db.query<{ reference: string }>('SELECT reference FROM bookings WHERE booking_id = $1', [bookingId])).rows[0]
      ?.reference;
    expect(status.orderReference).toBe(reference);
    expect(status.error?.code).toBe('BookingOutcomeUnknown');
    const message = status.error?.message ?? '';
    // First what happened to the order, then what the hotel said when asked, then what to do.
    expect(message).toMatch(
      /^The order may have reached the hotel: the order's request ended without an answer that could be read \(the answer is not an OTA_HotelResRS\), and asking the hotel for it by our reference failed too \(the answer is not an OTA_ResRetrieveRS\)/,
    );
    expect(message).toContain(`under our reference ${reference}`);
    expect(message).not.toMatch(/run stopped/);
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-AVAIL-ONLY')).toHaveLength(1);
  });

  it('a step that ends otherwise is logged at info', () => {
    expect(stepLogLevel({ bookingId: 'b', work: 'placeOrder', outcome: 'bookingConfirmed' })).toBe('info');
    expect(stepLogLevel({ bookingId: 'b', work: 'placeOrder', outcome: 'failed PaymentRejected' })).toBe('info');
  });
});
