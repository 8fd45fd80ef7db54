import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import {
  bookBooking,
  consentToFinalPrice,
  createBooking,
  createOpenTravelBookingEngine,
  runBookingStep,
  type WorkerPorts,
} from '@quarry/bookings';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, enqueuer, RunLater } from '@quarry/jobs';
import { findGrantedHotelRow, findHotelRow } from '@quarry/rates';
import { createSafeFetch } from '@quarry/safe-fetch';
import {
  createTestDatabase,
  createTestRedis,
  startOpenTravelHotel,
  waitFor,
  type OpenTravelHotel,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { createCardVault, type CardVault } from '@quarry/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpCut, type TcpCut } from './support/tcp-cut.ts';

/**
 * The order of one booking when BullMQ runs its step twice at once (a worker paused or cut off
 * while its job's lock lapsed): real Postgres, Redis and card vault, the OpenTravel engine over
 * loopback to a hotel that commits an order only when it answers, and `runBookingStep` called as
 * the two workers would (ADR 0048).
 */
const secretKey = Buffer.alloc(32, 21);
const vaultKey = Buffer.alloc(32, 22);
const card = { pan: '4111111111111111', expiryMonth: 10, expiryYear: 2032, name: 'Dorothy Vaughan', cvv: '737' };
const details = {
  mainGuest: { firstName: 'Dorothy', lastName: 'Vaughan' },
  otherGuests: [],
  contact: { email: 'dorothy@example.com', phone: '+1 757 555 0100' },
};
const checkIn = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
const answerMs = 1_500;

let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: ReturnType<typeof createRedis>;
let hotel: OpenTravelHotel;
let vault: ReturnType<typeof createCardVault>;
let queues: ReturnType<typeof createJobQueues>;
let clientId: string;
const cleanups: Array<() => Promise<unknown>> = [];

function workerPorts(overrides: Partial<WorkerPorts> & { vault?: CardVault } = {}): WorkerPorts {
  const fetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], timeoutMs: 20_000 });
  cleanups.push(() => fetch.close());
  const pool = overrides.pool ?? db;
  return {
    pool,
    sealer: createSealer(secretKey),
    vault,
    findGrantedHotel: (client, hotelId) => findGrantedHotelRow(pool, client, hotelId),
    findHotel: (hotelId) => findHotelRow(pool, hotelId),
    storedRooms: async () => null,
    enqueueStep: enqueuer(queues, 'bookings.step'),
    enqueueNotify: enqueuer(queues, 'bookings.notify'),
    enqueueCheckout: enqueuer(queues, 'bookings.checkout'),
    engines: { opentravel: createOpenTravelBookingEngine({ fetch, timeoutMs: 20_000 }) },
    timers: {
      priceHoldMs: 900_000,
      inputTimeoutMs: 900_000,
      jobTimeoutMs: 3_600_000,
      tdsTimeoutMs: 600_000,
      tdsPollMs: 1_000,
      sourceTimeoutMs: 20_000,
    },
    fetchCallback: fetch,
    workerId: 'test-worker',
    checkoutLeaseMs: 60_000,
    orderLeaseMs: 1_000,
    ...overrides,
  } as WorkerPorts;
}

async function addHotel(code: string, setup: Parameters<OpenTravelHotel['hotels']['set']>[1]) {
  hotel.hotels.set(code, setup);
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, code]);
}

/** A card of the real vault (with its CVV), and a booking of it taken up to the consented order: its next step places the order. */
async function consentedBooking(code: string): Promise<string> {
  const ports = workerPorts();
  const otp = await vault.issueOtp(clientId);
  const { panToken } = await vault.storePan(clientId, { otp: otp.id, ...card });
  const { bookingId } = await createBooking({ ...ports, checkCallbackUrl: async () => undefined }, clientId, {
    hotelId: code,
    checkIn,
    nights: 1,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
  });
  const step = () => runBookingStep(ports, bookingId, { signal: AbortSignal.timeout(30_000), finalAttempt: false });
  expect((await step()).outcome).toBe('priceConfirmed');
  await bookBooking({ ...ports, checkCallbackUrl: async () => undefined }, clientId, bookingId, { details, panToken });
  expect((await step()).outcome).toBe('finalPriceConsent');
  const shown = await db.query<{ final_price: unknown }>('SELECT final_price FROM bookings WHERE booking_id = $1', [bookingId]);
  await consentToFinalPrice({ ...ports, checkCallbackUrl: async () => undefined }, clientId, bookingId, {
    finalPrice: shown.rows[0]?.final_price,
  });
  return bookingId;
}

const stage = async (bookingId: string) =>
  (
    await db.query<{ stage: string; error_code: string | null }>('SELECT stage, error_code FROM bookings WHERE booking_id = $1', [
      bookingId,
    ])
  ).rows[0];
const ordersOf = (code: string) => hotel.orders.filter((order) => order.hotelCode === code);
const context = () => ({ signal: AbortSignal.timeout(60_000), finalAttempt: false });

beforeAll(async () => {
  database = await createTestDatabase('bookings-order-lease');
  testRedis = createTestRedis('bookings-order-lease');
  db = createPool(database.url, 6);
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

describe("a booking's order when its step runs twice at once", () => {
  it('only the run that holds the order opens the card: the order the hotel receives carries the CVV, and it is sent once', async () => {
    await addHotel('H-RACE', { price: '120.00' });
    const bookingId = await consentedBooking('H-RACE');
    // The vault answers the first opening late: a run that opened the card without holding the
    // order would leave the other, winning run without the CVV.
    let opened = 0;
    const slowFirstOpen: CardVault = {
      ...vault,
      async openCard(token, use) {
        const opening = await vault.openCard(token, use);
        opened += 1;
        if (opened === 1) await sleep(500);
        return opening;
      },
    };
    const ports = workerPorts({ vault: slowFirstOpen });
    const runs = await Promise.allSettled([runBookingStep(ports, bookingId, context()), runBookingStep(ports, bookingId, context())]);
    const done = runs.filter((run) => run.status === 'fulfilled').map((run) => run.value.outcome);
    expect(done).toContain('bookingConfirmed');
    // The other run found the order held and waits for it, without spending an attempt.
    for (const run of runs) if (run.status === 'rejected') expect(run.reason).toBeInstanceOf(RunLater);
    expect(ordersOf('H-RACE')).toHaveLength(1);
    expect(ordersOf('H-RACE')[0]?.cvv).toBe(card.cvv);
    expect(opened).toBe(1);
    expect(await stage(bookingId)).toEqual({ stage: 'bookingConfirmed', error_code: null });
  });

  it('a second run while the first holds the order waits for it (RunLater) instead of reading the hotel too early; the first records the confirmation', async () => {
    await addHotel('H-HELD', { price: '130.00', commitOnAnswerAfterMs: answerMs });
    const bookingId = await consentedBooking('H-HELD');
    const first = runBookingStep(workerPorts(), bookingId, context());
    await waitFor('the hotel to receive the order', () => ordersOf('H-HELD').length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    const readsBefore = hotel.requests.get('OTA_ReadRQ') ?? 0;
    await expect(runBookingStep(workerPorts(), bookingId, context())).rejects.toBeInstanceOf(RunLater);
    expect(hotel.requests.get('OTA_ReadRQ') ?? 0).toBe(readsBefore);
    expect((await first).outcome).toBe('bookingConfirmed');
    expect(await stage(bookingId)).toEqual({ stage: 'bookingConfirmed', error_code: null });
    expect(ordersOf('H-HELD')).toHaveLength(1);
  });

  it("the first run's confirmation, arriving after another run recorded BookingOutcomeUnknown, replaces it", async () => {
    await addHotel('H-LATE', { price: '140.00', commitOnAnswerAfterMs: 4_000 });
    const bookingId = await consentedBooking('H-LATE');
    // The first run reaches Postgres through a link that is then cut: it cannot renew its lease,
    // while its request to the hotel goes on.
    const url = new URL(database.url);
    const link: TcpCut = await startTcpCut({ host: url.hostname, port: Number(url.port || 5432) });
    cleanups.push(() => link.close());
    url.port = String(link.port);
    const cutPool = createPool(url.toString(), 2);
    cleanups.push(() => cutPool.end());
    cleanups.push(async () => link.heal());
    const first = runBookingStep(workerPorts({ pool: cutPool }), bookingId, context());
    await waitFor('the hotel to receive the order', () => ordersOf('H-LATE').length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    link.cut();
    await sleep(1_500);
    // Another run takes the lapsed order; its clock says the first request's time is up, and the
    // hotel has nothing yet: the order's fate is unknown to it.
    const later = workerPorts({ now: () => new Date(Date.now() + 10 * 60_000) });
    expect((await runBookingStep(later, bookingId, context())).outcome).toBe('failed BookingOutcomeUnknown');
    expect(await stage(bookingId)).toEqual({ stage: 'failed', error_code: 'BookingOutcomeUnknown' });
    link.heal();
    expect((await first).outcome).toBe('bookingConfirmed');
    expect(await stage(bookingId)).toEqual({ stage: 'bookingConfirmed', error_code: null });
    expect(ordersOf('H-LATE')).toHaveLength(1);
  });
});
