import type { BookingStage, BookingState } from '@quarry/contracts';

/**
 * The booking state machine. Each stage has one state: `started` while the service works,
 * `pending` while a client input is awaited (no worker is busy meanwhile), `finished` at the end.
 */
const stateOfStage: Record<BookingStage, BookingState> = {
  priceCheck: 'started',
  processingBooking: 'started',
  priceConfirmed: 'pending',
  roomSelection: 'pending',
  finalPriceConsent: 'pending',
  awaitingTdsChallenge: 'pending',
  bookingConfirmed: 'finished',
  failed: 'finished',
  cancelled: 'finished',
};

export const stateOf = (stage: BookingStage): BookingState => stateOfStage[stage];

/** Every stage a stage may move to; anything else is a defect, refused before it is written. */
const next: Record<BookingStage, readonly BookingStage[]> = {
  priceCheck: ['priceConfirmed', 'roomSelection', 'failed', 'cancelled'],
  // The client books (or only surveys prices again), or picks nothing and cancels.
  priceConfirmed: ['processingBooking', 'failed', 'cancelled'],
  roomSelection: ['priceConfirmed', 'processingBooking', 'failed', 'cancelled'],
  processingBooking: ['finalPriceConsent', 'roomSelection', 'awaitingTdsChallenge', 'bookingConfirmed', 'failed', 'cancelled'],
  finalPriceConsent: ['processingBooking', 'failed', 'cancelled'],
  // Once the order is with the hotel only the hotel's answer ends the booking.
  awaitingTdsChallenge: ['bookingConfirmed', 'failed'],
  bookingConfirmed: [],
  failed: [],
  cancelled: [],
};

export const canMove = (from: BookingStage, to: BookingStage): boolean => next[from].includes(to);

/** Stages where the awaited input is the client's (the input timeout runs there). */
export const awaitsClientInput: readonly BookingStage[] = ['priceConfirmed', 'roomSelection', 'finalPriceConsent'];

/**
 * Stages a client may still cancel from: before the order is placed. During `processingBooking`
 * only while the order is not being placed (checked against the order state too).
 */
export const cancellable: readonly BookingStage[] = [
  'priceCheck',
  'priceConfirmed',
  'roomSelection',
  'processingBooking',
  'finalPriceConsent',
];

/** What the worker does at its next job of a booking. */
export type BookingWork = 'reprice' | 'survey' | 'quote' | 'placeOrder' | 'readOrder';
