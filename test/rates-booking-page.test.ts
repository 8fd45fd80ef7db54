import { HotelRateResult } from '@quarry/contracts';
import { createChromiumLauncher } from '@quarry/browser';
import { bookingEngineRecipes, createBookingPageSource, createPushSender, type BookingEngineRecipe, type HotelRow } from '@quarry/rates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureBookingEngine, type EngineAnswer } from './fixture-booking-engine/server.ts';

/** The booking-page adapter drives fixture engine pages in the real Chromium of this machine. */
const chromium = createChromiumLauncher(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
const allowLoopback = createPushSender({ allowPrivate: ['127.0.0.1'] });
const allowNothing = createPushSender({ allowPrivate: [] });
let engine: Awaited<ReturnType<typeof startFixtureBookingEngine>>;

const answers: Record<string, EngineAnswer> = {
  KYOTO: {
    state: 'rooms',
    currency: 'JPY',
    rooms: [
      {
        code: 'WASHITSU',
        name: 'Japanese-style room',
        description: 'Tatami, futons, garden view',
        maxGuests: 3,
        rates: [
          {
            code: 'ONSEN-BF',
            name: 'Onsen plan with breakfast',
            total: '¥24,000',
            cancellation: 'Free cancellation until 2026-12-08 18:00',
            meal: 'breakfast',
            member: true,
            charges: [
              { kind: 'tax', code: 'city-tax', name: 'Accommodation tax', amount: '¥200' },
              { kind: 'tax', name: 'Bathing tax', amount: '¥150' },
              { kind: 'fee', code: 'service-fee', name: 'Service charge', amount: '¥2,400' },
            ],
          },
          { code: 'SAVER', name: 'Saver, room only', total: '¥19,800', cancellation: 'Non-refundable', meal: 'room-only', charges: [] },
        ],
      },
    ],
  },
  MANAMA: {
    state: 'rooms',
    currency: 'BHD',
    rooms: [
      {
        code: 'SUITE',
        name: 'Gulf suite',
        description: '',
        maxGuests: 2,
        rates: [
          {
            code: 'FLEX',
            name: 'Flexible',
            total: 'BD 95.125',
            cancellation: '',
            charges: [{ kind: 'tax', code: 'vat', name: 'VAT', amount: 'BD 9.513' }],
          },
        ],
      },
    ],
  },
  FULL: { state: 'none' },
  GONE: { state: 'unknown' },
  GROUPS: { state: 'adults' },
  BROKEN: {
    state: 'rooms',
    currency: 'USD',
    rooms: [
      {
        code: 'R',
        name: 'Room',
        description: '',
        maxGuests: 2,
        rates: [{ code: 'X', name: 'Call', total: 'Call us', cancellation: '', charges: [] }],
      },
    ],
  },
};

const hotel = (code: string, engineName = 'demo-ibe'): HotelRow => ({
  hotelId: code.toLowerCase(),
  name: code,
  ibe: engineName,
  address: '',
  countryCode: 'jp',
  bookingServiceId: null,
  guests: [1, 2],
  bookingPageUrl: engine.url(`/engine/search.html?hotel=${code}`),
  source: { kind: 'booking-page', engine: engineName },
});
const search = (code: string, guests = 2) => ({ hotelId: code.toLowerCase(), checkIn: '2026-12-10', nights: 2, guests });
const signal = () => new AbortController().signal;
const demo = bookingEngineRecipes['demo-ibe'] as BookingEngineRecipe;
const { results: resultsAddress, ...searchForm } = demo.search;
const formOnlyRecipes = { 'demo-ibe': { ...demo, search: searchForm } };

beforeAll(async () => {
  engine = await startFixtureBookingEngine((code) => answers[code] ?? { state: 'unknown' });
});

afterAll(async () => {
  await chromium.close();
  await allowLoopback.close();
  await allowNothing.close();
  await engine?.close();
});

describe('booking-page adapter in Chromium', () => {
  const source = () =>
    createBookingPageSource({
      browser: chromium.browser,
      recipes: bookingEngineRecipes,
      checkUrl: (url) => allowLoopback.check(url),
      timeoutMs: 15_000,
    });

  it.each([
    ['opens the engine’s results page by its address', bookingEngineRecipes, ['/engine/results.html']],
    [
      'fills the engine’s search form (an engine without a results address)',
      formOnlyRecipes,
      ['/engine/search.html', '/engine/results.html'],
    ],
  ])('%s and reads rooms and rates (JPY has no minor unit)', async (_, recipes, pages) => {
    expect(resultsAddress).toBeDefined();
    const pagesBefore = engine.pages.length;
    const outcome = await createBookingPageSource({
      browser: chromium.browser,
      recipes,
      checkUrl: (url) => allowLoopback.check(url),
      timeoutMs: 15_000,
    }).search(hotel('KYOTO'), search('KYOTO'), signal());
    expect(engine.pages.slice(pagesBefore).filter((path) => path.endsWith('.html'))).toEqual(pages);
    const query = engine.searches.at(-1);
    expect([query?.get('hotel'), query?.get('checkin'), query?.get('nights'), query?.get('adults')]).toEqual([
      'KYOTO',
      '2026-12-10',
      '2',
      '2',
    ]);
    expect(outcome).toEqual({
      ok: true,
      rooms: [
        {
          id: 'WASHITSU',
          name: 'Japanese-style room',
          description: 'Tatami, futons, garden view',
          occupancy: 3,
          rates: [
            {
              id: 'WASHITSU:ONSEN-BF',
              name: 'Onsen plan with breakfast',
              rule: 'member',
              mealPlan: 'breakfast',
              refundable: { available: true, untilDate: '2026-12-08', untilTime: '18:00' },
              baseRate: { currencyCode: 'jpy', value: 24000 },
              taxes: [
                { type: 'NamedPrice', name: 'Accommodation tax', code: 'city-tax', price: { currencyCode: 'jpy', value: 200 } },
                { type: 'NamedPrice', name: 'Bathing tax', code: 'other-taxes', price: { currencyCode: 'jpy', value: 150 } },
              ],
              fees: [{ type: 'NamedPrice', name: 'Service charge', code: 'service-fee', price: { currencyCode: 'jpy', value: 2400 } }],
            },
            {
              id: 'WASHITSU:SAVER',
              name: 'Saver, room only',
              mealPlan: 'room-only',
              refundable: { available: false },
              baseRate: { currencyCode: 'jpy', value: 19800 },
              taxes: [],
            },
          ],
        },
      ],
    });
    expect(outcome.ok && HotelRateResult.safeParse({ ...search('KYOTO'), rooms: outcome.rooms }).success).toBe(true);
  });

  it('reads three-decimal currencies exactly (BHD)', async () => {
    const outcome = await source().search(hotel('MANAMA'), search('MANAMA', 1), signal());
    expect(outcome.ok && outcome.rooms[0]?.rates[0]).toMatchObject({
      baseRate: { currencyCode: 'bhd', value: 95125 },
      taxes: [{ code: 'vat', price: { currencyCode: 'bhd', value: 9513 } }],
    });
    expect(engine.searches.at(-1)?.get('adults')).toBe('1');
  });

  it('reports the engine’s typed answers: no availability, hotel not on the engine, adults count refused', async () => {
    expect(await source().search(hotel('FULL'), search('FULL'), signal())).toMatchObject({ ok: false, kind: 'RoomsNotAvailable' });
    expect(await source().search(hotel('GONE'), search('GONE'), signal())).toMatchObject({ ok: false, kind: 'HotelNotOnIbe' });
    expect(await source().search(hotel('GROUPS'), search('GROUPS'), signal())).toMatchObject({
      ok: false,
      kind: 'AdultsCountNotSupported',
    });
    expect(await source().search(hotel('KYOTO', 'no-such-engine'), search('KYOTO'), signal())).toMatchObject({
      ok: false,
      kind: 'HotelNotOnIbe',
      reason: 'no recipe for engine no-such-engine',
    });
  });

  it('refuses to guess an unreadable price', async () => {
    expect(await source().search(hotel('BROKEN'), search('BROKEN'), signal())).toMatchObject({
      ok: false,
      kind: 'InvalidResult',
      reason: 'price "Call us" shows no amount',
    });
  });

  it('times out when the engine never shows results', async () => {
    const slowRecipes = {
      'demo-ibe': { ...bookingEngineRecipes['demo-ibe']!, results: { ...bookingEngineRecipes['demo-ibe']!.results, ready: '#never' } },
    };
    const slow = createBookingPageSource({
      browser: chromium.browser,
      recipes: slowRecipes,
      checkUrl: (url) => allowLoopback.check(url),
      timeoutMs: 1_500,
    });
    expect(await slow.search(hotel('KYOTO'), search('KYOTO'), signal())).toMatchObject({ ok: false, kind: 'Timeout' });
  });

  it('refuses a booking page on a private address without an allow-list entry, before any request', async () => {
    const before = engine.searches.length;
    const guarded = createBookingPageSource({
      browser: chromium.browser,
      recipes: bookingEngineRecipes,
      checkUrl: (url) => allowNothing.check(url),
      timeoutMs: 5_000,
    });
    const outcome = await guarded.search(hotel('KYOTO'), search('KYOTO'), signal());
    expect(outcome).toMatchObject({ ok: false, kind: 'SourceDown' });
    expect(!outcome.ok && outcome.reason).toMatch(/Refused to fetch from host "127.0.0.1"/);
    expect(engine.searches.length).toBe(before);
  });
});
