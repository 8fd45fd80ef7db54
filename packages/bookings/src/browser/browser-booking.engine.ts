import type { BookingErrorCode, BookingPrice, Price } from '@quarry/contracts';
import {
  checkOnPage,
  clickOnPage,
  fillOnPage,
  frameOnPage,
  guardRequests,
  readFieldsOnPage,
  waitForAnyOnPage,
  waitForSelectorOnPage,
} from '@quarry/browser';
import { bookingEngineRecipes, checkOutOf, pageAddress, readRoomsOnPage, searchFailure, searchOnPage, type HotelRow } from '@quarry/rates';
import type { BrowserContext, Page } from 'playwright-core';
import type { BookingEngine, CheckoutEngine, CheckoutFailure, HeldCheckout, OrderOutcome, Stay } from '../booking-engine.ts';
import { findRate, priceOf } from '../booking-prices.ts';
import { repriceOutcome } from '../opentravel/opentravel-booking.engine.ts';
import { bookingPageRecipes, type BookingPageRecipe, type CheckoutRecipe } from './checkout-recipes.ts';
import { captureChallenge, type CapturedChallenge } from './tds-capture.ts';

/**
 * Browser contexts for bookings: their own limit per process, in the process's one Chromium. A kept
 * context lives on between uses of its key (a use at a time, taking a slot; idle it takes none), and
 * is closed after `uses` uses, after `idleMs` idle, after a use that threw and when its browser is recycled.
 */
export type BookingBrowser = {
  withContext<T>(work: (context: BrowserContext) => Promise<T>): Promise<T>;
  withKeptContext<T>(key: string, limits: { uses: number; idleMs: number }, work: (context: BrowserContext) => Promise<T>): Promise<T>;
};

/**
 * A price check's search page is kept for the next price checks of the same site: it carries only
 * searches (a stay, never a guest or a card), and its cookies and storage are cleared before each.
 * Opening a context's first page costs Chromium about 0.2 s before it loads anything.
 */
const searchPageLimits = { uses: 50, idleMs: 30_000 };

type BrowserPorts = {
  browser: BookingBrowser;
  checkUrl: (url: string) => Promise<void>;
  /** One page step (a navigation, a form) at most this long. */
  timeoutMs: number;
  /** Each engine's search, results and checkout recipes (by default rates' search recipes with the checkout recipes here). */
  recipes?: Record<string, BookingPageRecipe>;
};

class CheckoutStop extends Error {
  readonly failure: CheckoutFailure;
  constructor(failure: CheckoutFailure) {
    super(failure.reason);
    this.failure = failure;
  }
}

/** A kept search page whose storage could not be cleared: not searched in. */
class KeptPageUnusable extends Error {}

const unneededResources = new Set(['image', 'font', 'media']);

const cssString = (value: string) => value.replace(/["\\]/g, (char) => `\\${char}`);
const withIds = (selector: string, ids: Record<string, string>) =>
  selector.replace(/\{(\w+)\}/g, (whole, name: string) => (name in ids ? cssString(ids[name] ?? '') : whole));

function recipeOf(hotel: HotelRow, recipes: Record<string, BookingPageRecipe>): { recipe: BookingPageRecipe; checkout: CheckoutRecipe } {
  if (hotel.source.kind !== 'booking-page')
    throw new CheckoutStop({ code: 'GenericWebsiteError', reason: `hotel ${hotel.hotelId} has no booking page`, transient: false });
  const recipe = recipes[hotel.source.engine];
  if (!recipe?.checkout)
    throw new CheckoutStop({
      code: 'GenericWebsiteError',
      reason: `the booking engine ${hotel.source.engine} has no checkout recipe`,
      transient: false,
    });
  return { recipe, checkout: recipe.checkout };
}

/** What the outcome page says (one read of the page), as our outcome; `total` is the consented price the confirmation carries. */
async function readOutcome(page: Page, recipe: CheckoutRecipe['outcome'], total: Price): Promise<OrderOutcome> {
  const [confirmed, number, declined, priceChanged, cardInvalid, unavailable] = await readFieldsOnPage(page, [
    { selector: recipe.confirmed },
    recipe.confirmationNumber,
    { selector: recipe.declined },
    { selector: recipe.priceChanged },
    { selector: recipe.cardInvalid },
    { selector: recipe.unavailable },
  ]);
  if (confirmed !== null) {
    if (!number) return { status: 'failed', code: 'GenericWebsiteError', message: 'the confirmation page shows no confirmation number' };
    return { status: 'confirmed', confirmation: { reference: number, price: total } };
  }
  if (declined !== null) return { status: 'failed', code: 'PaymentRejected', message: 'the card issuer declined the payment' };
  if (priceChanged !== null)
    return {
      status: 'failed',
      code: 'PriceChangedAfterConsent',
      message: 'the hotel changed the price when the order was placed; nothing was booked',
    };
  if (cardInvalid !== null) return { status: 'failed', code: 'CardDetailsInvalid', message: 'the hotel refused the card details' };
  if (unavailable !== null) return { status: 'failed', code: 'RoomNotAvailable', message: 'the room was sold before the order' };
  return { status: 'failed', code: 'GenericWebsiteError', message: 'the booking page showed no outcome the recipe knows' };
}

/**
 * The booking engine of hotels whose source is their own booking page: re-prices by searching the
 * page, runs the checkout in one browser context held from the guest page to the outcome (the
 * final-price wait and a 3-D Secure challenge included), and finds an order by our reference on the
 * engine's reservation lookup page. Every step is the engine's recipe (ADR 0040).
 */
export function createBrowserBookingEngine(ports: BrowserPorts): BookingEngine & { checkout: CheckoutEngine } {
  const recipes = ports.recipes ?? bookingPageRecipes(bookingEngineRecipes);
  const step = ports.timeoutMs;

  const openPage = async (context: BrowserContext, url: string): Promise<Page> => {
    await ports.checkUrl(url);
    await guardRequests(context, ports.checkUrl);
    // Pictures, fonts and media change nothing a checkout reads or clicks; they cost the hotel's bandwidth and our CPU.
    await context.route('**/*', (route) =>
      unneededResources.has(route.request().resourceType()) ? route.abort('blockedbyclient') : route.fallback(),
    );
    const page = await context.newPage();
    page.setDefaultTimeout(step);
    return page;
  };

  const untilAborted =
    <T>(signal: AbortSignal, work: (context: BrowserContext) => Promise<T>) =>
    async (context: BrowserContext): Promise<T> => {
      const onAbort = () => void context.close().catch(() => {});
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        signal.throwIfAborted();
        return await work(context);
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    };
  const inContext = <T>(signal: AbortSignal, work: (context: BrowserContext) => Promise<T>): Promise<T> =>
    ports.browser.withContext(untilAborted(signal, work));

  /** The page a kept search context shows; a context seen for the first time gets its page. */
  const searchPages = new WeakMap<BrowserContext, Page>();
  const searchPage = async (context: BrowserContext, url: string): Promise<Page> => {
    const kept = searchPages.get(context);
    if (!kept) {
      const page = await openPage(context, url);
      searchPages.set(context, page);
      return page;
    }
    await ports.checkUrl(url);
    // What the site kept of the last search (a session, a remembered stay) is not carried into the next.
    await context.clearCookies();
    await kept
      .evaluate(() => {
        const storage = globalThis as unknown as { localStorage: { clear(): void }; sessionStorage: { clear(): void } };
        storage.localStorage.clear();
        storage.sessionStorage.clear();
      })
      .catch((error: unknown) => Promise.reject(new KeptPageUnusable((error as Error).message)));
    return kept;
  };

  const lookUp = (hotel: HotelRow, reference: string, signal: AbortSignal): Promise<OrderOutcome | { status: 'notFound' }> =>
    inContext(signal, async (context) => {
      const { checkout } = recipeOf(hotel, recipes);
      const lookup = checkout.lookup;
      const url = new URL(lookup.path, hotel.bookingPageUrl);
      url.search = new URL(hotel.bookingPageUrl).search;
      const page = await openPage(context, url.href);
      await page.goto(url.href, { waitUntil: 'domcontentloaded' });
      await fillOnPage(page, lookup.reference, reference, step);
      await clickOnPage(page, lookup.submit, step);
      await waitForSelectorOnPage(page, lookup.ready, step);
      const [notFound, status, number] = await readFieldsOnPage(page, [
        { selector: lookup.notFound },
        lookup.status,
        lookup.confirmationNumber,
      ]);
      if (notFound !== null) return { status: 'notFound' as const };
      if (status === lookup.statuses.pending) return { status: 'pending' as const };
      if (status === lookup.statuses.declined)
        return { status: 'failed' as const, code: 'PaymentRejected' as const, message: 'the hotel reports the payment declined' };
      if (status === lookup.statuses.confirmed && number) return { status: 'confirmed' as const, confirmation: { reference: number } };
      return {
        status: 'failed' as const,
        code: 'GenericWebsiteError' as const,
        message: `the reservation lookup shows status ${status ?? 'none'}`,
      };
    });

  const checkout: CheckoutEngine = {
    async withCheckout(hotel, request, signal, work, onStarted) {
      const { recipe, checkout: steps } = recipeOf(hotel, recipes);
      return inContext(signal, async (context) => {
        onStarted?.();
        const [roomCode, rateCode] = engineCodes(request.roomId, request.rateId);
        const entry = steps.entry;
        const entryUrl = entry
          ? pageAddress(hotel.bookingPageUrl, entry, stayValues(hotel, request.stay, roomCode, rateCode))
          : hotel.bookingPageUrl;
        const page = await openPage(context, entryUrl);
        const challenges = await captureChallenge(context);
        const guest = steps.guest;
        /** Waits for the next checkout page: `ready` shown, or the engine's sold-out notice (the rate went since the price check). */
        const expectPage = async (ready: string) => {
          if (!entry) return;
          if ((await waitForAnyOnPage(page, [entry.unavailable, ready], step)) === 0)
            throw new CheckoutStop({
              code: 'RoomNotAvailable',
              reason: 'the booking page no longer offers this room and rate',
              transient: false,
            });
        };
        if (entry) {
          await page.goto(entryUrl, { waitUntil: 'domcontentloaded' });
          await expectPage(guest.firstName);
        } else {
          const found = await searchOnPage(page, hotel, recipe, { hotelId: hotel.hotelId, ...request.stay }, () => step).catch(
            (error: unknown) => searchFailure(error, signal),
          );
          if (!found.ok) throw new CheckoutStop(failureOfSearch(found));
          if (!findRate(found.rooms, request.roomId, request.rateId))
            throw new CheckoutStop({
              code: 'RoomNotAvailable',
              reason: 'the booking page no longer offers this room and rate',
              transient: false,
            });
          await clickOnPage(page, withIds(steps.selectRate, { room: roomCode, rate: rateCode }), step);
        }
        // The guest page: every guest by name, the booker's contact, and our reference for the lookup.
        await fillOnPage(page, guest.firstName, request.mainGuest.firstName, step);
        await fillOnPage(page, guest.lastName, request.mainGuest.lastName, step);
        await fillOnPage(page, guest.email, request.contact.email, step);
        await fillOnPage(page, guest.phone, request.contact.phone, step);
        for (const [index, other] of request.otherGuests.entries()) {
          const n = String(index + 1);
          await fillOnPage(page, withIds(guest.otherFirstName, { n }), other.firstName, step);
          await fillOnPage(page, withIds(guest.otherLastName, { n }), other.lastName, step);
        }
        await fillOnPage(page, guest.reference, request.reference, step);
        await clickOnPage(page, guest.submit, step);
        // The card, often in the payment provider's cross-origin iframe.
        const payment = steps.payment;
        await expectPage(payment.frame ?? payment.number);
        const fields = payment.frame ? await frameOnPage(page, payment.frame, step) : page;
        const card = await request.card();
        await fillOnPage(fields, payment.number, card.pan, step);
        await fillOnPage(fields, payment.holder, card.name, step);
        await fillOnPage(
          fields,
          payment.expiry,
          `${String(card.expiryMonth).padStart(2, '0')}/${String(card.expiryYear % 100).padStart(2, '0')}`,
          step,
        );
        await fillOnPage(fields, payment.cvc, card.cvv ?? '', step);
        await clickOnPage(page, payment.submit, step);
        await waitForSelectorOnPage(page, steps.review.ready, step);

        const finalPrice = async (): Promise<BookingPrice> => {
          await waitForSelectorOnPage(page, steps.review.ready, step);
          const read = await readRoomsOnPage(page, steps.review.prices);
          const rate = findRate(read.rooms, request.roomId, request.rateId);
          if (!rate)
            throw new CheckoutStop({
              code: 'RoomNotAvailable',
              reason: 'the final-price page no longer shows this room and rate',
              transient: false,
            });
          return priceOf(rate);
        };
        const held: HeldCheckout = {
          finalPrice,
          async reloadFinalPrice() {
            await page.reload({ waitUntil: 'domcontentloaded' });
            return finalPrice();
          },
          async placeOrder(total) {
            if (steps.review.terms) await checkOnPage(page, steps.review.terms, step);
            await clickOnPage(page, steps.review.placeOrder, step);
            const outcome = waitForSelectorOnPage(page, steps.outcome.ready, step).then(() => 'page' as const);
            // When the challenge comes first this wait is left to end by itself (awaitChallengeOutcome waits again).
            outcome.catch(() => {});
            const first = await Promise.race([outcome, challenges.next]);
            if (first === 'page') return readOutcome(page, steps.outcome, total);
            return { status: 'challenge', challenge: challengeOf(first) };
          },
          async awaitChallengeOutcome(total, until) {
            const waitMs = until.getTime() - Date.now();
            if (waitMs <= 0) return { status: 'pending' };
            try {
              await waitForSelectorOnPage(page, steps.outcome.ready, waitMs);
            } catch (error) {
              if ((error as Error).name === 'TimeoutError' && !signal.aborted) return { status: 'pending' };
              throw error;
            }
            return readOutcome(page, steps.outcome, total);
          },
        };
        return work(held);
      }).catch((error: unknown) => {
        // Ours to tell (a stopped worker, a card the vault refused), not the page's.
        if (error instanceof CheckoutStop || signal.aborted || (error as Error).name === 'PanTokenInvalidError')
          return Promise.reject(error);
        const name = (error as Error).name;
        return Promise.reject(
          new CheckoutStop({
            code: 'SystemUnavailable',
            reason: `the booking page did not answer: ${(error as Error).message.split('\n')[0] ?? name}`,
            transient: true,
          }),
        );
      });
    },
    failureOf: (error) => (error instanceof CheckoutStop ? error.failure : null),
  };

  return {
    async reprice(hotel, stay, signal) {
      if (hotel.source.kind !== 'booking-page')
        return { ok: false, code: 'GenericWebsiteError', reason: 'hotel is not configured for a booking page', transient: false };
      const recipe = recipes[hotel.source.engine];
      if (!recipe)
        return { ok: false, code: 'GenericWebsiteError', reason: `no recipe for engine ${hotel.source.engine}`, transient: false };
      // One kept page per engine and booking-page origin: a page moves within its own site.
      const key = `${hotel.source.engine} ${new URL(hotel.bookingPageUrl).origin}`;
      // A search that threw (a timeout, a page gone) closes its page: what it left there is not known.
      const search = () =>
        ports.browser.withKeptContext(
          key,
          searchPageLimits,
          untilAborted(signal, async (context) =>
            searchOnPage(await searchPage(context, hotel.bookingPageUrl), hotel, recipe, { hotelId: hotel.hotelId, ...stay }, () => step),
          ),
        );
      // A kept page that could not be cleared (the site moved it elsewhere meanwhile) is closed, and the search runs in another.
      const searched = await search()
        .catch((error: unknown) => (error instanceof KeptPageUnusable ? search() : Promise.reject(error)))
        .catch((error: unknown) => searchFailure(error, signal));
      return repriceOutcome(searched);
    },
    async placeOrder() {
      // A booking page is only ordered from a held checkout (the context that shows the final price).
      throw new Error('booking pages are ordered through a held checkout');
    },
    findOrderByReference: lookUp,
    continueAfterChallenge: lookUp,
    checkout,
  };
}

/** The values a recipe's `entry` address is filled with: the stay, and the engine's room and rate codes. */
function stayValues(hotel: HotelRow, stay: Stay, room: string, rate: string): Record<string, string> {
  return {
    checkIn: stay.checkIn,
    checkOut: checkOutOf({ hotelId: hotel.hotelId, ...stay }),
    nights: String(stay.nights),
    guests: String(stay.guests),
    room,
    rate,
  };
}

/** Our rate ids are the engine's room code and `room:rate` (the booking-page source's reading). */
function engineCodes(roomId: string, rateId: string): [string, string] {
  const prefix = `${roomId}:`;
  return [roomId, rateId.startsWith(prefix) ? rateId.slice(prefix.length) : rateId];
}

function failureOfSearch(outcome: Exclude<Awaited<ReturnType<typeof searchOnPage>>, { ok: true }>): CheckoutFailure {
  const mapped = repriceOutcome(outcome);
  if (mapped.ok) return { code: 'RoomNotAvailable', reason: 'the booking page shows no availability', transient: false };
  return { code: mapped.code as BookingErrorCode, reason: mapped.reason, transient: mapped.transient };
}

function challengeOf(captured: CapturedChallenge) {
  return {
    version: captured.version,
    acsUrl: captured.acsUrl,
    creq: captured.creq,
    ...(captured.threeDSSessionData ? { threeDSSessionData: captured.threeDSSessionData } : {}),
    windowSize: captured.windowSize,
  };
}
