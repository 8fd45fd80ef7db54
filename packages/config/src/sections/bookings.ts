import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

export const bookingsVariables = {
  // Hotel bookings; README "Hotel bookings" documents each.
  BOOKING_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  BOOKING_SOURCE_TIMEOUT_MS: positiveMs.default(60_000),
  BOOKING_PRICE_HOLD_MS: positiveMs.default(15 * 60_000),
  BOOKING_INPUT_TIMEOUT_MS: positiveMs.default(15 * 60_000),
  // A booking unfinished this long after its creation fails `JobTimeout` unless its order is with
  // the hotel: the longest it may still order (the vault keeps a taken CVV as long).
  BOOKING_JOB_TIMEOUT_MS: positiveMs.default(60 * 60_000),
  BOOKING_TDS_TIMEOUT_MS: positiveMs.default(10 * 60_000),
  BOOKING_TDS_POLL_MS: positiveMs.default(3_000),
  BOOKING_SWEEP_EVERY_MS: positiveMs.default(30_000),
  // A browser checkout's lease, renewed every third of it while its page is open: a store outage
  // shorter than it never hands a held checkout to another run (the page cannot follow), and a
  // dead holder's booking is handed on within it and a sweep.
  BOOKING_CHECKOUT_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
  // Checkouts on hotels' own booking pages held open at once per process, each a browser context
  // for up to the input and 3-D Secure waits; counted apart from mining's contexts.
  BOOKING_BROWSER_CONTEXTS: z.coerce.number().int().min(1).max(64).default(5),
  // Price checks' search pages kept idle per process for the next price check of the same site,
  // beside BOOKING_BROWSER_CONTEXTS (a page in use takes one of those); 0: a new context each time.
  BOOKING_SEARCH_PAGES: z.coerce.number().int().min(0).max(16).default(5),
};

export const readBookings = (vars: VariablesOf<typeof bookingsVariables>) => ({
  bookings: {
    concurrency: vars.BOOKING_CONCURRENCY,
    sourceTimeoutMs: vars.BOOKING_SOURCE_TIMEOUT_MS,
    priceHoldMs: vars.BOOKING_PRICE_HOLD_MS,
    inputTimeoutMs: vars.BOOKING_INPUT_TIMEOUT_MS,
    jobTimeoutMs: vars.BOOKING_JOB_TIMEOUT_MS,
    tdsTimeoutMs: vars.BOOKING_TDS_TIMEOUT_MS,
    tdsPollMs: vars.BOOKING_TDS_POLL_MS,
    sweepEveryMs: vars.BOOKING_SWEEP_EVERY_MS,
    checkoutLeaseMs: vars.BOOKING_CHECKOUT_LEASE_MS,
    browserContexts: vars.BOOKING_BROWSER_CONTEXTS,
    searchPages: vars.BOOKING_SEARCH_PAGES,
  },
});
