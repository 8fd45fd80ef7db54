import type { BookingConfirmation, BookingErrorCode, Price, Room, TdsChallenge } from '@quarry/contracts';
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
  | { status: 'confirmed'; confirmation: BookingConfirmation }
  | { status: 'challenge'; challenge: Omit<TdsChallenge, 'expiresAt'> & { expiresAt?: string } }
  | { status: 'pending' }
  | { status: 'failed'; code: BookingErrorCode; message: string };

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
};

/** One engine per source kind; a hotel whose kind has none cannot be booked in this deployment. */
export type BookingEngines = Partial<Record<HotelRow['source']['kind'], BookingEngine>>;
