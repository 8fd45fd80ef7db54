import type { Room } from '@quarry/contracts';
import type { ColumnSealer } from '@quarry/keyring';
import type { Pool } from '@quarry/db';
import type { Enqueue } from '@quarry/jobs';
import type { HotelRow } from '@quarry/rates';
import type { SafeFetch } from '@quarry/safe-fetch';
import type { CardVault } from '@quarry/vault';
import type { BookingChangeWaits } from './booking-change-waits.ts';
import type { BookingEngines } from './booking-engine.ts';
import type { BookingStatusCache } from './booking-status-cache.ts';

/** Seals guests' details, the card's token and webhook secrets at rest, each bound to its booking (the keyring's). */
export type Sealer = ColumnSealer;

/**
 * What the page may show and to whom: the origins of the client's own pages (its only parents and
 * the only receivers of its completion message), and the check of the hotel's ACS URL (its host
 * vetted by the SSRF policy: a public address unless ALLOW_PRIVATE_URLS lists it).
 */
export type TdsPagePorts = {
  frameOriginsOf: (clientId: string) => Promise<readonly string[]>;
  vetAcsHost: (hostname: string) => Promise<unknown>;
  /** ALLOW_LOOPBACK_HTTP_HOTELS: an ACS on loopback may be http: (tests and the demo). */
  allowLoopbackHttp: boolean;
};

/** What decides whether a hotel's ACS URL may reach a card holder: the SSRF policy of its host, and the loopback allowance. */
export type AcsUrlPolicy = Pick<TdsPagePorts, 'vetAcsHost' | 'allowLoopbackHttp'>;

/** What the API side needs: store, change, enqueue. */
export type BookingsPorts = {
  pool: Pool;
  sealer: Sealer;
  vault: CardVault;
  /** The hotel, when it is granted to this client (`findGrantedHotelRow` of packages/rates). */
  findGrantedHotel: (clientId: string, hotelId: string) => Promise<HotelRow | null>;
  enqueueStep: Enqueue<'bookings.step'>;
  enqueueNotify: Enqueue<'bookings.notify'>;
  /** The SSRF policy for a client's `callbackUrl` (a private address is refused before anything is stored). */
  checkCallbackUrl: (url: string) => Promise<void>;
  /** The 3-D Secure page: who may frame it, and the policy of the hotel's ACS URL (without: no frame, public https: only). */
  tdsPage?: TdsPagePorts;
  /** Failures that must not fail the request (a card purge); logged by the caller's logger. */
  onError?: (error: unknown, where: string) => void;
  now?: () => Date;
  /** Statuses this API process serves without a query (createBookingStatusCache); its own changes drop them at once. */
  statusCache?: BookingStatusCache;
  /**
   * How long the card's CVV is kept from `POST /book` on (its clock restarts there): the longest the
   * booking may still send its order (`BOOKING_JOB_TIMEOUT_MS`). Without it the CVV keeps the vault's own TTL.
   */
  cvvHoldMs?: number;
  /** The rates feed's horizon (`RATES_HORIZON_DAYS`): a check-in past it is a stay the feed cannot price, refused at creation. */
  horizonDays?: number;
};

export type BookingTimers = {
  /** How long a confirmed price is said to hold (`priceConfirmedUntil`). */
  priceHoldMs: number;
  /** Without an awaited client input for this long, a booking fails `InputTimeout` (15 minutes). */
  inputTimeoutMs: number;
  /** A booking not finished this long after its creation fails `JobTimeout` (one hour), unless its order is with the hotel. */
  jobTimeoutMs: number;
  /** How long the card holder has for a 3-D Secure challenge at most (the source's own expiry may be sooner). */
  tdsTimeoutMs: number;
  /** How often the hotel is asked whether a challenged reservation went through. */
  tdsPollMs: number;
  /**
   * One request to a hotel: an order sent this long ago may still be answered, so a run that finds
   * no reservation under our reference before then reads again instead of calling it unknown.
   */
  sourceTimeoutMs: number;
};

/** What the worker needs on top: the hotel's engine, the hotel by id, the stored rates, the timers. */
export type WorkerPorts = Omit<BookingsPorts, 'checkCallbackUrl' | 'tdsPage'> & {
  engines: BookingEngines;
  findHotel: (hotelId: string) => Promise<HotelRow | null>;
  /** The rooms the feed stored (and served) for this search, to tell whether a price still holds. */
  storedRooms: (search: { hotelId: string; checkIn: string; nights: number; guests: number }) => Promise<Room[] | null>;
  timers: BookingTimers;
  /** Callbacks to clients' URLs (the SSRF guard). */
  fetchCallback: SafeFetch;
  /** A browser checkout's own job (engines that book in a browser). */
  enqueueCheckout: Enqueue<'bookings.checkout'>;
  /** This process, as the holder of the checkouts it runs. */
  workerId: string;
  /**
   * A held checkout's lease (`BOOKING_CHECKOUT_LEASE_MS`): renewed every third of it while its page
   * is open; once it lapses the sweep hands the booking on. Longer than a store outage a checkout
   * should outlive, since the page itself cannot move to another worker.
   */
  checkoutLeaseMs: number;
  /** The order lease of a `bookings.step` run (as long as the queue lock): renewed while the hotel is asked. */
  orderLeaseMs: number;
  /** How often a held checkout looks whether the client consented, when no announcement wakes it. */
  consentPollMs?: number;
  /** Announced changes of bookings (a held checkout waits on them for the consent instead of polling). */
  bookingChanges?: BookingChangeWaits;
  /** The policy a callback's `tdsChallenge.acsUrl` must pass, as GET /book's (without: https: on a public address only). */
  acsUrlPolicy?: AcsUrlPolicy;
};
