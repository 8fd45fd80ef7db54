import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startOpenTravelHotel,
  waitFor,
  type OpenTravelHotel,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBookingsWorker, type BookingsWorker } from './support/bookings-stack.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';
import { startTcpCut } from './support/tcp-cut.ts';
import { testCardToken } from './support/test-cards.ts';

/**
 * An order is placed with the hotel at most once: a real bookings-worker SIGKILLed after the hotel
 * received `OTA_HotelResRQ` and before the answer was recorded; the restarted worker asks the
 * hotel by our reference instead of ordering again. And a worker that is paused (SIGSTOP) or cut
 * off from Redis while a hotel that commits the order only when it answers takes its time: BullMQ
 * runs the step again on another worker, which must neither order again nor call the order
 * unknown before the hotel could answer (ADR 0048).
 */
const secretKey = Buffer.alloc(32, 10);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let hotel: OpenTravelHotel;
let api: QuarryProcess;
let env: Record<string, string>;
const workers: BookingsWorker[] = [];
let base: string;
let authorization: string;
const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as {
    bookingId: string;
    stage: string;
    finalPrice: unknown;
    error: { code: string } | null;
    confirmation: { reference: string } | null;
  };
}

const untilStage = (bookingId: string, ...stages: string[]) =>
  waitFor(
    `booking ${bookingId} to reach ${stages.join(' or ')}`,
    async () => {
      const current = await call('GET', `/book/${bookingId}`);
      return stages.includes(current.stage) ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );

async function addHotel(
  code: string,
  clientId: string,
  setup: Parameters<OpenTravelHotel['hotels']['set']>[1] = { price: '80.00', holdOrders: true },
) {
  hotel.hotels.set(code, setup);
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, code]);
}

/** Books and consents until the hotel received the order (and recorded as being placed); the worker that sent it is the last one started. */
async function orderUntilTheHotelHasIt(code: string): Promise<string> {
  const created = await call('POST', '/v1/bookings', { hotelId: code, checkIn, nights: 1, guests: 2, roomId: 'STD', rateId: 'STD:FLEX' });
  await untilStage(created.bookingId, 'priceConfirmed');
  await call('POST', `/book/${created.bookingId}`, {
    details: {
      mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
      otherGuests: [],
      contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
    },
    panToken: testCardToken('visa'),
  });
  const quoted = await untilStage(created.bookingId, 'finalPriceConsent');
  await call('POST', `/book/${created.bookingId}/consent`, { finalPrice: quoted.finalPrice });
  await waitFor('the hotel to receive the order', () => hotel.orders.some((order) => order.hotelCode === code), { timeoutMs: 30_000 });
  const row = await db.query<{ order_state: string | null }>('SELECT order_state FROM bookings WHERE booking_id = $1', [created.bookingId]);
  expect(row.rows[0]?.order_state).toBe('placing');
  return created.bookingId;
}

/** Books until the hotel holds the order's answer, then SIGKILLs the worker that sent it. */
async function killAfterTheOrderReachedTheHotel(code: string): Promise<string> {
  const bookingId = await orderUntilTheHotelHasIt(code);
  const worker = workers.at(-1);
  worker?.child.kill('SIGKILL');
  await worker?.exited;
  return bookingId;
}

async function stopAllWorkers() {
  for (const worker of workers.splice(0)) {
    worker.child.kill('SIGCONT');
    worker.child.kill('SIGKILL');
    await worker.exited;
  }
}

beforeAll(async () => {
  database = await createTestDatabase('bookings-crash');
  redis = createTestRedis('bookings-crash');
  db = createPool(database.url, 2);
  hotel = await startOpenTravelHotel();
  // An order's answer may come until its request's timeout: 20 s here.
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    JOB_LOCK_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
    BOOKING_SOURCE_TIMEOUT_MS: '20000',
  };
  api = await startQuarry('api', env);
  base = `http://127.0.0.1:${api.port}`;
  const client = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] });
  authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
  await addHotel('H-CRASH', client.clientId);
  await addHotel('H-FORGETS', client.clientId);
  // Hotels that commit an order only when they answer it, which the test lets them do.
  await addHotel('H-SLOW-PAUSED', client.clientId, { price: '80.00', commitOnRelease: true });
  await addHotel('H-SLOW-CUT', client.clientId, { price: '80.00', commitOnRelease: true });
}, 60_000);

afterAll(async () => {
  for (const worker of workers) {
    worker.child.kill('SIGCONT');
    worker.child.kill('SIGKILL');
  }
  api?.child.kill('SIGKILL');
  await hotel?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('an order is placed at most once', () => {
  it('SIGKILL after the hotel received OTA_HotelResRQ: the restarted worker finds the reservation by our reference, one order in all', async () => {
    workers.push(await startBookingsWorker(env));
    const bookingId = await killAfterTheOrderReachedTheHotel('H-CRASH');
    // The hotel made the reservation; its answer goes to a dead connection.
    hotel.releaseOrders();
    workers.push(await startBookingsWorker(env));
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.stage).toBe('bookingConfirmed');
    expect(done.confirmation?.reference).toMatch(/^CNF-H-CRASH-/);
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-CRASH')).toHaveLength(1);
    expect([...hotel.reservations.values()].filter((reservation) => reservation.hotelCode === 'H-CRASH')).toHaveLength(1);
    expect(hotel.requests.get('OTA_ReadRQ')).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('a hotel that cannot find the order by our reference: BookingOutcomeUnknown, never a second order', async () => {
    const bookingId = await killAfterTheOrderReachedTheHotel('H-FORGETS');
    for (const [reference, reservation] of hotel.reservations)
      if (reservation.hotelCode === 'H-FORGETS') hotel.reservations.delete(reference);
    hotel.releaseOrders();
    workers.push(await startBookingsWorker(env));
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.error?.code).toBe('BookingOutcomeUnknown');
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-FORGETS')).toHaveLength(1);
  }, 120_000);

  it('a worker paused while a slow hotel commits the order: the worker that re-runs the step waits for the answer and confirms; one order', async () => {
    await stopAllWorkers();
    workers.push(await startBookingsWorker(env));
    const bookingId = await orderUntilTheHotelHasIt('H-SLOW-PAUSED');
    // Paused (a long GC, a frozen VM): its queue lock and its order lease lapse while the hotel works.
    const paused = workers[0];
    paused?.child.kill('SIGSTOP');
    const reads = hotel.requests.get('OTA_ReadRQ') ?? 0;
    workers.push(await startBookingsWorker(env));
    // The worker that took the step over asked the hotel, which has no reservation yet: that is no answer.
    await waitFor('the step to run again and ask the hotel', () => (hotel.requests.get('OTA_ReadRQ') ?? 0) > reads, { timeoutMs: 30_000 });
    hotel.releaseOrders();
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.stage, JSON.stringify(done.error)).toBe('bookingConfirmed');
    expect(done.confirmation?.reference).toMatch(/^CNF-H-SLOW-PAUSED-/);
    paused?.child.kill('SIGCONT');
    // The paused worker reads its own answer once it runs again: it changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await call('GET', `/book/${bookingId}`)).stage).toBe('bookingConfirmed');
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-SLOW-PAUSED')).toHaveLength(1);
  }, 120_000);

  it('a worker cut off from Redis while a slow hotel commits the order: the re-run waits for its live lease, and the first run records the answer; one order', async () => {
    await stopAllWorkers();
    const redisUrl = new URL(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const partition = await startTcpCut({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    try {
      workers.push(await startBookingsWorker({ ...env, REDIS_URL: `redis://127.0.0.1:${partition.port}` }));
      const bookingId = await orderUntilTheHotelHasIt('H-SLOW-CUT');
      // Its lock lapses in Redis (BullMQ runs the step again elsewhere); it still reaches Postgres and the hotel.
      partition.cut();
      workers.push(await startBookingsWorker(env));
      // The new worker took the step over once its job waits (delayed) or the booking ended.
      const { seq } = (await db.query<{ seq: number }>('SELECT seq FROM bookings WHERE booking_id = $1', [bookingId])).rows[0] as {
        seq: number;
      };
      const connection = createRedis(redis.url);
      const queues = createJobQueues({ connection, prefix: redis.prefix });
      try {
        await waitFor(
          'the step to run again elsewhere',
          async () => {
            if ((await call('GET', `/book/${bookingId}`)).stage === 'failed') return true;
            return (
              (await (await queues.queue('bookings.step').getJob(`booking-${bookingId}-${seq}`))?.getState()) === 'delayed' || undefined
            );
          },
          { timeoutMs: 30_000, intervalMs: 100 },
        );
      } finally {
        await queues.close();
        connection.disconnect();
      }
      hotel.releaseOrders();
      const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
      expect(done.stage, JSON.stringify(done.error)).toBe('bookingConfirmed');
      expect(done.confirmation?.reference).toMatch(/^CNF-H-SLOW-CUT-/);
      // The first run, cut off from its queue, recorded the hotel's answer itself.
      expect(workers[0]?.output()).toContain('"outcome":"bookingConfirmed"');
      expect(hotel.orders.filter((order) => order.hotelCode === 'H-SLOW-CUT')).toHaveLength(1);
    } finally {
      partition.heal();
      await stopAllWorkers();
      await partition.close();
    }
  }, 120_000);
});
