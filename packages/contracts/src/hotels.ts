// Longer than 400 lines: the interface's hotel schemas; nearly half of it is the list of ISO 4217 codes
// the interface allows.
import { z } from 'zod';

/**
 * The hotel rate result of the interface ("Hotel rate result"), exactly: every object is strict
 * (additional properties not allowed), enums and max lengths as published. A source result that
 * fails this schema is a source failure and is never stored or served.
 */

/** The interface's allowed currency codes, lowercase. */
export const currencyCodes = [
  'aed',
  'afn',
  'all',
  'amd',
  'ang',
  'aoa',
  'ars',
  'aud',
  'awg',
  'azn',
  'bam',
  'bdt',
  'bbd',
  'bgn',
  'bhd',
  'bmd',
  'bnd',
  'bob',
  'brl',
  'bsd',
  'bwp',
  'byn',
  'bzd',
  'cad',
  'chf',
  'clp',
  'cny',
  'cop',
  'crc',
  'cup',
  'cve',
  'czk',
  'djf',
  'dkk',
  'dop',
  'dzd',
  'egp',
  'etb',
  'eur',
  'fjd',
  'fkp',
  'gbp',
  'gel',
  'ggp',
  'ghs',
  'gip',
  'gtq',
  'gyd',
  'hkd',
  'hnl',
  'hrk',
  'huf',
  'idr',
  'ils',
  'imp',
  'inr',
  'iqd',
  'irr',
  'isk',
  'jep',
  'jmd',
  'jod',
  'jpy',
  'kes',
  'kgs',
  'khr',
  'kpw',
  'krw',
  'kwd',
  'kyd',
  'kzt',
  'lak',
  'lbp',
  'lkr',
  'lrd',
  'mad',
  'mkd',
  'mmk',
  'mnt',
  'mop',
  'mur',
  'mvr',
  'mxn',
  'myr',
  'mzn',
  'nad',
  'ngn',
  'nio',
  'nok',
  'npr',
  'nzd',
  'omr',
  'pab',
  'pen',
  'pgk',
  'php',
  'pkr',
  'pln',
  'pyg',
  'qar',
  'ron',
  'rsd',
  'rub',
  'rwf',
  'sar',
  'sbd',
  'scr',
  'sek',
  'sgd',
  'shp',
  'sos',
  'srd',
  'svc',
  'syp',
  'thb',
  'tjs',
  'tnd',
  'try',
  'ttd',
  'tvd',
  'twd',
  'tzs',
  'uah',
  'ugx',
  'usd',
  'uyu',
  'uzs',
  'vef',
  'ves',
  'vnd',
  'xaf',
  'xcd',
  'xof',
  'yer',
  'zar',
  'zmw',
  'zwd',
] as const;
export type CurrencyCode = (typeof currencyCodes)[number];

// ISO 4217 minor-unit exponents that differ from 2; every other allowed code has 2
// (ggp, imp, jep, tvd are pound/dollar sub-currencies of 2-decimal currencies).
const exponentOverrides: Partial<Record<CurrencyCode, number>> = {
  clp: 0,
  djf: 0,
  isk: 0,
  jpy: 0,
  krw: 0,
  pyg: 0,
  rwf: 0,
  ugx: 0,
  vnd: 0,
  xaf: 0,
  xof: 0,
  bhd: 3,
  iqd: 3,
  jod: 3,
  kwd: 3,
  omr: 3,
  tnd: 3,
};

/** How many decimal digits the currency's smallest unit has (JPY 0, USD 2, BHD 3). */
export function currencyExponent(code: CurrencyCode): number {
  return exponentOverrides[code] ?? 2;
}

export function isCurrencyCode(value: string): value is CurrencyCode {
  return (currencyCodes as readonly string[]).includes(value);
}

const name200 = z.string().min(1).max(200);
const isoDate = z.iso.date();
const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:mm');

export const Price = z.strictObject({
  currencyCode: z.enum(currencyCodes),
  value: z.number().int().describe('In the smallest unit of the currency'),
});
export type Price = z.infer<typeof Price>;

export const taxCodes = ['city-tax', 'vat', 'other-taxes'] as const;
export const feeCodes = ['hotel-fee', 'resort-fee', 'service-fee', 'booking-fee', 'other-fees'] as const;
export type TaxCode = (typeof taxCodes)[number];
export type FeeCode = (typeof feeCodes)[number];

const namedPrice = <Codes extends readonly [string, ...string[]]>(codes: Codes) =>
  z.strictObject({
    type: z.literal('NamedPrice'),
    name: z.string().min(1),
    code: z.enum(codes).optional(),
    price: Price,
  });
const NamedTax = namedPrice(taxCodes);
const NamedFee = namedPrice(feeCodes);

const Image = z.strictObject({ type: z.literal('Link'), name: z.string(), url: z.url() });

const Refundable = z.union([
  z.strictObject({ available: z.literal(true), untilDate: isoDate.optional(), untilTime: hhmm.optional() }),
  z.strictObject({ available: z.literal(false) }),
]);

export const mealPlans = ['room-only', 'breakfast', 'half-board', 'full-board', 'all-inclusive'] as const;
export type MealPlan = (typeof mealPlans)[number];

export const Rate = z.strictObject({
  id: z.string().min(1).max(200),
  name: name200,
  rule: z.enum(['member', 'mobile', 'default']).optional(),
  description: z.string().optional(),
  occupancy: z.number().int().min(1).optional(),
  mealPlan: z.enum(mealPlans).optional(),
  breakfastIncluded: z.boolean().optional(),
  lunchIncluded: z.boolean().optional(),
  dinnerIncluded: z.boolean().optional(),
  allInclusive: z.boolean().optional(),
  parkingIncluded: z.boolean().optional(),
  internetIncluded: z.boolean().optional(),
  refundable: Refundable.optional(),
  baseRate: Price,
  taxes: z.array(NamedTax),
  fees: z.array(NamedFee).optional(),
  isShared: z.boolean().optional(),
  checkInTime: hhmm.optional(),
  checkOutTime: hhmm.optional(),
});
export type Rate = z.infer<typeof Rate>;

const bedKinds = ['single', 'semi-double', 'double', 'queen', 'king', 'unknown'] as const;

export const Room = z.strictObject({
  id: z.string().min(1).max(200),
  name: name200,
  description: z.string().optional(),
  capacity: z.number().int().min(1).optional(),
  occupancy: z.number().int().min(1).optional(),
  images: z.array(Image).optional(),
  canBeShared: z.boolean().optional(),
  beds: z.array(z.enum(bedKinds)).optional(),
  style: z.enum(['western', 'japanese', 'japanese-western']).optional(),
  smoking: z.boolean().optional(),
  openAirBath: z.boolean().optional(),
  rates: z.array(Rate).min(1),
});
export type Room = z.infer<typeof Room>;

export const HotelRateResult = z
  .strictObject({
    hotelId: z.string().min(1).max(200),
    checkIn: isoDate,
    nights: z.number().int().min(1),
    guests: z.number().int().min(1).default(2),
    rooms: z.array(Room),
  })
  .superRefine((hotel, context) => {
    // "Unique per hotel" for both room ids and rate ids (interface, Room and Rate objects).
    const roomIds = new Set<string>();
    const rateIds = new Set<string>();
    hotel.rooms.forEach((room, roomIndex) => {
      if (roomIds.has(room.id))
        context.addIssue({ code: 'custom', path: ['rooms', roomIndex, 'id'], message: `duplicate room id ${room.id}` });
      roomIds.add(room.id);
      room.rates.forEach((rate, rateIndex) => {
        if (rateIds.has(rate.id)) {
          context.addIssue({
            code: 'custom',
            path: ['rooms', roomIndex, 'rates', rateIndex, 'id'],
            message: `duplicate rate id ${rate.id}`,
          });
        }
        rateIds.add(rate.id);
      });
    });
  });
export type HotelRateResult = z.infer<typeof HotelRateResult>;

/** Registry. */
const HotelId = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s/?#]+$/, 'must not contain spaces, /, ? or #');

export const HotelSource = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('opentravel'),
    endpointUrl: z.url({ protocol: /^https?$/ }),
    hotelCode: z.string().min(1).max(64),
    chainCode: z.string().max(16).optional(),
    requestorId: z.string().max(64).optional(),
  }),
  z.strictObject({
    kind: z.literal('booking-page'),
    engine: z.string().min(1).max(64).describe('Name of the booking-engine recipe'),
  }),
]);
export type HotelSource = z.infer<typeof HotelSource>;

const HotelGuests = z.union([z.tuple([z.literal(2)]), z.tuple([z.literal(1), z.literal(2)])]);

export const UpsertHotelBody = z.strictObject({
  hotelId: HotelId,
  name: z.string().trim().min(1).max(200),
  ibe: z.string().trim().min(1).max(100).describe('Booking engine (IBE) the hotel uses'),
  address: z.string().trim().max(500),
  countryCode: z.string().regex(/^[a-z]{2}$/, 'must be a lowercase ISO 3166-1 alpha-2 code'),
  bookingServiceId: z.string().max(200).nullable().default(null),
  guests: HotelGuests.default([2]),
  bookingPageUrl: z.url({ protocol: /^https?$/ }),
  source: HotelSource,
});
export type UpsertHotelBody = z.infer<typeof UpsertHotelBody>;

/** A record of `GET /Pull/Hotels` and `GET /Pull/Hotel` (the fields the interface lists for a hotel). */
export const HotelListing = z.object({
  hotelId: z.string(),
  name: z.string(),
  ibe: z.string(),
  address: z.string(),
  bookingServiceId: z.string().nullable(),
  countryCode: z.string(),
  guests: z.array(z.number().int()),
});
export type HotelListing = z.infer<typeof HotelListing>;

export const HotelGrantBody = z.strictObject({
  clientId: z.string().min(1).max(100),
  hotelIds: z.array(HotelId).min(1).max(10_000),
});

/** Push subscriptions. */
export const PushSearchGrid = z.strictObject({
  daysAhead: z.number().int().min(1).max(500).describe('Check-in dates from today for this many days'),
  nights: z.array(z.number().int().min(1).max(30)).min(1).max(30),
  guests: z.array(z.number().int().min(1).max(2)).min(1).max(2),
});
export type PushSearchGrid = z.infer<typeof PushSearchGrid>;

export const CreatePushSubscriptionBody = z.strictObject({
  pushUrl: z.url({ protocol: /^https?$/ }).max(2000),
  apiKey: z.string().min(1).max(500),
  hotelIds: z.array(HotelId).max(10_000),
  searches: PushSearchGrid,
});
export const UpdatePushSubscriptionBody = CreatePushSubscriptionBody.partial();

export const PushSubscriptionView = z.object({
  subscriptionId: z.uuid(),
  pushUrl: z.string(),
  hotelIds: z.array(z.string()),
  searches: PushSearchGrid,
  stateVersion: z.number().int(),
  deliveredVersion: z.number().int(),
  failingSince: z.string().nullable(),
  suspendedAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.iso.datetime(),
});
export type PushSubscriptionView = z.infer<typeof PushSubscriptionView>;

/** Operators' row of the subscriptions list: how far behind it is and how its last push went. */
export const OperatorPushSubscriptionView = PushSubscriptionView.extend({
  clientId: z.string(),
  failures: z.number().int(),
  lagVersions: z.number().int().describe('State versions not delivered yet'),
  lastDelivery: z
    .object({
      startedAt: z.string(),
      status: z.number().int().nullable(),
      outcome: z.string(),
      error: z.string().nullable(),
      durationMs: z.number().int(),
    })
    .nullable(),
});
export type OperatorPushSubscriptionView = z.infer<typeof OperatorPushSubscriptionView>;

export const PushDeliveryView = z.object({
  deliveryId: z.number().int(),
  version: z.number().int(),
  startedAt: z.string(),
  status: z.number().int().nullable(),
  bytes: z.number().int(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  outcome: z.enum(['delivered', 'failed', 'suspended']),
});
export type PushDeliveryView = z.infer<typeof PushDeliveryView>;

/** Job payloads: identifiers only. A search is identified by its four coordinates. */
export const RatesScheduleJobPayload = z.strictObject({});
export const RatesRefreshJobPayload = z.strictObject({
  hotelId: HotelId,
  checkIn: isoDate,
  nights: z.number().int().min(1),
  guests: z.number().int().min(1),
});
export type RatesRefreshJobPayload = z.infer<typeof RatesRefreshJobPayload>;
export const RatesPushJobPayload = z.strictObject({ subscriptionId: z.uuid() });
export type RatesPushJobPayload = z.infer<typeof RatesPushJobPayload>;
