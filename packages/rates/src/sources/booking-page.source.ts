import { feeCodes, mealPlans, taxCodes, type FeeCode, type MealPlan, type Rate, type Room, type TaxCode } from '@quarry/contracts';
import { guardRequests, waitForSelectorOnPage } from '@quarry/browser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { HotelRow } from '../hotels.queries.ts';
import type { BookingEngineRecipe, FieldRecipe, PageAddress } from './booking-engine-recipes.ts';
import { priceFromText } from './money.ts';
import { checkOutOf, failureOutcome, SourceFailure, type RateSearch, type RateSource, type SourceOutcome } from './rate-source.ts';

type RawCharge = { name: string | null; amount: string | null; kind: string | null; code: string | null };
type RawRate = {
  id: string | null;
  name: string | null;
  baseTotal: string | null;
  charges: RawCharge[];
  cancellation: string | null;
  mealPlan: string | null;
  memberOnly: string | null;
};
type RawRoom = { id: string | null; name: string | null; description: string | null; occupancy: string | null; rates: RawRate[] };
type RawPage = { state: 'rooms' | 'none' | 'hotel-unknown' | 'adults-refused'; currency: string | null; rooms: RawRoom[] };

/** Runs in the page: reads the raw strings the recipe points at. Kept free of closures (it is serialized). */
// The slice of the DOM readPage touches (the workspace compiles without the DOM library).
type PageElement = {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  getAttribute(name: string): string | null;
  textContent: string | null;
};

function readPage(results: BookingEngineRecipe['results']): RawPage {
  const document = (globalThis as unknown as { document: PageElement & { body: PageElement } }).document;
  const read = (root: PageElement, field: FieldRecipe | undefined): string | null => {
    if (!field) return null;
    const element = field.selector === ':scope' ? root : root.querySelector(field.selector);
    if (!element) return null;
    const value = field.attribute ? element.getAttribute(field.attribute) : element.textContent;
    return value === null ? null : value.replace(/\s+/g, ' ').trim();
  };
  const body = document.body;
  if (results.hotelUnknown && document.querySelector(results.hotelUnknown)) return { state: 'hotel-unknown', currency: null, rooms: [] };
  if (results.adultsRefused && document.querySelector(results.adultsRefused)) return { state: 'adults-refused', currency: null, rooms: [] };
  if (document.querySelector(results.noAvailability)) return { state: 'none', currency: null, rooms: [] };
  const rooms = [...body.querySelectorAll(results.room)].map((room) => ({
    id: read(room, results.roomId),
    name: read(room, results.roomName),
    description: read(room, results.roomDescription),
    occupancy: read(room, results.roomOccupancy),
    rates: [...room.querySelectorAll(results.rate)].map((rate) => ({
      id: read(rate, results.rateId),
      name: read(rate, results.rateName),
      baseTotal: read(rate, results.baseTotal),
      charges: results.charge
        ? [...rate.querySelectorAll(results.charge.selector)].map((charge) => ({
            name: read(charge, results.charge?.name),
            amount: read(charge, results.charge?.amount),
            kind: read(charge, results.charge?.kind),
            code: read(charge, results.charge?.code),
          }))
        : [],
      cancellation: read(rate, results.cancellation),
      mealPlan: read(rate, results.mealPlan),
      memberOnly: read(rate, results.memberOnly),
    })),
  }));
  return { state: 'rooms', currency: read(body, results.currency), rooms };
}

function required(value: string | null, what: string): string {
  if (value === null || value === '') throw new SourceFailure('InvalidResult', `booking page shows no ${what}`);
  return value;
}

function refundableFrom(text: string | null): Rate['refundable'] {
  if (text === null || text === '') return undefined;
  if (/non[- ]?refundable|no refund/i.test(text)) return { available: false };
  const match = /(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?/.exec(text);
  if (match?.[1]) return { available: true, untilDate: match[1], ...(match[2] ? { untilTime: match[2] } : {}) };
  if (/free cancellation|refundable/i.test(text)) return { available: true };
  return undefined;
}

/** Turns what the page showed into rooms; anything unreadable is an InvalidResult, never a guess. */
function roomsFromPage(page: RawPage): Room[] {
  const currency = required(page.currency, 'currency');
  return page.rooms.map((room) => {
    const roomId = required(room.id, 'room id');
    const occupancy = room.occupancy === null ? NaN : Number(room.occupancy);
    return {
      id: roomId,
      name: required(room.name, `name of room ${roomId}`).slice(0, 200),
      ...(room.description ? { description: room.description } : {}),
      ...(Number.isInteger(occupancy) && occupancy > 0 ? { occupancy } : {}),
      rates: room.rates.map((rate) => {
        const rateId = required(rate.id, `rate id in room ${roomId}`);
        const taxes: Rate['taxes'] = [];
        const fees: NonNullable<Rate['fees']> = [];
        for (const charge of rate.charges) {
          const name = required(charge.name, `charge name of rate ${rateId}`);
          const price = priceFromText(required(charge.amount, `amount of ${name}`), currency);
          if (charge.kind === 'fee') {
            const code = feeCodes.includes(charge.code as FeeCode) ? (charge.code as FeeCode) : 'other-fees';
            fees.push({ type: 'NamedPrice', name, code, price });
          } else {
            const code = taxCodes.includes(charge.code as TaxCode) ? (charge.code as TaxCode) : 'other-taxes';
            taxes.push({ type: 'NamedPrice', name, code, price });
          }
        }
        const refundable = refundableFrom(rate.cancellation);
        const mealPlan = mealPlans.includes(rate.mealPlan as MealPlan) ? (rate.mealPlan as MealPlan) : undefined;
        return {
          id: `${roomId}:${rateId}`,
          name: required(rate.name, `name of rate ${rateId}`).slice(0, 200),
          ...(rate.memberOnly === 'true' ? { rule: 'member' as const } : {}),
          ...(mealPlan ? { mealPlan } : {}),
          ...(refundable ? { refundable } : {}),
          baseRate: priceFromText(required(rate.baseTotal, `total of rate ${rateId}`), currency),
          taxes,
          ...(fees.length > 0 ? { fees } : {}),
        };
      }),
    };
  });
}

async function fill(page: Page, selector: string, value: string, timeoutMs: number): Promise<void> {
  const field = page.locator(selector).first();
  const tag = await field.evaluate((element) => element.tagName.toLowerCase(), undefined, { timeout: timeoutMs });
  if (tag === 'select') await field.selectOption(value, { timeout: timeoutMs });
  else await field.fill(value, { timeout: timeoutMs });
}

/**
 * Drives a hotel's own booking engine in Chromium, as the original service does: opens the hotel's
 * booking page, fills the engine's search form, and reads rooms and rates with the engine's recipe.
 * Every request the page makes is vetted by `checkUrl` (the SSRF policy).
 */
export function createBookingPageSource(ports: {
  browser: () => Promise<Browser>;
  recipes: Record<string, BookingEngineRecipe>;
  checkUrl: (url: string) => Promise<void>;
  timeoutMs: number;
}): RateSource {
  return {
    async search(hotel: HotelRow, search: RateSearch, signal: AbortSignal): Promise<SourceOutcome> {
      if (hotel.source.kind !== 'booking-page')
        return { ok: false, kind: 'HotelNotOnIbe', reason: 'hotel is not configured for a booking page' };
      const recipe = ports.recipes[hotel.source.engine];
      if (!recipe) return { ok: false, kind: 'HotelNotOnIbe', reason: `no recipe for engine ${hotel.source.engine}` };
      const deadline = Date.now() + ports.timeoutMs;
      const remaining = () => Math.max(1, deadline - Date.now());
      let context: BrowserContext | undefined;
      const onAbort = () => void context?.close().catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        await ports.checkUrl(hotel.bookingPageUrl);
        context = await (await ports.browser()).newContext({ serviceWorkers: 'block' });
        await guardRequests(context, ports.checkUrl);
        return await searchOnPage(await context.newPage(), hotel, recipe, search, remaining);
      } catch (error) {
        return searchFailure(error, signal);
      } finally {
        signal.removeEventListener('abort', onAbort);
        await context?.close().catch(() => {});
      }
    },
  };
}

/** A thrown search failure as an outcome: a page that took too long is a Timeout, the rest as every source's. */
export function searchFailure(error: unknown, signal: AbortSignal): SourceOutcome {
  const name = (error as Error).name;
  if (name === 'TimeoutError' && !signal.aborted)
    return { ok: false, kind: 'Timeout', reason: (error as Error).message.split('\n')[0] ?? 'timeout' };
  return failureOutcome(error, signal);
}

/** The rooms and rates a page shows, read with a results recipe; anything unreadable is an InvalidResult. */
export async function readRoomsOnPage(
  page: Page,
  results: BookingEngineRecipe['results'],
): Promise<{ state: RawPage['state']; rooms: Room[] }> {
  const raw = await page.evaluate(readPage, results);
  return { state: raw.state, rooms: raw.state === 'rooms' ? roomsFromPage(raw) : [] };
}

/** An engine page's address: `path` against the booking page URL keeping its query, then `params` with each `{name}` of `values` filled in. */
export function pageAddress(bookingPageUrl: string, address: PageAddress, values: Record<string, string>): string {
  const url = new URL(address.path, bookingPageUrl);
  url.search = new URL(bookingPageUrl).search;
  for (const [name, template] of Object.entries(address.params))
    url.searchParams.set(
      name,
      template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole),
    );
  return url.href;
}

/**
 * Opens the engine's results for `search` in `page` and reads them (the page stays on them): by the
 * results page's address when the recipe gives it, else by filling the search form on the hotel's
 * booking page.
 */
export async function searchOnPage(
  page: Page,
  hotel: HotelRow,
  recipe: BookingEngineRecipe,
  search: RateSearch,
  remaining: () => number,
): Promise<SourceOutcome> {
  if (recipe.search.results) {
    const values = { checkIn: search.checkIn, checkOut: checkOutOf(search), nights: String(search.nights), guests: String(search.guests) };
    await page.goto(pageAddress(hotel.bookingPageUrl, recipe.search.results, values), {
      timeout: remaining(),
      waitUntil: 'domcontentloaded',
    });
  } else {
    await page.goto(hotel.bookingPageUrl, { timeout: remaining(), waitUntil: 'domcontentloaded' });
    await fill(page, recipe.search.checkIn, search.checkIn, remaining());
    if (recipe.search.nights) await fill(page, recipe.search.nights, String(search.nights), remaining());
    if (recipe.search.checkOut) await fill(page, recipe.search.checkOut, checkOutOf(search), remaining());
    await fill(page, recipe.search.guests, String(search.guests), remaining());
    await page.locator(recipe.search.submit).first().click({ timeout: remaining() });
  }
  await waitForSelectorOnPage(page, recipe.results.ready, remaining());
  const read = await readRoomsOnPage(page, recipe.results);
  if (read.state === 'hotel-unknown') return { ok: false, kind: 'HotelNotOnIbe', reason: 'the booking engine does not know this hotel' };
  if (read.state === 'adults-refused')
    return { ok: false, kind: 'AdultsCountNotSupported', reason: `the booking engine refuses ${search.guests} adults` };
  if (read.state === 'none') return { ok: false, kind: 'RoomsNotAvailable', reason: 'the booking engine shows no availability' };
  return { ok: true, rooms: read.rooms };
}
