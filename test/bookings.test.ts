import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
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
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBookingsWorker, type BookingsWorker } from './support/bookings-stack.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';
import { testCardToken } from './support/test-cards.ts';

/**
 * Bookings end to end: a real `quarry` API process, a real bookings-worker process (its vault a
 * stand-in of our port), and a hotel's OpenTravel endpoint on loopback that keeps what it received.
 */
const secretKey = Buffer.alloc(32, 9);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let hotel: OpenTravelHotel;
let api: QuarryProcess;
let worker: BookingsWorker;
let base: string;
type Client = { clientId: string; secret: string };
let booker: Client;
let stranger: Client;

const checkIn = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
const details = {
  mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
  otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }],
  contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
};
type Status = {
  bookingId: string;
  state: string;
  stage: string;
  error: { code: string; message: string } | null;
  finalPrice: unknown;
  priceBreakdown: { total: { value: number } } | null;
  availableRooms: Array<{
    roomId: string;
    rates: Array<{ rateId: string; priceId: string; price: { total: { currencyCode: string; value: number } } }>;
  }> | null;
  confirmation: { reference: string; message?: string; price: { currencyCode: string; value: number } } | null;
  tdsChallenge: { acsUrl: string; creq: string; threeDSSessionData?: string; windowSize: string; expiresAt: string } | null;
  priceConfirmedUntil: string | null;
};

async function call(method: string, path: string, client: Client, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const status = async (bookingId: string, client = booker) => (await call('GET', `/book/${bookingId}`, client)).json as unknown as Status;
const untilStage = (bookingId: string, ...stages: string[]) =>
  waitFor(
    `booking ${bookingId} to reach ${stages.join(' or ')}`,
    async () => {
      const current = await status(bookingId);
      return stages.includes(current.stage) ? current : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );

async function addHotel(code: string, setup: Parameters<OpenTravelHotel['hotels']['set']>[1]) {
  hotel.hotels.set(code, setup);
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [booker.clientId, code]);
}

async function create(code: string, extra: Record<string, unknown> = {}) {
  const created = await call('POST', '/v1/bookings', booker, {
    hotelId: code,
    checkIn,
    nights: 2,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  return created.json as { bookingId: string; stage: string; state: string; webhookSecret?: string };
}

/** Creates, books and consents: the order goes to the hotel. */
async function bookThrough(code: string, card = testCardToken('visa')) {
  const { bookingId } = await create(code);
  await untilStage(bookingId, 'priceConfirmed');
  const booked = await call('POST', `/book/${bookingId}`, booker, { details, panToken: card });
  expect(booked.status, booked.text).toBe(200);
  const quoted = await untilStage(bookingId, 'finalPriceConsent', 'failed');
  expect(quoted.stage, JSON.stringify(quoted.error)).toBe('finalPriceConsent');
  const consent = await call('POST', `/book/${bookingId}/consent`, booker, { finalPrice: quoted.finalPrice });
  expect(consent.status, consent.text).toBe(200);
  return bookingId;
}

beforeAll(async () => {
  database = await createTestDatabase('bookings');
  redis = createTestRedis('bookings');
  db = createPool(database.url, 2);
  hotel = await startOpenTravelHotel();
  const env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    // The hotel double's issuer page is plain http: on loopback: GET /book shows its acsUrl only with this allowance.
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    RATES_SOURCE_PER_SECOND: '0',
    RATES_SOURCE_CONCURRENCY: '20',
    BOOKING_INPUT_TIMEOUT_MS: '8000',
    BOOKING_TDS_TIMEOUT_MS: '6000',
    BOOKING_TDS_POLL_MS: '200',
    BOOKING_SWEEP_EVERY_MS: '500',
  };
  api = await startQuarry('api', env);
  base = `http://127.0.0.1:${api.port}`;
  booker = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking', 'hotels'] });
  stranger = await createClient({ db, secretKey }, { name: 'other agency', scopes: ['booking'] });
  worker = await startBookingsWorker(env);
}, 60_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  api?.child.kill('SIGKILL');
  await hotel?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('bookings through an OpenTravel hotel', () => {
  it('books: the hotel receives every guest, the card and our reference; the client sees the confirmation', async () => {
    await addHotel('H-OK', { price: '90.00' });
    const { bookingId, stage, state } = await create('H-OK');
    expect({ stage, state }).toEqual({ stage: 'priceCheck', state: 'started' });
    const confirmed = await untilStage(bookingId, 'priceConfirmed');
    expect(confirmed.state).toBe('pending');
    expect(confirmed.priceBreakdown?.total).toEqual({ currencyCode: 'usd', value: 9_900 });
    expect(Date.parse(confirmed.priceConfirmedUntil ?? '')).toBeGreaterThan(Date.now());
    const token = testCardToken('visa');
    expect(
      (
        await call('POST', `/book/${bookingId}`, booker, {
          details: { ...details, otherGuests: [...details.otherGuests, { firstName: 'Mary', lastName: 'Somerville' }] },
          panToken: token,
        })
      ).status,
    ).toBe(200);
    const quoted = await untilStage(bookingId, 'finalPriceConsent');
    expect(quoted.finalPrice).toMatchObject({ total: { currencyCode: 'usd', value: 9_900 } });
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-OK')).toHaveLength(0);
    await call('POST', `/book/${bookingId}/consent`, booker, { finalPrice: quoted.finalPrice });
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.error).toBeNull();
    expect(done.state).toBe('finished');
    expect(done.confirmation).toEqual({
      reference: 'CNF-H-OK-1',
      message: 'Check-in from 15:00',
      price: { currencyCode: 'usd', value: 9_900 },
    });

    const [order, ...more] = hotel.orders.filter((received) => received.hotelCode === 'H-OK');
    expect(more).toHaveLength(0);
    expect(order).toMatchObject({
      guests: [
        { firstName: 'Ada', lastName: 'Lovelace' },
        { firstName: 'Charles', lastName: 'Babbage' },
        { firstName: 'Mary', lastName: 'Somerville' },
      ],
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      cardNumber: '4111111111111111',
      cvv: '123',
      total: '99.00',
      currency: 'USD',
      roomTypeCode: 'STD',
      ratePlanCode: 'FLEX',
      start: checkIn,
    });
    const row = await db.query<{ reference: string; order_state: string; pan_token_sealed: Buffer | null }>(
      'SELECT reference, order_state, pan_token_sealed FROM bookings WHERE booking_id = $1',
      [bookingId],
    );
    expect(order?.reference).toBe(row.rows[0]?.reference);
    expect(row.rows[0]).toMatchObject({ order_state: 'placed', pan_token_sealed: null });
    // Another client cannot see it; the token is never shown.
    expect((await call('GET', `/book/${bookingId}`, stranger)).status).toBe(404);
    expect(JSON.stringify(await status(bookingId))).not.toContain(token.slice(0, 40));
  });

  it('a changed price: roomSelection with every room, a priceId confirmed, then booked at that price', async () => {
    await addHotel('H-CHANGE', { price: '100.00' });
    // The feed served 110.00 for this stay; the hotel now asks 100.00 + VAT.
    const pulled = await call('GET', `/Pull/RatesFeed?hotelIds=H-CHANGE&checkIn=${checkIn}&nights=2&guests=2`, booker);
    expect(pulled.status, pulled.text).toBe(200);
    hotel.hotels.set('H-CHANGE', { price: '120.00' });
    const { bookingId } = await create('H-CHANGE');
    const selection = await untilStage(bookingId, 'roomSelection', 'priceConfirmed');
    expect(selection.stage).toBe('roomSelection');
    expect(selection.availableRooms?.map((room) => room.roomId)).toEqual(['STD', 'DLX']);
    const standard = selection.availableRooms?.[0]?.rates[0];
    expect(standard?.price.total).toEqual({ currencyCode: 'usd', value: 13_200 });
    const wrong = await call('POST', '/Booking/prices/confirm', booker, { bookingId, priceId: 'pr_nope' });
    expect(wrong.status).toBe(404);
    const picked = await call('POST', '/Booking/prices/confirm', booker, { bookingId, priceId: standard?.priceId });
    expect(picked.status, picked.text).toBe(200);
    expect(picked.json).toMatchObject({ stage: 'priceConfirmed', priceBreakdown: { total: { value: 13_200 } } });
    await call('POST', `/book/${bookingId}`, booker, { details, panToken: testCardToken('visa') });
    const quoted = await untilStage(bookingId, 'finalPriceConsent');
    await call('POST', `/book/${bookingId}/consent`, booker, { finalPrice: quoted.finalPrice });
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.confirmation?.price).toEqual({ currencyCode: 'usd', value: 26_400 / 2 });
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-CHANGE').map((order) => order.total)).toEqual(['132.00']);
  });

  it('sold out: at the price check, and when the hotel refuses the order', async () => {
    await addHotel('H-GONE', { price: '90.00', soldOut: true });
    const gone = await create('H-GONE');
    expect((await untilStage(gone.bookingId, 'failed', 'priceConfirmed', 'roomSelection')).error?.code).toBe('RoomNotAvailable');

    await addHotel('H-LAST', { price: '90.00', order: 'sold-out' });
    const bookingId = await bookThrough('H-LAST');
    const failed = await untilStage(bookingId, 'failed', 'bookingConfirmed');
    expect(failed.error?.code).toBe('RoomNotAvailable');
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-LAST')).toHaveLength(1);
  });

  it('a declined card ends PaymentRejected; an unknown token ends PanTokenInvalid before anything is sent', async () => {
    await addHotel('H-DECLINE', { price: '90.00', order: 'decline' });
    const declined = await untilStage(await bookThrough('H-DECLINE'), 'failed', 'bookingConfirmed');
    expect(declined.error?.code).toBe('PaymentRejected');

    await addHotel('H-NOCARD', { price: '90.00' });
    const unknown = await untilStage(await bookThrough('H-NOCARD', testCardToken('unknown')), 'failed', 'bookingConfirmed');
    expect(unknown.error?.code).toBe('PanTokenInvalid');
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-NOCARD')).toHaveLength(0);
  });

  it('3-D Secure: the challenge reaches the client, completing it at the issuer confirms the booking', async () => {
    await addHotel('H-TDS', { price: '90.00', order: 'tds' });
    const bookingId = await bookThrough('H-TDS');
    const awaiting = await untilStage(bookingId, 'awaitingTdsChallenge', 'failed');
    expect(awaiting.state).toBe('pending');
    const challenge = awaiting.tdsChallenge;
    expect(challenge).toMatchObject({ acsUrl: `${hotel.origin}/acs`, windowSize: '02' });
    expect(JSON.parse(Buffer.from(challenge?.creq ?? '', 'base64url').toString())).toMatchObject({ messageType: 'CReq' });
    expect(Date.parse(challenge?.expiresAt ?? '')).toBeGreaterThan(Date.now());
    // What the client's page does: POST creq and threeDSSessionData to the ACS in an iframe.
    const acs = await fetch(challenge?.acsUrl ?? '', {
      method: 'POST',
      body: new URLSearchParams({ creq: challenge?.creq ?? '', threeDSSessionData: challenge?.threeDSSessionData ?? '' }),
    });
    expect(acs.status).toBe(200);
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.confirmation?.reference).toMatch(/^CNF-H-TDS-/);
    expect(done.tdsChallenge).toBeNull();
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-TDS')).toHaveLength(1);
  });

  it('3-D Secure not completed in time ends TdsTimeout', async () => {
    await addHotel('H-TDS-IDLE', { price: '90.00', order: 'tds' });
    const bookingId = await bookThrough('H-TDS-IDLE');
    await untilStage(bookingId, 'awaitingTdsChallenge');
    const failed = await untilStage(bookingId, 'failed', 'bookingConfirmed');
    expect(failed.error?.code).toBe('TdsTimeout');
    // The hotel is not left holding the room of a booking its client was told failed.
    expect(failed.error?.message).toMatch(/the hotel cancelled the reservation it held pending the challenge/);
    const [order] = hotel.orders.filter((candidate) => candidate.hotelCode === 'H-TDS-IDLE');
    expect(hotel.reservations.get(order?.reference ?? '')).toMatchObject({ status: 'Cancelled', cancelReason: 'Cancelled by the booker' });
  });

  it('a consent that is not an exact copy of the final price is FinalPriceNotFound; nothing reaches the hotel', async () => {
    await addHotel('H-CONSENT', { price: '90.00' });
    const { bookingId } = await create('H-CONSENT');
    await untilStage(bookingId, 'priceConfirmed');
    await call('POST', `/book/${bookingId}`, booker, { details, panToken: testCardToken('visa') });
    const quoted = await untilStage(bookingId, 'finalPriceConsent');
    const finalPrice = quoted.finalPrice as { total: { currencyCode: string; value: number } };
    const refused = await call('POST', `/book/${bookingId}/consent`, booker, {
      finalPrice: { ...finalPrice, total: { ...finalPrice.total, value: finalPrice.total.value - 1 } },
    });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ object: 'error', name: 'FinalPriceNotFound' });
    expect((await status(bookingId)).stage).toBe('finalPriceConsent');
    const cancelled = await call('POST', `/book/${bookingId}/cancel`, booker);
    expect(cancelled.json).toMatchObject({ stage: 'cancelled', state: 'finished' });
    expect((await call('POST', `/book/${bookingId}/consent`, booker, { finalPrice })).status).toBe(409);
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-CONSENT')).toHaveLength(0);
  });

  it('a booking left waiting for the client ends InputTimeout (shortened timer)', async () => {
    await addHotel('H-IDLE', { price: '90.00' });
    const { bookingId } = await create('H-IDLE');
    await untilStage(bookingId, 'priceConfirmed');
    const failed = await untilStage(bookingId, 'failed');
    expect(failed.error?.code).toBe('InputTimeout');
    expect((await call('POST', `/book/${bookingId}`, booker, { details, panToken: testCardToken('visa') })).status).toBe(409);
  });

  it('skipConfirmation: the current prices of every room, nothing held or booked', async () => {
    await addHotel('H-SKIP', { price: '90.00' });
    const { bookingId } = await create('H-SKIP');
    await untilStage(bookingId, 'priceConfirmed');
    hotel.hotels.set('H-SKIP', { price: '95.00' });
    expect((await call('POST', `/book/${bookingId}`, booker, { skipConfirmation: true })).status).toBe(200);
    const survey = await untilStage(bookingId, 'roomSelection');
    expect(survey.availableRooms?.map((room) => [room.roomId, room.rates[0]?.price.total.value])).toEqual([
      ['STD', 10_450],
      ['DLX', 15_675],
    ]);
    expect(hotel.requests.get('OTA_HotelResRQ') ?? 0).toBe(hotel.orders.length);
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-SKIP')).toHaveLength(0);
  });

  it('refuses bad input with the standard error body naming the field', async () => {
    await addHotel('H-INPUT', { price: '90.00' });
    const { bookingId } = await create('H-INPUT');
    await untilStage(bookingId, 'priceConfirmed');
    const badToken = await call('POST', `/book/${bookingId}`, booker, { details, panToken: '4111111111111111' });
    expect(badToken.status).toBe(400);
    expect(badToken.json).toMatchObject({ object: 'error', name: 'RequestParametersValidationError' });
    expect(badToken.text).toContain('panToken');
    expect(badToken.text).not.toContain('4111111111111111');
    const unknownHotel = await call('POST', '/v1/bookings', stranger, {
      hotelId: 'H-INPUT',
      checkIn,
      nights: 1,
      guests: 2,
      roomId: 'STD',
      rateId: 'STD:FLEX',
    });
    expect(unknownHotel.status).toBe(404);
    const missing = await call('POST', '/v1/bookings', booker, { hotelId: 'H-INPUT', nights: 0 });
    expect(missing.status).toBe(400);
    expect((missing.json?.details as { messages: string[] }).messages.join(' ')).toMatch(/checkIn/);
  });

  it('callbacks: each stage change is POSTed signed per Standard Webhooks, and a refused one is retried', async () => {
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    let refuseNext = true;
    const receiver: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (refuseNext) {
          refuseNext = false;
          response.writeHead(503).end();
          return;
        }
        received.push({ headers: request.headers as Record<string, string>, body });
        response.writeHead(204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    try {
      await addHotel('H-HOOK', { price: '90.00' });
      const created = await create('H-HOOK', { callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` });
      expect(created.webhookSecret).toMatch(/^whsec_/);
      await untilStage(created.bookingId, 'priceConfirmed');
      await call('POST', `/book/${created.bookingId}/cancel`, booker);
      const events = await waitFor('both callbacks, the refused one again', () => (received.length >= 2 ? received : undefined), {
        timeoutMs: 30_000,
      });
      const verifier = new Webhook(created.webhookSecret ?? '');
      const stages = events.map((event) => {
        const payload = verifier.verify(event.body, event.headers) as { type: string; data: Status };
        expect(payload.type).toBe('booking.stageChanged');
        expect(event.headers['webhook-id']).toMatch(new RegExp(`^${created.bookingId}:\\d+$`));
        return payload.data.stage;
      });
      expect(stages).toContain('cancelled');
      expect(new Set(events.map((event) => event.headers['webhook-id'])).size).toBe(events.length);
      // A body altered on the way fails the signature.
      expect(() => verifier.verify(events[0]!.body.replace('stageChanged', 'stageChangeX'), events[0]!.headers)).toThrow();
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });

  it('refuses a callbackUrl on a private or metadata address before anything is stored', async () => {
    await addHotel('H-SSRF', { price: '90.00' });
    const before = await db.query('SELECT count(*)::int AS n FROM bookings');
    for (const callbackUrl of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.7/hooks', 'http://[::1]:8080/hooks']) {
      const refused = await call('POST', '/v1/bookings', booker, {
        hotelId: 'H-SSRF',
        checkIn,
        nights: 1,
        guests: 2,
        roomId: 'STD',
        rateId: 'STD:FLEX',
        callbackUrl,
      });
      expect(refused.status, callbackUrl).toBe(400);
      expect(refused.json).toMatchObject({ object: 'error', name: 'RequestParametersValidationError' });
      expect(JSON.stringify(refused.json)).toContain('callbackUrl: refused');
    }
    expect((await db.query('SELECT count(*)::int AS n FROM bookings')).rows[0]).toEqual(before.rows[0]);
  });
});
