import type { BookingConfirmation, BookingErrorCode, BookingPrice, Price, Room, TdsChallenge } from '@quarry/contracts';
import type { HotelRow } from '@quarry/rates';
import type { CardDetails } from '@quarry/vault';

export type Stay = { checkIn: string; nights: number; guests: number };

export type RepriceOutcome = { ok: true; rooms: Room[] } | { ok: false; code: BookingErrorCode; reason: string; transient: boolean };

type Guest = { firstName: string; lastName: string };

/** What the hotel is sent for one order. */
export type Order = {
  /** Our unique reference: the order's id at the hotel (OpenTravel UniqueID), the key to find it again. */
  reference: string;
  stay: Stay;
  roomId: string;
  rateId: string;
  /** The total the client consented to; a hotel asking more must refuse the order. */
  total: Price;
  mainGuest: Guest;
  otherGuests: Guest[];
  contact: { email: string; phone: string };
  card: CardDetails;
};

/**
 * What the hotel says of an order: confirmed, waiting for the card holder's 3-D Secure challenge
 * (`challenge`, or `pending` while it is being completed), or refused with one of our codes.
 */
export type OrderOutcome =
  // A lookup page may not show the price: the booking's consented total stands then.
  | { status: 'confirmed'; confirmation: Omit<BookingConfirmation, 'price'> & { price?: Price } }
  | { status: 'challenge'; challenge: Omit<TdsChallenge, 'expiresAt'> & { expiresAt?: string } }
  | { status: 'pending' }
  | { status: 'failed'; code: BookingErrorCode; message: string };

/** What the hotel said of a cancellation: done, nothing to cancel, or refused (its words). */
export type CancelOutcome = { status: 'cancelled' } | { status: 'notFound' } | { status: 'refused'; message: string };

/**
 * A hotel source's booking side (one per source kind). Every method may throw for a transport
 * failure; `placeOrder` throwing leaves the order's fate unknown (the caller then asks
 * `findOrderByReference`, never `placeOrder` again).
 */
export type BookingEngine = {
  /** Current rooms and rates for the stay, from the hotel (not from stored results). */
  reprice(hotel: HotelRow, stay: Stay, signal: AbortSignal): Promise<RepriceOutcome>;
  placeOrder(hotel: HotelRow, order: Order, signal: AbortSignal): Promise<OrderOutcome>;
  /** The reservation the hotel holds under our reference; `notFound` when it has none. */
  findOrderByReference(hotel: HotelRow, reference: string, signal: AbortSignal): Promise<OrderOutcome | { status: 'notFound' }>;
  /**
   * After a 3-D Secure challenge: the hotel learns its outcome from the card issuer, not from us;
   * this reads the reservation again (`pending` while the card holder has not finished).
   */
  continueAfterChallenge(hotel: HotelRow, reference: string, signal: AbortSignal): Promise<OrderOutcome | { status: 'notFound' }>;
  /**
   * Cancels the reservation under our reference (one whose 3-D Secure challenge expired). Engines
   * without it leave the hotel's pending reservation to the hotel's own expiry.
   */
  cancelOrder?(hotel: HotelRow, reference: string, signal: AbortSignal): Promise<CancelOutcome>;
  /** Engines that book in a browser: the order is placed from a checkout held open, never by `placeOrder`. */
  checkout?: CheckoutEngine;
};

/**
 * What a checkout is opened with: the order without its consented total (the page shows the final
 * price first), its card opened from the vault only when the payment page is reached (the CVV is
 * given once: a checkout that never started must not spend it).
 */
type CheckoutRequest = Omit<Order, 'total' | 'card'> & { card: () => Promise<CardDetails> };

/** Why a checkout stopped before the order button: nothing was ordered. */
export type CheckoutFailure = { code: BookingErrorCode; reason: string; transient: boolean };

/** A checkout held open in its browser context on the final-price page (ADR 0040). */
export type HeldCheckout = {
  /** The price the final-price page shows. */
  finalPrice(): Promise<BookingPrice>;
  /** The page again, for the price it shows now (after the consent, right before the order button). */
  reloadFinalPrice(): Promise<BookingPrice>;
  /** Clicks the order button, once: the page's outcome, or the 3-D Secure challenge it started (captured, not completed). */
  placeOrder(total: Price): Promise<OrderOutcome>;
  /** After a challenge: the page's outcome once the issuer told the hotel, or `pending` at `until`. */
  awaitChallengeOutcome(total: Price, until: Date): Promise<OrderOutcome>;
};

/** The checkout side of an engine that books in a browser: a context held for `work`, closed after it. */
export type CheckoutEngine = {
  /** `onStarted` is called once the context is open (before it, a stopped worker has started nothing). */
  withCheckout<T>(
    hotel: HotelRow,
    request: CheckoutRequest,
    signal: AbortSignal,
    work: (checkout: HeldCheckout) => Promise<T>,
    onStarted?: () => void,
  ): Promise<T>;
  /** The failure a `withCheckout` rejection stands for, when it is one (else a defect or an abort). */
  failureOf(error: unknown): CheckoutFailure | null;
};

/** One engine per source kind; a hotel whose kind has none cannot be booked in this deployment. */
export type BookingEngines = Partial<Record<HotelRow['source']['kind'], BookingEngine>>;
