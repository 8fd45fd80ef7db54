import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createBooking, relayBookingOutbox } from '@quarry/bookings';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createProducerRedis, createRedis, enqueuer } from '@quarry/jobs';
import { findGrantedHotelRow } from '@quarry/rates';
import {
  createTestDatabase,
  quarryEnv,
  startOpenTravelHotel,
  startPrivateRedis,
  waitFor,
  type OpenTravelHotel,
  type PrivateRedis,
  type TestDatabase,
} from '@quarry/testing';
import { noCardVault } from '@quarry/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBookingsWorker, type BookingsWorker } from './support/bookings-stack.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';
import { testCardToken } from './support/test-cards.ts';

/**
 * Commit, then enqueue (ADR 0048): a booking's change and what must follow it (the next step, the
 * callback) are one statement; Redis failing between the commit and the enqueue loses neither, and
 * the API answers the committed change instead of a 503 that says nothing was done.
 */
const secretKey = Buffer.alloc(32, 31);
const checkIn = new Date(Date.now() + 25 * 86_400_000).toISOString().slice(0, 10);
const details = {
  mainGuest: { firstName: 'Katherine', lastName: 'Johnson' },
  otherGuests: [],
  contact: { email: 'kj@example.com', phone: '+1 757 555 0101' },
};
let database: TestDatabase;
let db: Pool;
let hotel: OpenTravelHotel;
let clientId: string;
let secret: string;
const cleanups: Array<() => Promise<unknown>> = [];

async function addHotel(code: string) {
  hotel.hotels.set(code, { price: '95.00' });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, code]);
}

const outbox = async (bookingId: string) =>
  (
    await db.query<{ job_id: string; job: string }>('SELECT job_id, job FROM booking_outbox WHERE booking_id = $1 ORDER BY job_id', [
      bookingId,
    ])
  ).rows;

beforeAll(async () => {
  database = await createTestDatabase('bookings-outbox');
  db = createPool(database.url, 4);
  hotel = await startOpenTravelHotel();
  ({ clientId, secret } = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking'] }));
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await hotel?.close();
  await db?.end();
  await database?.drop();
});

describe('a booking change and its jobs', () => {
  it('are committed together: with Redis down, the booking is created and its step waits in the outbox until the relay enqueues it', async () => {
    await addHotel('H-OUTBOX');
    const redis: PrivateRedis = await startPrivateRedis({ appendOnly: true });
    cleanups.push(() => redis.remove());
    const prefix = 'qt-bookings-outbox-unit';
    // The API's producer connection: it fails at once while Redis is away.
    const producer = createProducerRedis(redis.url);
    const producerQueues = createJobQueues({ connection: producer, prefix });
    cleanups.push(async () => {
      await producerQueues.close();
      producer.disconnect();
    });
    await producerQueues.queue('bookings.step').getJobCounts();
    await redis.kill();
    const ports = {
      pool: db,
      sealer: createSealer(secretKey),
      vault: noCardVault,
      findGrantedHotel: (client: string, hotelId: string) => findGrantedHotelRow(db, client, hotelId),
      enqueueStep: enqueuer(producerQueues, 'bookings.step'),
      enqueueNotify: enqueuer(producerQueues, 'bookings.notify'),
      checkCallbackUrl: async () => undefined,
    };
    const created = await createBooking(ports, clientId, {
      hotelId: 'H-OUTBOX',
      checkIn,
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
      callbackUrl: 'https://hooks.example.com/quarry',
    });
    expect(created).toMatchObject({ stage: 'priceCheck', state: 'started' });
    expect(await outbox(created.bookingId)).toEqual([{ job_id: `booking-${created.bookingId}-0`, job: 'bookings.step' }]);

    // Redis answers again: the relay adds the job under the id the step would have had, once.
    await redis.start();
    const live = createRedis(redis.url);
    const liveQueues = createJobQueues({ connection: live, prefix });
    cleanups.push(async () => {
      await liveQueues.close();
      live.disconnect();
    });
    const relayPorts = {
      pool: db,
      enqueueStep: enqueuer(liveQueues, 'bookings.step'),
      enqueueNotify: enqueuer(liveQueues, 'bookings.notify'),
    };
    await waitFor('the relay to enqueue the step', async () => (await relayBookingOutbox(relayPorts)) > 0 || undefined, {
      timeoutMs: 5_000,
      intervalMs: 200,
    });
    const job = await liveQueues.queue('bookings.step').getJob(`booking-${created.bookingId}-0`);
    expect(job?.name).toBe('bookings.step');
    expect(await outbox(created.bookingId)).toEqual([]);
    expect(await relayBookingOutbox(relayPorts)).toBe(0);
  });

  it('through the API with Redis down: POST /v1/bookings and POST /book answer the committed booking, and its steps and callbacks follow once Redis is back', async () => {
    await addHotel('H-REDIS-DOWN');
    // Redis keeps what it had across the outage (append-only file), as an operator's does.
    const redis: PrivateRedis = await startPrivateRedis({ appendOnly: true });
    cleanups.push(() => redis.remove());
    const received: Array<{ id: string; stage: string }> = [];
    const receiver: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ id: String(request.headers['webhook-id']), stage: (JSON.parse(body) as { data: { stage: string } }).data.stage });
        response.writeHead(204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    cleanups.push(() => new Promise((resolve) => receiver.close(resolve)));
    const env = {
      ...quarryEnv({ database, redis: { url: redis.url, prefix: 'qt-bookings-outbox' }, secretKey }),
      AUTH_CACHE_MS: '0',
      ALLOW_PRIVATE_URLS: '127.0.0.1',
      RATES_SOURCE_PER_SECOND: '0',
    };
    const api: QuarryProcess = await startQuarry('api', env);
    cleanups.push(async () => api.child.kill('SIGKILL'));
    const worker: BookingsWorker = await startBookingsWorker(env);
    cleanups.push(async () => worker.child.kill('SIGKILL'));
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, text, json: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
    };
    const untilStage = (bookingId: string, wanted: string) =>
      waitFor(
        `booking ${bookingId} to reach ${wanted}`,
        async () => {
          const current = await call('GET', `/book/${bookingId}`);
          return current.json?.stage === wanted ? current.json : undefined;
        },
        { timeoutMs: 20_000, intervalMs: 200 },
      );

    await redis.kill();
    const created = await call('POST', '/v1/bookings', {
      hotelId: 'H-REDIS-DOWN',
      checkIn,
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
      callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    });
    expect(created.status, created.text).toBe(201);
    const bookingId = created.json?.bookingId as string;
    await redis.start();
    // Well inside the sweep's minute: the relay, not the sweep, enqueued it.
    await untilStage(bookingId, 'priceConfirmed');
    const calledBack = (...stages: string[]) =>
      waitFor(
        `callbacks of ${stages.join(', ')}`,
        () => stages.every((wanted) => received.some((callback) => callback.stage === wanted)) || undefined,
        { timeoutMs: 20_000, intervalMs: 200 },
      );
    // Delivered before Redis goes again: a job Redis itself loses (its last second unsynced) is another matter.
    await calledBack('priceConfirmed');

    await redis.kill();
    const booked = await call('POST', `/book/${bookingId}`, { details, panToken: testCardToken('visa') });
    expect(booked.status, booked.text).toBe(200);
    expect(booked.json).toMatchObject({ stage: 'processingBooking' });
    // That change's callback is signed with the booking's version (webhook-id `<booking>:<seq>`).
    const { seq } = (await db.query<{ seq: number }>('SELECT seq FROM bookings WHERE booking_id = $1', [bookingId])).rows[0] as {
      seq: number;
    };
    // A retry of an answered change is refused as such: the change is committed.
    expect((await call('POST', `/book/${bookingId}`, { details, panToken: testCardToken('visa') })).status).toBe(409);
    await redis.start();
    await untilStage(bookingId, 'finalPriceConsent');
    // The callback of the change made while Redis was down reached the client too (its body is the
    // booking as it is when sent, so it may already show the next stage).
    await waitFor(`the callback of change ${seq}`, () => received.some((callback) => callback.id === `${bookingId}:${seq}`) || undefined, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    await calledBack('finalPriceConsent');
    expect(await outbox(bookingId)).toEqual([]);
  });
});
