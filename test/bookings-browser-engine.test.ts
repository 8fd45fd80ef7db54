import { createBrowserBookingEngine, type BookingBrowser } from '@quarry/bookings';
import { startDemoCheckoutSites, type DemoCheckoutSites } from '@quarry/demo';
import { bookingEngineRecipes, type BookingEngineRecipe, type HotelRow } from '@quarry/rates';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The booking-page engine's checkout on its own, in real Chromium against the demo engine: opened by
 * the recipe's entry address (no search), and, for an engine without one, by searching and clicking
 * the rate. Both reach the same final-price page and order once.
 */
const euros = (cents: number) => `EUR ${(cents / 100).toFixed(2)}`;
const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
let sites: DemoCheckoutSites;
let browser: Browser;

const demo = bookingEngineRecipes['demo-ibe'] as BookingEngineRecipe & { checkout: NonNullable<BookingEngineRecipe['checkout']> };
const { entry, ...searchingCheckout } = demo.checkout;
const recipes = { 'demo-ibe': demo, 'demo-ibe-searching': { ...demo, checkout: searchingCheckout } };

const contexts: BookingBrowser = {
  async withContext(work) {
    const context = await browser.newContext();
    try {
      return await work(context);
    } finally {
      await context.close();
    }
  },
};
const engine = () => createBrowserBookingEngine({ browser: contexts, checkUrl: async () => {}, timeoutMs: 15_000, recipes });

const hotel = (code: string, recipe: keyof typeof recipes): HotelRow => ({
  hotelId: code, name: code, ibe: 'demo-ibe', address: '', countryCode: 'pt', bookingServiceId: null, guests: [2],
  bookingPageUrl: sites.engineUrl(`/engine/search.html?hotel=${code}`), source: { kind: 'booking-page', engine: recipe },
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
    rooms: [{ code: 'DBL', name: 'Double room', description: '', maxGuests: 2, rates: [{ code: 'FLEX', name: 'Flexible', total: euros(15_000), cancellation: 'Non-refundable', charges: [{ kind: 'tax', code: 'vat', name: 'VAT', amount: euros(1_500) }] }] }],
  }));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sites?.close();
});

describe('the booking-page checkout', () => {
  it.each([
    ['by the entry address, without a search', 'ENTRY', 'demo-ibe', 0],
    ['by searching and clicking the rate (an engine without an entry address)', 'SEARCH', 'demo-ibe-searching', 1],
  ] as const)('%s: the final price, one order with our reference', async (_, code, recipe, searches) => {
    expect(entry).toBeDefined();
    const outcome = await engine().checkout.withCheckout(hotel(code, recipe), request(`Q-${code}`), new AbortController().signal, async (held) => {
      const price = await held.finalPrice();
      expect(price.total).toEqual({ currencyCode: 'eur', value: 16_500 });
      return held.placeOrder(price.total);
    });
    const orders = sites.orders.filter((order) => order.hotel === code);
    expect(outcome).toEqual({ status: 'confirmed', confirmation: { reference: orders[0]?.confirmationNumber, price: { currencyCode: 'eur', value: 16_500 } } });
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ reference: `Q-${code}`, otherGuests: [{ firstName: 'Charles', lastName: 'Babbage' }] });
    expect(sites.searches.get(code) ?? 0).toBe(searches);
  }, 60_000);
});
