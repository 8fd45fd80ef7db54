import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * The operators' Bookings view (read only) over bookings in every stage an operator meets, two
 * clients and two hotels, in Chromium at laptop and phone widths; and the Batches page of a
 * deployment without batches.
 */

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const secretKey = Buffer.alloc(32, 23);
const viewports = { laptop: { width: 1366, height: 768 }, phone: { width: 390, height: 844 } } as const;

let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let base: string;
let operator: { clientId: string; secret: string };
let travel: { clientId: string };
let agency: { clientId: string };

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

async function booking(row: {
  clientId: string;
  hotelId: string;
  stage: string;
  reference: string;
  errorCode?: string;
  errorMessage?: string;
  failedAt?: Date;
}): Promise<void> {
  const state = ['failed', 'cancelled', 'bookingConfirmed'].includes(row.stage)
    ? 'finished'
    : row.stage === 'priceCheck'
      ? 'started'
      : 'pending';
  await db.query(
    `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference, stage, state, error_code, error_message, failed_at)
     VALUES ($1, $2, $3, '2027-03-01', 2, 2, 'DBL', 'DBL:FLEX', $4, $5, $6, $7, $8, $9)`,
    [
      randomUUID(),
      row.clientId,
      row.hotelId,
      row.reference,
      row.stage,
      state,
      row.errorCode ?? null,
      row.errorMessage ?? null,
      row.failedAt ?? null,
    ],
  );
}

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(`${base}/dashboard`);
  await page.fill('#secret', operator.secret);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/dashboard$/);
  return page;
}

const cells = (page: Page, testId: string) =>
  page.evaluate(
    `Array.from(document.querySelectorAll('[data-testid=${testId}] tbody tr'), (row) => Array.from(row.querySelectorAll('td'), (cell) => cell.innerText.replace(/\\s+/g, ' ').trim()))`,
  ) as Promise<string[][]>;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  database = await createTestDatabase('dashboard-bookings');
  redis = createTestRedis('dashboard-bookings');
  db = createPool(database.url, 3);
  operator = await createClient({ db, secretKey }, { name: 'operator', scopes: ['admin'] });
  travel = await createClient({ db, secretKey }, { name: 'Northwind Travel', scopes: ['booking', 'hotels'] });
  agency = await createClient({ db, secretKey }, { name: 'Contoso Trips', scopes: ['booking', 'hotels'] });
  for (const [hotelId, name] of [
    ['harbour', 'Harbour View Hotel'],
    ['riverside', 'Riverside Inn'],
  ]) {
    await db.query(
      `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, guests, booking_page_url, source) VALUES ($1, $2, 'demo', '1 Quay St', 'gb', '{1,2}', 'https://book.example.com', '{"kind":"opentravel"}')`,
      [hotelId, name],
    );
  }
  await booking({ clientId: travel.clientId, hotelId: 'harbour', stage: 'bookingConfirmed', reference: 'QB-CONFIRMED-1' });
  await booking({ clientId: travel.clientId, hotelId: 'harbour', stage: 'finalPriceConsent', reference: 'QB-WAITING-1' });
  await booking({ clientId: agency.clientId, hotelId: 'riverside', stage: 'awaitingTdsChallenge', reference: 'QB-TDS-1' });
  await booking({
    clientId: travel.clientId,
    hotelId: 'harbour',
    stage: 'failed',
    reference: 'QB-UNKNOWN-1',
    failedAt: hoursAgo(1),
    errorCode: 'BookingOutcomeUnknown',
    errorMessage: "The hotel's answer to the order was unreadable; check with the hotel by reference QB-UNKNOWN-1",
  });
  await booking({
    clientId: agency.clientId,
    hotelId: 'riverside',
    stage: 'failed',
    reference: 'QB-REFUSED-1',
    failedAt: hoursAgo(2),
    errorCode: 'PaymentRefused',
    errorMessage: 'The card issuer refused the payment',
  });
  await booking({
    clientId: agency.clientId,
    hotelId: 'harbour',
    stage: 'failed',
    reference: 'QB-SOLD-1',
    failedAt: hoursAgo(3),
    errorCode: 'RoomNotAvailable',
    errorMessage: 'Sold out',
  });
  // Outside the 24 h window: counted by stage, not among the recent failures.
  await booking({
    clientId: agency.clientId,
    hotelId: 'harbour',
    stage: 'failed',
    reference: 'QB-OLD-1',
    failedAt: hoursAgo(72),
    errorCode: 'PaymentRefused',
    errorMessage: 'old',
  });
  for (const hours of [1, 5]) {
    await db.query(
      `INSERT INTO rate_source_failures (hotel_id, check_in, nights, guests, kind, reason, failed_at) VALUES ('riverside', '2027-03-01', 1, 2, 'SourceTimeout', $1, $2)`,
      [`no answer within 60000 ms (${hours} h ago)`, hoursAgo(hours)],
    );
  }
  api = await startQuarry('api', { ...quarryEnv({ database, redis, secretKey }), AUTH_CACHE_MS: '0' });
  base = `http://127.0.0.1:${api.port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  if (api && api.child.exitCode === null && api.child.signalCode === null) {
    api.child.kill('SIGKILL');
    await api.exited;
  }
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe("the operators' bookings view", () => {
  it('answers bookings by stage and by error code, the outcome-unknown and failed ones, and source failures per hotel', async () => {
    const response = await fetch(`${base}/v1/admin/bookings`, {
      headers: { authorization: `Basic ${Buffer.from(`${operator.secret}:`).toString('base64')}` },
    });
    expect(response.status).toBe(200);
    const overview = (await response.json()) as Record<string, unknown>;
    expect(overview).toMatchObject({
      hours: 24,
      byStage: [
        { stage: 'failed', count: 4 },
        { stage: 'awaitingTdsChallenge', count: 1 },
        { stage: 'bookingConfirmed', count: 1 },
        { stage: 'finalPriceConsent', count: 1 },
      ],
      byErrorCode: [
        { errorCode: 'BookingOutcomeUnknown', count: 1 },
        { errorCode: 'PaymentRefused', count: 1 },
        { errorCode: 'RoomNotAvailable', count: 1 },
      ],
      outcomeUnknown: [
        {
          reference: 'QB-UNKNOWN-1',
          hotelId: 'harbour',
          hotelName: 'Harbour View Hotel',
          clientId: travel.clientId,
          clientName: 'Northwind Travel',
          errorCode: 'BookingOutcomeUnknown',
        },
      ],
      recentFailures: [
        { reference: 'QB-REFUSED-1', hotelName: 'Riverside Inn', clientName: 'Contoso Trips', errorCode: 'PaymentRefused' },
        { reference: 'QB-SOLD-1', hotelName: 'Harbour View Hotel', clientName: 'Contoso Trips', errorCode: 'RoomNotAvailable' },
      ],
      // Most failures first.
      sourceFailuresByHotel: [
        {
          hotelId: 'riverside',
          hotelName: 'Riverside Inn',
          rateFailures: 2,
          failedBookings: 1,
          lastFailure: { kind: 'SourceTimeout', reason: 'no answer within 60000 ms (1 h ago)' },
        },
        { hotelId: 'harbour', hotelName: 'Harbour View Hotel', rateFailures: 0, failedBookings: 2, lastFailure: null },
      ],
    });
    const week = (await (
      await fetch(`${base}/v1/admin/bookings?hours=168`, {
        headers: { authorization: `Basic ${Buffer.from(`${operator.secret}:`).toString('base64')}` },
      })
    ).json()) as { byErrorCode: unknown };
    expect(week.byErrorCode).toContainEqual({ errorCode: 'PaymentRefused', count: 2 });
    // Operators only.
    const tenant = await createClient({ db, secretKey }, { name: 'tenant', scopes: ['booking'] });
    expect(
      (
        await fetch(`${base}/v1/admin/bookings`, {
          headers: { authorization: `Basic ${Buffer.from(`${tenant.secret}:`).toString('base64')}` },
        })
      ).status,
    ).toBe(403);
  });

  it.each(Object.entries(viewports))(
    'shows them on the Bookings page with client and hotel names, at %s width',
    async (width, viewport) => {
      const page = await signedIn(viewport);
      await page.goto(`${base}/dashboard#/bookings`);
      await page.locator('[data-testid=bookings-outcome-unknown]').waitFor();
      expect(await cells(page, 'bookings-by-stage')).toEqual([
        expect.arrayContaining([expect.stringMatching(/failed/), expect.stringMatching(/4$/)]),
        expect.arrayContaining([expect.stringMatching(/awaitingTdsChallenge/)]),
        expect.arrayContaining([expect.stringMatching(/bookingConfirmed/)]),
        expect.arrayContaining([expect.stringMatching(/finalPriceConsent/)]),
      ]);
      const unknown = (await cells(page, 'bookings-outcome-unknown')).map((row) => row.join(' | '));
      expect(unknown).toHaveLength(1);
      expect(unknown[0]).toMatch(/QB-UNKNOWN-1.*Harbour View Hotel.*Northwind Travel.*BookingOutcomeUnknown/);
      const failures = (await cells(page, 'bookings-failures')).map((row) => row.join(' | '));
      expect(failures).toEqual([
        expect.stringMatching(/QB-REFUSED-1.*Riverside Inn.*Contoso Trips.*PaymentRefused/),
        expect.stringMatching(/QB-SOLD-1.*Harbour View Hotel.*Contoso Trips.*RoomNotAvailable/),
      ]);
      expect((await page.locator('main').innerText()).includes(agency.clientId)).toBe(false);
      const sources = (await cells(page, 'bookings-source-failures')).map((row) => row.join(' | '));
      expect(sources[0]).toMatch(/Riverside Inn.*2.*1.*SourceTimeout: no answer within 60000 ms \(1 h ago\)/);
      expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${screenshots}dashboard-bookings-${width}.png`, fullPage: true });
      await page.context().close();
    },
  );

  it('opens the raw queue view without anything its page policy refuses, and nothing from another origin', async () => {
    const page = await signedIn(viewports.laptop);
    const refused: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== base) elsewhere.push(request.url());
    });
    await page.goto(`${base}/dashboard/queues/raw`);
    await page.getByText('bookings.step').first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(refused).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.screenshot({ path: `${screenshots}dashboard-queues-raw-laptop.png`, fullPage: true });
    await page.context().close();
  });

  it('says so on the Batches page when there are no batches, and names the client of each batch', async () => {
    const page = await signedIn(viewports.laptop);
    await page.locator('[data-testid=no-batches]').waitFor();
    expect(await page.locator('[data-testid=no-batches]').innerText()).toMatch(/^No batches yet/);
    await page.screenshot({ path: `${screenshots}dashboard-batches-empty-laptop.png`, fullPage: true });

    // A batch appears at the next refresh, its client named, its id on hover only.
    await db.query(
      `INSERT INTO batches (batch_id, client_id, state, jobs_count, processed_count, succeeded_count, employer, concurrency, rate_per_minute, finished_at)
       VALUES ($1, $2, 'finished', 3, 3, 3, 'Acme', 2, 60, now())`,
      [randomUUID(), travel.clientId],
    );
    const client = page.locator('td[data-label=Client]').first();
    await client.waitFor();
    expect(await client.innerText()).toBe('Northwind Travel');
    expect(await client.locator('span').getAttribute('title')).toBe(travel.clientId);
    await page.context().close();
  });
});
