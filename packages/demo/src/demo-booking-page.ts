import { readFileSync } from 'node:fs';
import { formatAmount, quoteStay } from './demo-prices.ts';
import { demoProperties } from './demo-properties.ts';

/**
 * The demo hotels' own booking page ("demo-ibe", the engine of the recipe of the same name): a
 * search form, a results page that script fills from an XHR, and the availability endpoint behind
 * it. It is where `/redirect` sends guests, and the source of the booking-page demo hotel.
 */
const page = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url));
export const bookingPages: Record<string, Buffer> = {
  '/booking/search.html': page('booking-search.html'),
  '/booking/results.html': page('booking-results.html'),
};

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

/** `GET /api/availability?hotel=&checkin=&nights=&adults=` as the results page asks it. */
export function answerAvailability(query: URLSearchParams): { status: number; body: unknown } {
  const checkIn = query.get('checkin') ?? '';
  const nights = Number(query.get('nights'));
  const guests = Number(query.get('adults'));
  if (!isoDate.test(checkIn) || !Number.isInteger(nights) || nights < 1 || nights > 30 || !Number.isInteger(guests) || guests < 1) {
    return { status: 400, body: { error: 'checkin (yyyy-mm-dd), nights (1-30) and adults (1 or more) are required' } };
  }
  const property = demoProperties[query.get('hotel') ?? ''];
  if (!property) return { status: 200, body: { state: 'unknown' } };
  const quotes = quoteStay(property, checkIn, nights, guests);
  if (quotes.length === 0) return { status: 200, body: { state: 'none' } };
  const money = (units: number) => `${property.currency} ${formatAmount(units, property.decimals)}`;
  const rooms = [...new Set(quotes.map((quote) => quote.room))].map((room) => ({
    code: room.code,
    name: room.name,
    description: room.description,
    maxGuests: room.maxGuests,
    rates: quotes
      .filter((quote) => quote.room === room)
      .map((quote) => ({
        code: quote.plan.code,
        name: quote.plan.name,
        total: money(quote.beforeTax),
        cancellation: quote.cancelUntil === null ? 'Non-refundable' : `Free cancellation until ${quote.cancelUntil} 18:00`,
        meal: quote.plan.breakfast ? 'breakfast' : 'room-only',
        charges: [
          { kind: 'tax', code: 'vat', name: 'VAT', amount: money(quote.vat) },
          { kind: 'tax', code: 'city-tax', name: 'City tax', amount: money(quote.cityTax) },
        ],
      })),
  }));
  return { status: 200, body: { state: 'rooms', currency: property.currency, rooms } };
}
