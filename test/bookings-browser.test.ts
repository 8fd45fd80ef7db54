import { mkdirSync } from 'node:fs';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { startDemoCheckoutSites, type DemoCheckoutSites, type EngineAvailability } from '@quarry/demo';
import {
  chromiumProcessesUnder,
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  waitFor,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBookingsWorker, type BookingsWorker } from './support/bookings-stack.ts';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';
import { testCardToken } from './support/test-cards.ts';

/**
 * Bookings on a hotel's own booking page, end to end in real Chromium: a `quarry` API process, a
 * bookings-worker process whose Chromium runs the demo engine's checkout (card fields in the
 * payment provider's cross-origin iframe, a final-price page, a 3-D Secure step posting a creq to
 * the issuer's ACS on a third origin), and a second Chromium here acting as the client's user who
 * completes the challenge from `GET /book/{id}/tds`.
 */
const secretKey = Buffer.alloc(32, 21);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let sites: DemoCheckoutSites;
let api: QuarryProcess;
let env: Record<string, string>;
const workers: BookingsWorker[] = [];
let base: string;
let authorization: string;
let userBrowser: Browser;

const checkIn = new Date(Date.now() + 25 * 86_400_000).toISOString().slice(0, 10);
/** The hotel's room price now (EUR cents), per hotel; VAT is 10 % of it. */
const prices = new Map<string, number>();
const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;

function availability(hotel: string): EngineAvailability {
  const price = prices.get(hotel);
  if (price === undefined) return { state: 'unknown' };
  const rate = (code: string, name: string, cents: number) => ({
    code,
    name,
    total: euros(cents),
    cancellation: 'Non-refundable',
    charges: [{ kind: 'tax' as const, code: 'vat', name: 'VAT', amount: euros(Math.round(cents / 10)) }],
  });
  return {
    state: 'rooms',
    currency: 'EUR',
    rooms: [
      {
        code: 'DBL',
        name: 'Double room',
        description: 'Queen bed, courtyard',
        maxGuests: 4,
        rates: [rate('FLEX', 'Flexible', price), rate('SAVER', 'Saver', price - 1000)],
      },
      { code: 'STE', name: 'Suite', description: 'Sea view', maxGuests: 4, rates: [rate('FLEX', 'Flexible', price + 9000)] },
    ],
  };
}

type Status = {
  bookingId: string;
  stage: string;
  error: { code: string; message: string } | null;
  finalPrice: { total: { value: number } } | null;
  availableRooms: Array<{ roomId: string; rates: Array<{ rateId: string; price: { total: { value: number } } }> }> | null;
  confirmation: { reference: string; price: { value: number } } | null;
  tdsChallenge: { acsUrl: string; creq: string; threeDSSessionData?: string; windowSize: string; expiresAt: string } | null;
};

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Status }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Status };
}

const untilStage = (bookingId: string, ...stages: string[]) =>
  waitFor(
    `booking ${bookingId} to reach ${stages.join(' or ')}`,
    async () => {
      const current = (await call('GET', `/book/${bookingId}`)).json;
      return stages.includes(current.stage) ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 150 },
  );

async function addHotel(code: string, clientId: string, price: number) {
  prices.set(code, price);
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'demo-ibe', '1 Harbour St', 'pt', NULL, '{2,4}', $2, $3)`,
    [code, sites.engineUrl(`/engine/search.html?hotel=${code}`), JSON.stringify({ kind: 'booking-page', engine: 'demo-ibe' })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, code]);
}

const guests = (others: number) => ({
  mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
  otherGuests: [
    { firstName: 'Charles', lastName: 'Babbage' },
    { firstName: 'Mary', lastName: 'Somerville' },
    { firstName: 'Augustus', lastName: 'De Morgan' },
  ].slice(0, others),
  contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
});

/** Creates and books a rate; resolves on the final price the page showed. */
async function bookToFinalPrice(code: string, guestCount = 2) {
  const created = await call('POST', '/v1/bookings', {
    hotelId: code,
    checkIn,
    nights: 2,
    guests: guestCount,
    roomId: 'DBL',
    rateId: 'DBL:FLEX',
  });
  expect(created.status).toBe(201);
  const { bookingId } = created.json;
  expect((await untilStage(bookingId, 'priceConfirmed', 'roomSelection', 'failed')).stage).toBe('priceConfirmed');
  const booked = await call('POST', `/book/${bookingId}`, { details: guests(guestCount - 1), panToken: testCardToken('visa') });
  expect(booked.status, JSON.stringify(booked.json)).toBe(200);
  const quoted = await untilStage(bookingId, 'finalPriceConsent', 'failed');
  expect(quoted.stage, JSON.stringify(quoted.error)).toBe('finalPriceConsent');
  return { bookingId, quoted };
}

async function consent(bookingId: string, quoted: Status) {
  const consented = await call('POST', `/book/${bookingId}/consent`, { finalPrice: quoted.finalPrice });
  expect(consented.status, JSON.stringify(consented.json)).toBe(200);
}

/** The client's user, in their own browser: the client's page frames `/book/{id}/tds` (its server adds the credential). */
async function openChallenge(bookingId: string, viewport = { width: 1366, height: 768 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await userBrowser.newContext({ viewport });
  await context.route(`${base}/**`, (route) => route.continue({ headers: { ...route.request().headers(), authorization } }));
  const page = await context.newPage();
  const response = await page.goto(`${base}/book/${bookingId}/tds`);
  expect(response?.status()).toBe(200);
  await page.frameLocator('#tds-challenge').locator('#otp').waitFor();
  return { context, page };
}

const ordersOf = (code: string) => sites.orders.filter((order) => order.hotel === code);

beforeAll(async () => {
  database = await createTestDatabase('bookings-browser');
  redis = createTestRedis('bookings-browser');
  db = createPool(database.url, 2);
  sites = await startDemoCheckoutSites((hotel) => availability(hotel));
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    AUTH_CACHE_MS: '0',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    // The demo engine's sites and its issuer's ACS are on loopback over plain http:.
    ALLOW_LOOPBACK_HTTP_HOTELS: 'true',
    RATES_SOURCE_PER_SECOND: '0',
    RATES_SOURCE_CONCURRENCY: '20',
    RATES_PULL_DEADLINE_MS: '20000',
    BOOKING_TDS_TIMEOUT_MS: '15000',
    BOOKING_TDS_POLL_MS: '300',
    BOOKING_SWEEP_EVERY_MS: '500',
    BOOKING_SOURCE_TIMEOUT_MS: '20000',
    JOB_LOCK_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
    // A killed holder's checkout is handed on once its lease lapsed (60 s by default).
    BOOKING_CHECKOUT_LEASE_MS: '3000',
  };
  api = await startQuarry('api', env);
  base = `http://127.0.0.1:${api.port}`;
  const client = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking', 'hotels'] });
  authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
  for (const [code, price] of [
    ['PLAIN', 12_000],
    ['GUESTS', 15_000],
    ['TDS', 20_000],
    ['TDS-FAIL', 20_000],
    ['TDS-IDLE', 20_000],
    ['CHANGED', 30_000],
    ['LATE', 18_000],
    ['CRASH', 22_000],
    ['STOPPED', 16_000],
    ['SOLD', 14_000],
  ] as const) {
    await addHotel(code, client.clientId, price);
  }
  for (const code of ['TDS', 'TDS-FAIL', 'TDS-IDLE', 'CRASH']) sites.challengeHotels.add(code);
  workers.push(await startBookingsWorker(env));
  userBrowser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}, 90_000);

afterAll(async () => {
  await userBrowser?.close();
  for (const worker of workers) worker.child.kill('SIGKILL');
  api?.child.kill('SIGKILL');
  await sites?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('booking on a hotel’s own booking page', () => {
  it('without 3-D Secure: the final price from the page, consent, one order at the hotel, confirmed with its number', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('PLAIN');
    expect(quoted.finalPrice?.total).toEqual({ currencyCode: 'eur', value: 13_200 });
    // While the checkout holds its page (the card typed in the provider's frame): the worker's
    // Chromium has its sandbox on, runs as no root, and keeps each site in a renderer of its own.
    const processes = chromiumProcessesUnder(workers[0]?.child.pid);
    expect(processes.length).toBeGreaterThan(0);
    expect(processes.filter((process) => process.commandLine.includes('--no-sandbox'))).toEqual([]);
    expect(processes.filter((process) => process.uid === 0)).toEqual([]);
    expect(processes.some((process) => process.commandLine.includes('--site-per-process'))).toBe(true);
    const renderers = processes.filter((process) => process.type === 'renderer');
    expect(renderers.length).toBeGreaterThanOrEqual(2);
    expect(renderers.filter((renderer) => renderer.seccomp !== 2)).toEqual([]);
    await consent(bookingId, quoted);
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.stage, JSON.stringify(done.error)).toBe('bookingConfirmed');
    const orders = ordersOf('PLAIN');
    expect(orders).toHaveLength(1);
    expect(done.confirmation?.reference).toBe(orders[0]?.confirmationNumber);
    expect(orders[0]).toMatchObject({
      room: 'DBL',
      rate: 'FLEX',
      cardLast4: '1111',
      total: 'EUR 120.00 + EUR 12.00',
      mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
    });
    // The price check searched; the checkout opened the guest page by its address (the recipe's entry).
    expect(sites.searches.get('PLAIN')).toBe(1);
  });

  it('a rate sold between the price check and the checkout: RoomNotAvailable, nothing ordered', async () => {
    const created = await call('POST', '/v1/bookings', {
      hotelId: 'SOLD',
      checkIn,
      nights: 2,
      guests: 2,
      roomId: 'DBL',
      rateId: 'DBL:FLEX',
    });
    const { bookingId } = created.json;
    expect((await untilStage(bookingId, 'priceConfirmed', 'failed')).stage).toBe('priceConfirmed');
    prices.delete('SOLD');
    const booked = await call('POST', `/book/${bookingId}`, { details: guests(1), panToken: testCardToken('visa') });
    expect(booked.status, JSON.stringify(booked.json)).toBe(200);
    const done = await untilStage(bookingId, 'finalPriceConsent', 'failed');
    expect(done.error?.code, JSON.stringify(done.error)).toBe('RoomNotAvailable');
    expect(ordersOf('SOLD')).toHaveLength(0);
  });

  it('three otherGuests reach the hotel by name, with our reference', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('GUESTS', 4);
    await consent(bookingId, quoted);
    expect((await untilStage(bookingId, 'bookingConfirmed', 'failed')).stage).toBe('bookingConfirmed');
    const [order] = ordersOf('GUESTS');
    expect(order?.otherGuests).toEqual(guests(3).otherGuests);
    const row = await db.query<{ reference: string }>('SELECT reference FROM bookings WHERE booking_id = $1', [bookingId]);
    expect(order?.reference).toBe(row.rows[0]?.reference);
  });

  it('3-D Secure: the challenge is relayed, a second browser completes it from /book/{id}/tds, the booking confirms', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('TDS');
    await consent(bookingId, quoted);
    const awaiting = await untilStage(bookingId, 'awaitingTdsChallenge', 'failed', 'bookingConfirmed');
    expect(awaiting.stage, JSON.stringify(awaiting.error)).toBe('awaitingTdsChallenge');
    expect(awaiting.tdsChallenge).toMatchObject({ acsUrl: sites.acsUrl('/acs/challenge'), windowSize: '02' });
    // The headless checkout never reached the ACS: the order is still pending at the hotel.
    expect(ordersOf('TDS')[0]?.status).toBe('pending');
    const { context, page } = await openChallenge(bookingId);
    mkdirSync('test-results/screenshots', { recursive: true });
    await page.screenshot({ path: 'test-results/screenshots/bookings-tds-challenge-laptop.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: 'test-results/screenshots/bookings-tds-challenge-phone.png' });
    const challenge = page.frameLocator('#tds-challenge');
    await challenge.locator('#otp').fill(sites.otp);
    await challenge.locator('#otp-submit').click();
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.stage, JSON.stringify(done.error)).toBe('bookingConfirmed');
    expect(done.confirmation?.reference).toBe(ordersOf('TDS')[0]?.confirmationNumber);
    expect(ordersOf('TDS')).toHaveLength(1);
    // Opened here as a page of its own: what it tells a parent (its client's page only) is bookings-tds-page.test.ts.
    await context.close();
  });

  it('a challenge failed (wrong code): PaymentRejected', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('TDS-FAIL');
    await consent(bookingId, quoted);
    expect((await untilStage(bookingId, 'awaitingTdsChallenge', 'failed')).stage).toBe('awaitingTdsChallenge');
    const { context, page } = await openChallenge(bookingId);
    await page.frameLocator('#tds-challenge').locator('#otp').fill('000000');
    await page.frameLocator('#tds-challenge').locator('#otp-submit').click();
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.error?.code).toBe('PaymentRejected');
    await context.close();
  });

  it('a challenge left alone: TdsTimeout (the 3-D Secure timer shortened to 15 s)', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('TDS-IDLE');
    await consent(bookingId, quoted);
    expect((await untilStage(bookingId, 'awaitingTdsChallenge', 'failed')).stage).toBe('awaitingTdsChallenge');
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.error?.code).toBe('TdsTimeout');
  });

  it('a price changed between search and checkout: roomSelection with every room’s current prices', async () => {
    // The feed served 300.00 for this stay (a live pull stores it); the hotel's page now asks 330.00.
    const pulled = await fetch(`${base}/Pull/RatesFeed?hotelIds=CHANGED&checkIn=${checkIn}&nights=2&guests=2`, {
      headers: { authorization },
    });
    expect(pulled.status).toBe(200);
    await waitFor(
      'the feed to store the pulled rates',
      async () => ((await db.query("SELECT 1 FROM rate_results WHERE hotel_id = 'CHANGED'")).rowCount ?? 0) > 0,
      { timeoutMs: 30_000 },
    );
    prices.set('CHANGED', 33_000);
    const created = await call('POST', '/v1/bookings', {
      hotelId: 'CHANGED',
      checkIn,
      nights: 2,
      guests: 2,
      roomId: 'DBL',
      rateId: 'DBL:FLEX',
    });
    const selection = await untilStage(created.json.bookingId, 'roomSelection', 'priceConfirmed', 'failed');
    expect(selection.stage).toBe('roomSelection');
    expect(selection.availableRooms?.map((room) => [room.roomId, room.rates.map((rate) => [rate.rateId, rate.price.total.value])])).toEqual(
      [
        [
          'DBL',
          [
            ['DBL:FLEX', 36_300],
            ['DBL:SAVER', 35_200],
          ],
        ],
        ['STE', [['STE:FLEX', 46_200]]],
      ],
    );
  });

  it('a price changed after consent: PriceChangedAfterConsent, nothing ordered', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('LATE');
    prices.set('LATE', 19_000);
    await consent(bookingId, quoted);
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.error?.code).toBe('PriceChangedAfterConsent');
    expect(ordersOf('LATE')).toHaveLength(0);
  });

  it('screenshots of the demo checkout at laptop and phone widths', async () => {
    mkdirSync('test-results/screenshots', { recursive: true });
    for (const [name, viewport] of [
      ['laptop', { width: 1366, height: 768 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const context = await userBrowser.newContext({ viewport });
      const page = await context.newPage();
      await page.goto(sites.engineUrl(`/engine/checkout?hotel=PLAIN&checkin=${checkIn}&nights=2&adults=2&room=DBL&rate=FLEX`));
      await page.fill('#guest-first-name', 'Ada');
      await page.fill('#guest-last-name', 'Lovelace');
      await page.fill('#guest-email', 'ada@example.com');
      await page.fill('#guest-phone', '+44 20 7946 0000');
      await page.fill('#other-guest-1-first-name', 'Charles');
      await page.fill('#other-guest-1-last-name', 'Babbage');
      await page.screenshot({ path: `test-results/screenshots/bookings-checkout-guests-${name}.png`, fullPage: true });
      await page.click('#guest-continue');
      const card = page.frameLocator('#card-frame');
      await card.locator('#card-number').fill('4111 1111 1111 1111');
      await card.locator('#card-holder').fill('Ada Lovelace');
      await card.locator('#card-expiry').fill('12/30');
      await card.locator('#card-cvc').fill('123');
      await page.screenshot({ path: `test-results/screenshots/bookings-checkout-payment-${name}.png`, fullPage: true });
      await page.click('#payment-continue');
      await page.locator('#place-order').waitFor();
      await page.screenshot({ path: `test-results/screenshots/bookings-checkout-final-price-${name}.png`, fullPage: true });
      await context.close();
    }
  });

  it('a worker stopped with SIGTERM while the page awaits the consent: failed SystemUnavailable, nothing ordered', async () => {
    const { bookingId } = await bookToFinalPrice('STOPPED');
    const worker = workers.at(-1);
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    const done = await untilStage(bookingId, 'failed', 'bookingConfirmed');
    expect(done.error?.code).toBe('SystemUnavailable');
    expect(ordersOf('STOPPED')).toHaveLength(0);
    workers.push(await startBookingsWorker(env));
  });

  it('a worker SIGKILLed during the challenge wait: the next worker reads the reservation by our reference; one order, a definite outcome', async () => {
    const { bookingId, quoted } = await bookToFinalPrice('CRASH');
    await consent(bookingId, quoted);
    expect((await untilStage(bookingId, 'awaitingTdsChallenge', 'failed')).stage).toBe('awaitingTdsChallenge');
    const worker = workers.at(-1);
    worker?.child.kill('SIGKILL');
    await worker?.exited;
    // The card holder completes the challenge all the same; the issuer tells the hotel.
    const { context, page } = await openChallenge(bookingId);
    await page.frameLocator('#tds-challenge').locator('#otp').fill(sites.otp);
    await page.frameLocator('#tds-challenge').locator('#otp-submit').click();
    await waitFor('the hotel to confirm the order', () => ordersOf('CRASH')[0]?.status === 'confirmed', { timeoutMs: 10_000 });
    workers.push(await startBookingsWorker(env));
    const done = await untilStage(bookingId, 'bookingConfirmed', 'failed');
    expect(done.stage, JSON.stringify(done.error)).toBe('bookingConfirmed');
    expect(done.confirmation?.reference).toBe(ordersOf('CRASH')[0]?.confirmationNumber);
    expect(ordersOf('CRASH')).toHaveLength(1);
    await context.close();
  });
});
