import { bookingPageRecipes, createBrowserBookingEngine, type BookingBrowser, type BookingPageRecipe } from '@quarry/bookings';
import { startDemoCheckoutSites, type DemoCheckoutSites } from '@quarry/demo';
import { createChromiumPool, type ChromiumPool } from '@quarry/browser';
import { bookingEngineRecipes, type HotelRow } from '@quarry/rates';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The booking-page engine's checkout on its own, in real Chromium against the demo engine: opened by
 * the recipe's entry address (no search), and, for an engine without one, by searching and clicking
 * the rate. Both reach the same final-price page and order once. The price check searches in a kept
 * page of the site, which no checkout gets. Contexts come from a bookings lane of the process's pool.
 */
const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;
const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
let sites: DemoCheckoutSites;
let pool: ChromiumPool;

const demo = bookingPageRecipes(bookingEngineRecipes)['demo-ibe'] as BookingPageRecipe & {
  checkout: NonNullable<BookingPageRecipe['checkout']>;
};
const { entry, ...searchingCheckout } = demo.checkout;
const recipes = { 'demo-ibe': demo, 'demo-ibe-searching': { ...demo, checkout: searchingCheckout } };

/** The process's bookings lane, telling which contexts each kind of use ran in. */
const used = { contexts: [] as BrowserContext[], kept: [] as BrowserContext[] };
const contexts = (): BookingBrowser => {
  const lane = pool.lane(3, 2);
  return {
    withContext: (work) =>
      lane.withContext(async (context) => {
        used.contexts.push(context);
        return work(context);
      }),
    withKeptContext: (key, limits, work) =>
      lane.withKeptContext(key, limits, async (context) => {
        used.kept.push(context);
        return work(context);
      }),
  };
};
const engine = () => createBrowserBookingEngine({ browser: contexts(), checkUrl: async () => {}, timeoutMs: 15_000, recipes });

const hotel = (code: string, recipe: keyof typeof recipes): HotelRow => ({
  hotelId: code,
  name: code,
  ibe: 'demo-ibe',
  address: '',
  countryCode: 'pt',
  bookingServiceId: null,
  guests: [2],
  bookingPageUrl: sites.engineUrl(`/engine/search.html?hotel=${code}`),
  source: { kind: 'booking-page', engine: recipe },
});

const request = (reference: string) => ({
  reference,
  stay: { checkIn, nights: 2, guests: 2 },
  roomId: 'DBL',
  rateId: 'DBL:FLEX',
  mainGuest: { firstName: 'Ada', lastName: 'Lovelace' },
  otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }],
  contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' },
  card: async () => ({ pan: '4111111111111111', expiryMonth: 12, expiryYear: 2030, name: 'Ada Lovelace', cvv: '123' }),
});

beforeAll(async () => {
  sites = await startDemoCheckoutSites(() => ({
    state: 'rooms',
    currency: 'EUR',
    rooms: [
      {
        code: 'DBL',
        name: 'Double room',
        description: '',
        maxGuests: 2,
        rates: [
          {
            code: 'FLEX',
            name: 'Flexible',
            total: euros(15_000),
            cancellation: 'Non-refundable',
            charges: [{ kind: 'tax', code: 'vat', name: 'VAT', amount: euros(1_500) }],
          },
        ],
      },
    ],
  }));
  pool = createChromiumPool({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell', recycleAfterJobs: 100 });
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await sites?.close();
});

describe('the booking-page checkout', () => {
  it.each([
    ['by the entry address, without a search', 'ENTRY', 'demo-ibe', 0],
    ['by searching and clicking the rate (an engine without an entry address)', 'SEARCH', 'demo-ibe-searching', 1],
  ] as const)(
    '%s: the final price, one order with our reference',
    async (_, code, recipe, searches) => {
      expect(entry).toBeDefined();
      const outcome = await engine().checkout.withCheckout(
        hotel(code, recipe),
        request(`Q-${code}`),
        new AbortController().signal,
        async (held) => {
          const price = await held.finalPrice();
          expect(price.total).toEqual({ currencyCode: 'eur', value: 16_500 });
          return held.placeOrder(price.total);
        },
      );
      const orders = sites.orders.filter((order) => order.hotel === code);
      expect(outcome).toEqual({
        status: 'confirmed',
        confirmation: { reference: orders[0]?.confirmationNumber, price: { currencyCode: 'eur', value: 16_500 } },
      });
      expect(orders).toHaveLength(1);
      expect(orders[0]).toMatchObject({ reference: `Q-${code}`, otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }] });
      expect(sites.searches.get(code) ?? 0).toBe(searches);
    },
    60_000,
  );
});

describe('the booking-page price check', () => {
  it('searches again in the page of the last price check of the site, cleared of its cookies; a checkout never uses it', async () => {
    used.contexts.length = 0;
    used.kept.length = 0;
    const prices = engine();
    const stay = { checkIn, nights: 2, guests: 2 };
    const first = await prices.reprice(hotel('KEPT-A', 'demo-ibe'), stay, new AbortController().signal);
    expect(first).toMatchObject({ ok: true });
    const [kept] = used.kept;
    const [page] = kept?.pages() ?? [];
    await kept?.addCookies([{ name: 'session', value: 'of the last search', url: sites.engineUrl('/') }]);
    await page?.evaluate(() =>
      (globalThis as unknown as { localStorage: { setItem(name: string, value: string): void } }).localStorage.setItem(
        'stay',
        'of the last search',
      ),
    );
    // Another hotel of the same engine and site, and the checkout of the first in between.
    await prices.checkout.withCheckout(hotel('KEPT-A', 'demo-ibe'), request('Q-KEPT'), new AbortController().signal, async (held) =>
      held.finalPrice(),
    );
    expect(await prices.reprice(hotel('KEPT-B', 'demo-ibe'), stay, new AbortController().signal)).toEqual(first);
    expect(used.kept).toEqual([kept, kept]);
    expect(kept?.pages()).toEqual([page]);
    expect(await kept?.cookies()).toEqual([]);
    expect(await page?.evaluate(() => (globalThis as unknown as { localStorage: { length: number } }).localStorage.length)).toBe(0);
    expect(used.contexts).toHaveLength(1);
    expect(used.contexts).not.toContain(kept);
    expect(sites.searches.get('KEPT-B')).toBe(1);
  }, 60_000);

  it('searches in another page when the kept one can no longer be cleared', async () => {
    used.kept.length = 0;
    const prices = engine();
    const stay = { checkIn, nights: 2, guests: 2 };
    const first = await prices.reprice(hotel('KEPT-C', 'demo-ibe'), stay, new AbortController().signal);
    // The site took the page somewhere its storage cannot be reached.
    await used.kept[0]?.pages()[0]?.goto('about:blank');
    expect(await prices.reprice(hotel('KEPT-C', 'demo-ibe'), stay, new AbortController().signal)).toEqual(first);
    expect(used.kept).toHaveLength(3);
    expect(used.kept[2]).not.toBe(used.kept[0]);
  }, 60_000);
});
