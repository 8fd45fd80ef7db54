import { z } from 'zod';
import { Price, Rate } from './hotels.ts';
import { HttpUrl } from './http-url.ts';

/**
 * Hotel bookings. A booking moves through stages; its `state` says who acts next: `started` (the
 * service works), `pending` (the client is awaited), `finished` (nothing more happens).
 */
export const bookingStages = [
  'priceCheck',
  'priceConfirmed',
  'roomSelection',
  'processingBooking',
  'finalPriceConsent',
  'awaitingTdsChallenge',
  'bookingConfirmed',
  'failed',
  'cancelled',
] as const;
export const BookingStage = z.enum(bookingStages);
export type BookingStage = z.infer<typeof BookingStage>;

const bookingStates = ['started', 'pending', 'finished'] as const;
export const BookingState = z.enum(bookingStates);
export type BookingState = z.infer<typeof BookingState>;

/**
 * Why a booking failed. `BookingOutcomeUnknown` is ours: the order may have reached the hotel (its
 * answer never came or could not be read, and the hotel could not say whether it holds a
 * reservation under `orderReference`), so the booking is never retried; the client checks with the
 * hotel, quoting `orderReference`.
 */
export const bookingErrorCodes = [
  'RoomNotAvailable',
  'PriceChangedAfterConsent',
  'PaymentRejected',
  'CardDetailsInvalid',
  'PanTokenInvalid',
  // The card was stored with a CVV that is no longer kept: nothing was sent (ADR 0048).
  'CvvUnavailable',
  'TdsTimeout',
  'InputTimeout',
  'JobTimeout',
  'DuplicateBooking',
  'SystemUnavailable',
  'GenericWebsiteError',
  'BookingOutcomeUnknown',
] as const;
export const BookingErrorCode = z.enum(bookingErrorCodes);
export type BookingErrorCode = z.infer<typeof BookingErrorCode>;

const isoDate = z.iso.date();

/** POST /v1/bookings: a booking of one rate, as the rates feed listed it. */
export const CreateBookingBody = z.strictObject({
  hotelId: z.string().trim().min(1).max(200),
  checkIn: isoDate,
  nights: z.number().int().min(1).max(30),
  guests: z.number().int().min(1).max(10),
  roomId: z.string().min(1).max(200),
  rateId: z.string().min(1).max(200),
  /** Each stage change is POSTed here, signed per Standard Webhooks (the secret is in the response). */
  callbackUrl: HttpUrl.optional(),
});
export type CreateBookingBody = z.infer<typeof CreateBookingBody>;

export const CreatedBooking = z.object({
  bookingId: z.uuid(),
  state: BookingState,
  stage: BookingStage,
  webhookSecret: z
    .string()
    .optional()
    .describe('Present with callbackUrl: the Standard Webhooks secret (whsec_…) that signs each callback; shown once'),
});
export type CreatedBooking = z.infer<typeof CreatedBooking>;

export const BookingIdParams = z.object({ bookingId: z.uuid() });

/** POST /Booking/prices/confirm: the client picks one of `availableRooms`' prices. */
export const ConfirmPriceBody = z.strictObject({ bookingId: z.uuid(), priceId: z.string().min(1).max(100) });
export type ConfirmPriceBody = z.infer<typeof ConfirmPriceBody>;

const person = z.strictObject({ firstName: z.string().trim().min(1).max(100), lastName: z.string().trim().min(1).max(100) });

export const BookingDetails = z.strictObject({
  mainGuest: person,
  otherGuests: z.array(person).max(9).default([]),
  contact: z.strictObject({
    email: z.email().max(254),
    phone: z
      .string()
      .trim()
      .min(3)
      .max(40)
      .regex(/^[+()0-9 .\-/]+$/, 'must contain only digits, spaces and + ( ) . - /'),
  }),
});
export type BookingDetails = z.infer<typeof BookingDetails>;

/**
 * POST /book/{bookingId}. `skipConfirmation: true` asks only for the website's current prices of
 * every room (`roomSelection`); nothing is held or booked, and details and panToken may be left out.
 */
export const BookBody = z.strictObject({
  details: BookingDetails.optional(),
  panToken: z.string().min(1).max(299).optional(),
  skipConfirmation: z.boolean().optional(),
});
export type BookBody = z.infer<typeof BookBody>;

/** A price as the booking shows it: the rate's parts and their sum. */
export const BookingPrice = z.object({
  baseRate: Price,
  taxes: Rate.shape.taxes,
  fees: Rate.shape.fees.unwrap(),
  total: Price,
});
export type BookingPrice = z.infer<typeof BookingPrice>;

/** POST /book/{bookingId}/consent: an exact copy of the `finalPrice` the booking shows. */
export const ConsentBody = z.strictObject({ finalPrice: z.unknown() });

/**
 * The consent's body as the OpenAPI document shows it: `finalPrice` is required and is a price.
 * It is read as any JSON value because whatever is not an exact copy, a missing one included,
 * is refused the same way (409 FinalPriceNotFound), never as a validation error.
 */
export const ConsentBodyDocument = z.strictObject({
  finalPrice: BookingPrice.describe(
    'Required: an exact copy of finalPrice of GET /book/{bookingId}; anything else (or nothing) is 409 FinalPriceNotFound',
  ),
});

export const AvailableRooms = z.array(
  z.object({
    roomId: z.string(),
    name: z.string(),
    rates: z.array(z.object({ rateId: z.string(), name: z.string(), priceId: z.string(), price: BookingPrice })),
  }),
);
export type AvailableRooms = z.infer<typeof AvailableRooms>;

export const TdsChallenge = z.object({
  version: z.string(),
  acsUrl: z.string(),
  creq: z.string(),
  threeDSSessionData: z.string().optional(),
  windowSize: z
    .enum(['01', '02', '03', '04', '05'])
    .describe('EMV 3DS challenge window: 01 250×400, 02 390×400, 03 500×600, 04 600×400, 05 full screen'),
  expiresAt: z.string(),
});
export type TdsChallenge = z.infer<typeof TdsChallenge>;

/** The challenge as GET /book/{bookingId} shows it: the ACS URL only when it passes the 3-D Secure page's policy. */
export const TdsChallengeView = TdsChallenge.extend({
  acsUrl: z
    .string()
    .optional()
    .describe(
      "The issuer's ACS URL, shown only when it passes the policy of GET /book/{bookingId}/tds (https:, no credentials, a public address); otherwise absent and acsUrlRefused says why",
    ),
  acsUrlRefused: z
    .string()
    .optional()
    .describe(
      "Present instead of acsUrl when the hotel's ACS URL fails that policy: what is wrong with it (the challenge cannot be shown; cancel the booking or let it end TdsTimeout)",
    ),
});
export type TdsChallengeView = z.infer<typeof TdsChallengeView>;

export const BookingConfirmation = z.object({ reference: z.string(), message: z.string().optional(), price: Price });
export type BookingConfirmation = z.infer<typeof BookingConfirmation>;

/** GET /book/{bookingId}: the BookingStatus. */
export const BookingStatus = z.object({
  bookingId: z.uuid(),
  clientId: z.string(),
  state: BookingState,
  stage: BookingStage,
  createdAt: z.iso.datetime(),
  succeededAt: z.string().nullable(),
  failedAt: z.string().nullable(),
  error: z.object({ code: BookingErrorCode, message: z.string() }).nullable(),
  priceConfirmedUntil: z.string().nullable(),
  availableRooms: AvailableRooms.nullable(),
  priceBreakdown: BookingPrice.nullable(),
  finalPrice: BookingPrice.nullable(),
  confirmation: BookingConfirmation.nullable(),
  tdsChallenge: TdsChallengeView.nullable(),
  orderReference: z
    .string()
    .describe(
      'Our reference of the booking at the hotel: the order is sent under it (the OpenTravel UniqueID, the "your reference" field of a booking page). ' +
        'Quote it to the hotel to ask about a booking that ended BookingOutcomeUnknown.',
    ),
});
export type BookingStatus = z.infer<typeof BookingStatus>;

export const BookingStepJobPayload = z.object({ bookingId: z.uuid() });
export const BookingNotifyJobPayload = z.object({ bookingId: z.uuid(), seq: z.number().int().min(0) });
export const BookingSweepJobPayload = z.object({});
