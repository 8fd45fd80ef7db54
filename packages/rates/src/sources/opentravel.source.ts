// Longer than 400 lines: the OpenTravel availability adapter, request and response; the charge and tax
// mapping rules are read together with the response they map.
import { randomUUID } from 'node:crypto';
import type { FeeCode, MealPlan, Rate, Room, TaxCode } from '@quarry/contracts';
import type { SafeFetch } from '@quarry/safe-fetch';
import { XMLParser } from 'fast-xml-parser';
import type { HotelRow } from '../hotels.queries.ts';
import { toPrice } from './money.ts';
import { checkEchoToken, checkRoomStayBelongs, type Question } from './opentravel-answer-check.ts';
import { asNode, attr, list, otaXmlParserOptions, text, type Node } from './ota-xml.ts';
import { checkOutOf, failureOutcome, SourceFailure, type RateSearch, type RateSource, type SourceOutcome } from './rate-source.ts';

/**
 * OpenTravel `OTA_HotelAvailRQ` → `OTA_HotelAvailRS`. Namespace-tolerant (the public 2001B samples
 * use `http://www.opentravel.org/OTA`, current messages `…/OTA/2003/05`), because prefixes are
 * stripped and only local names are read.
 */

const repeated = new Set([
  'RoomStay',
  'RoomType',
  'RatePlan',
  'RoomRate',
  'Rate',
  'Tax',
  'Fee',
  'CancelPenalty',
  'Error',
  'Warning',
  'SummaryResponse',
  'Text',
  'GuestCount',
]);

const parser = new XMLParser({ ...otaXmlParserOptions, isArray: (name) => repeated.has(name) });

const bool = (value: string | undefined): boolean | undefined => (value === undefined ? undefined : /^(true|1)$/i.test(value));

// OpenTravel code list "Fee Tax Type" (FTT): which of our codes each one is, and whether it is a fee.
const fttCodes: Record<string, { kind: 'tax'; code: TaxCode } | { kind: 'fee'; code: FeeCode }> = {
  '1': { kind: 'tax', code: 'other-taxes' }, // Bed tax
  '2': { kind: 'fee', code: 'hotel-fee' }, // City hotel fee
  '3': { kind: 'tax', code: 'city-tax' }, // City tax
  '8': { kind: 'tax', code: 'other-taxes' }, // Lodging tax
  '9': { kind: 'fee', code: 'hotel-fee' }, // Maintenance fee
  '10': { kind: 'tax', code: 'other-taxes' }, // Occupancy tax
  '11': { kind: 'fee', code: 'other-fees' }, // Package fee
  '12': { kind: 'fee', code: 'resort-fee' }, // Resort fee
  '13': { kind: 'tax', code: 'other-taxes' }, // Sales tax
  '14': { kind: 'fee', code: 'service-fee' }, // Service charge
  '16': { kind: 'fee', code: 'other-fees' }, // Surcharge
  '18': { kind: 'tax', code: 'city-tax' }, // Tourism tax
  '19': { kind: 'tax', code: 'vat' }, // VAT/GST tax
  '22': { kind: 'fee', code: 'booking-fee' }, // Application fee
  '23': { kind: 'fee', code: 'booking-fee' }, // Express handling fee
  '27': { kind: 'fee', code: 'other-fees' }, // Miscellaneous
  '33': { kind: 'fee', code: 'service-fee' }, // Room service fee
  '35': { kind: 'tax', code: 'vat' }, // Goods and services tax
  '36': { kind: 'tax', code: 'vat' }, // Value added tax
};

// OpenTravel code list "Meal Plan Type" (MPT).
const mealPlanCodes: Record<string, MealPlan> = {
  '1': 'all-inclusive',
  '3': 'breakfast',
  '10': 'full-board',
  '12': 'half-board',
  '14': 'room-only',
  '19': 'breakfast',
};

/** A Tax's `TaxDescription`, a Fee's `Description` (the schema's name; some sources write `FeeDescription`). */
function chargeDescription(node: Node): string | undefined {
  const first = (value: unknown) => asNode(Array.isArray(value) ? value[0] : value);
  return text(first(node.TaxDescription)?.Text) ?? text(first(node.Description)?.Text) ?? text(first(node.FeeDescription)?.Text);
}

function classifyCharge(node: Node): { kind: 'tax'; code?: TaxCode } | { kind: 'fee'; code?: FeeCode } {
  const code = attr(node, 'Code');
  const known = code ? fttCodes[code] : undefined;
  if (known) return known;
  const description = (chargeDescription(node) ?? '').toLowerCase();
  if (/resort/.test(description)) return { kind: 'fee', code: 'resort-fee' };
  if (/service/.test(description)) return { kind: 'fee', code: 'service-fee' };
  if (/\bfee\b/.test(description)) return { kind: 'fee', code: 'other-fees' };
  if (/city|tourism|tourist/.test(description)) return { kind: 'tax', code: 'city-tax' };
  if (/vat|gst|value added/.test(description)) return { kind: 'tax', code: 'vat' };
  return { kind: 'tax', code: 'other-taxes' };
}

function chargeName(node: Node, fallback: string): string {
  return chargeDescription(node) ?? attr(node, 'Name') ?? fallback;
}

function mealPlanOf(ratePlan: Node | undefined): MealPlan | undefined {
  const meals = asNode(ratePlan?.MealsIncluded);
  if (!meals) return undefined;
  const byCode = attr(meals, 'MealPlanCodes')
    ?.split(/\s+/)
    .map((code) => mealPlanCodes[code])
    .find(Boolean);
  if (byCode) return byCode;
  const [breakfast, lunch, dinner] = [bool(attr(meals, 'Breakfast')), bool(attr(meals, 'Lunch')), bool(attr(meals, 'Dinner'))];
  if (breakfast && lunch && dinner) return 'full-board';
  if (breakfast && dinner) return 'half-board';
  if (breakfast) return 'breakfast';
  if (bool(attr(meals, 'MealPlanIndicator')) === false) return 'room-only';
  return undefined;
}

function refundableOf(ratePlan: Node | undefined, search: RateSearch): Rate['refundable'] {
  const penalties = list(asNode(ratePlan?.CancelPenalties)?.CancelPenalty);
  if (penalties.length === 0) return undefined;
  if (penalties.some((penalty) => bool(attr(penalty, 'NonRefundable')) === true)) return { available: false };
  const deadlines = penalties.map((penalty) => asNode(penalty.Deadline)).filter((deadline): deadline is Node => deadline !== undefined);
  const absolute = deadlines.map((deadline) => attr(deadline, 'AbsoluteDeadline')).find(Boolean);
  if (absolute) {
    const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?/.exec(absolute);
    if (!match?.[1]) throw new SourceFailure('InvalidResult', `cancel deadline "${absolute}" is not a date`);
    return { available: true, untilDate: match[1], ...(match[2] ? { untilTime: match[2] } : {}) };
  }
  const offset = deadlines.find(
    (deadline) => attr(deadline, 'OffsetDropTime') === 'BeforeArrival' && attr(deadline, 'OffsetTimeUnit') === 'Day',
  );
  if (offset) {
    const days = Number(attr(offset, 'OffsetUnitMultiplier') ?? 'NaN');
    if (!Number.isInteger(days) || days < 0)
      throw new SourceFailure('InvalidResult', 'cancel deadline offset is not a whole number of days');
    const date = new Date(`${search.checkIn}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() - days);
    return { available: true, untilDate: date.toISOString().slice(0, 10) };
  }
  return { available: true };
}

type Charge =
  | { kind: 'tax'; code?: TaxCode; name: string; otaCode?: string; price: Rate['baseRate'] }
  | { kind: 'fee'; code?: FeeCode; name: string; otaCode?: string; price: Rate['baseRate'] };

function readCharge(charge: Node, ratePlanCode: string, currency: string, decimals: number | undefined): Charge {
  const amount = attr(charge, 'Amount');
  if (!amount) throw new SourceFailure('InvalidResult', `a tax or fee of rate ${ratePlanCode} has no Amount`);
  const chargeDecimals = attr(charge, 'DecimalPlaces') === undefined ? decimals : Number(attr(charge, 'DecimalPlaces'));
  const price = toPrice(amount, attr(charge, 'CurrencyCode') ?? currency, chargeDecimals);
  const kind = classifyCharge(charge);
  const otaCode = attr(charge, 'Code');
  return { ...kind, name: chargeName(charge, kind.kind === 'tax' ? 'Tax' : 'Fee'), ...(otaCode ? { otaCode } : {}), price } as Charge;
}

/** What makes two charges the same charge given at two levels: its OpenTravel code, else its name. */
const chargeKey = (charge: Charge) => (charge.otaCode ? `code:${charge.otaCode}` : `name:${charge.name.toLowerCase()}`);

/**
 * Fees given per rate (`RoomRate/Rates/Rate/Fees`, where the OpenTravel schema puts them: each
 * `Rate` covers a part of the stay, its fees are that part's), added up over the stay per fee.
 * A fee the stay level already itemises (same code, else same name) is that fee's breakdown and
 * is not counted again. `Type="Inclusive"` fees are inside the rate's amount already: listing them
 * beside `baseRate` would charge them twice.
 */
function perRateFees(
  roomRate: Node,
  stayCharges: Charge[],
  ratePlanCode: string,
  currency: string,
  decimals: number | undefined,
): Charge[] {
  const itemised = new Set(stayCharges.map(chargeKey));
  const sums = new Map<string, Charge>();
  for (const rate of list(asNode(roomRate.Rates)?.Rate)) {
    for (const fee of list(asNode(rate.Fees)?.Fee)) {
      if (attr(fee, 'Type')?.toLowerCase() === 'inclusive') continue;
      const charge = readCharge(fee, ratePlanCode, currency, decimals);
      const key = chargeKey(charge);
      if (itemised.has(key)) continue;
      const sum = sums.get(key);
      if (!sum) sums.set(key, charge);
      else if (sum.price.currencyCode !== charge.price.currencyCode)
        throw new SourceFailure('InvalidResult', `rate ${ratePlanCode} mixes currencies`);
      else sum.price = { currencyCode: sum.price.currencyCode, value: sum.price.value + charge.price.value };
    }
  }
  return [...sums.values()];
}

function readRate(roomRate: Node, ratePlan: Node | undefined, roomTypeCode: string, search: RateSearch): Rate {
  const ratePlanCode = attr(roomRate, 'RatePlanCode') ?? attr(ratePlan, 'RatePlanCode');
  if (!ratePlanCode) throw new SourceFailure('InvalidResult', `a RoomRate of room ${roomTypeCode} has no RatePlanCode`);
  // The stay total, never a nightly figure times nights: nightly rates may change during the stay.
  const total = asNode(roomRate.Total);
  if (!total) throw new SourceFailure('InvalidResult', `rate ${ratePlanCode} of room ${roomTypeCode} has no stay Total`);
  const currency = attr(total, 'CurrencyCode');
  if (!currency) throw new SourceFailure('InvalidResult', `rate ${ratePlanCode} has no CurrencyCode`);
  const decimals = attr(total, 'DecimalPlaces') === undefined ? undefined : Number(attr(total, 'DecimalPlaces'));
  const before = attr(total, 'AmountBeforeTax');
  const after = attr(total, 'AmountAfterTax');
  // Stay level: the Total's Taxes (the schema's place; FTT codes there may be fees), and the
  // Fees some sources write beside the Total or inside it.
  const stayCharges = [...list(asNode(total.Taxes)?.Tax), ...list(asNode(roomRate.Fees)?.Fee), ...list(asNode(total.Fees)?.Fee)].map(
    (charge) => readCharge(charge, ratePlanCode, currency, decimals),
  );
  const rateFees = perRateFees(roomRate, stayCharges, ratePlanCode, currency, decimals);
  const stayItemised = stayCharges.reduce((sum, charge) => sum + charge.price.value, 0);
  const rateFeesSum = rateFees.reduce((sum, charge) => sum + charge.price.value, 0);
  const named = (charge: Charge) => ({
    type: 'NamedPrice' as const,
    name: charge.name,
    ...(charge.code ? { code: charge.code } : {}),
    price: charge.price,
  });
  const taxes: Rate['taxes'] = [];
  const fees: NonNullable<Rate['fees']> = [];
  for (const charge of [...stayCharges, ...rateFees]) {
    if (charge.kind === 'tax') taxes.push(named(charge) as Rate['taxes'][number]);
    else fees.push(named(charge) as NonNullable<Rate['fees']>[number]);
  }
  // The schema's Total is "the total amount … including additional occupant amounts and fees":
  // per-rate fees are inside it. Where they sit is told by the amounts: either between
  // AmountBeforeTax and AmountAfterTax (beside the taxes), or inside AmountBeforeTax (then the
  // room's own price is AmountBeforeTax less those fees). Either way the guest pays AmountAfterTax.
  let baseRate;
  if (before !== undefined) {
    baseRate = toPrice(before, currency, decimals);
    if (after !== undefined) {
      const afterPrice = toPrice(after, currency, decimals);
      const difference = afterPrice.value - baseRate.value;
      if (difference < 0) throw new SourceFailure('InvalidResult', `rate ${ratePlanCode}: AmountAfterTax is below AmountBeforeTax`);
      if (stayCharges.length > 0 && stayItemised + rateFeesSum === difference) {
        // Every charge, per-rate fees included, sits between the two amounts.
      } else if (stayCharges.length > 0 && stayItemised === difference) {
        baseRate = { currencyCode: baseRate.currencyCode, value: baseRate.value - rateFeesSum };
      } else if (stayCharges.length > 0) {
        throw new SourceFailure(
          'InvalidResult',
          `rate ${ratePlanCode}: taxes and fees ${stayItemised + rateFeesSum} do not add up to AmountAfterTax - AmountBeforeTax = ${difference}`,
        );
      } else {
        // No itemised taxes: the difference is the taxes, and the per-rate fees are in the Total.
        baseRate = { currencyCode: baseRate.currencyCode, value: baseRate.value - rateFeesSum };
        if (difference > 0)
          taxes.push({
            type: 'NamedPrice',
            name: 'Taxes',
            code: 'other-taxes',
            price: { currencyCode: baseRate.currencyCode, value: difference },
          });
      }
    } else {
      baseRate = { currencyCode: baseRate.currencyCode, value: baseRate.value - rateFeesSum };
    }
  } else if (after !== undefined) {
    const afterPrice = toPrice(after, currency, decimals);
    baseRate = { currencyCode: afterPrice.currencyCode, value: afterPrice.value - stayItemised - rateFeesSum };
  } else {
    throw new SourceFailure('InvalidResult', `rate ${ratePlanCode} has neither AmountBeforeTax nor AmountAfterTax`);
  }
  if (baseRate.value < 0) throw new SourceFailure('InvalidResult', `rate ${ratePlanCode}: its fees exceed its Total`);
  if ([...taxes, ...fees].some((item) => item.price.currencyCode !== baseRate.currencyCode)) {
    throw new SourceFailure('InvalidResult', `rate ${ratePlanCode} mixes currencies`);
  }
  const mealPlan = mealPlanOf(ratePlan);
  const refundable = refundableOf(ratePlan, search);
  const description = text(asNode(ratePlan?.RatePlanDescription)?.Text);
  return {
    id: `${roomTypeCode}:${ratePlanCode}`,
    name: (attr(ratePlan, 'RatePlanName') ?? ratePlanCode).slice(0, 200),
    ...(description ? { description } : {}),
    ...(mealPlan ? { mealPlan } : {}),
    ...(refundable ? { refundable } : {}),
    baseRate,
    taxes,
    ...(fees.length > 0 ? { fees } : {}),
  };
}

function roomsOfRoomStay(roomStay: Node, search: RateSearch): Room[] {
  const roomTypes = new Map(list(asNode(roomStay.RoomTypes)?.RoomType).map((roomType) => [attr(roomType, 'RoomTypeCode') ?? '', roomType]));
  const ratePlans = new Map(list(asNode(roomStay.RatePlans)?.RatePlan).map((ratePlan) => [attr(ratePlan, 'RatePlanCode') ?? '', ratePlan]));
  const rooms = new Map<string, Room>();
  for (const roomRate of list(asNode(roomStay.RoomRates)?.RoomRate)) {
    const roomTypeCode = attr(roomRate, 'RoomTypeCode');
    if (!roomTypeCode) throw new SourceFailure('InvalidResult', 'a RoomRate has no RoomTypeCode');
    const roomType = roomTypes.get(roomTypeCode);
    const ratePlan = ratePlans.get(attr(roomRate, 'RatePlanCode') ?? '');
    const description = asNode(roomType?.RoomDescription);
    let room = rooms.get(roomTypeCode);
    if (!room) {
      const maxOccupancy = Number(attr(asNode(roomType?.Occupancy), 'MaxOccupancy') ?? attr(roomType, 'StandardOccupancy') ?? 'NaN');
      const roomText = text(description?.Text);
      room = {
        id: roomTypeCode,
        name: (attr(description, 'Name') ?? attr(roomType, 'RoomType') ?? roomTypeCode).slice(0, 200),
        ...(roomText ? { description: roomText } : {}),
        ...(Number.isInteger(maxOccupancy) && maxOccupancy > 0 ? { occupancy: maxOccupancy } : {}),
        ...(attr(roomType, 'NonSmoking') !== undefined ? { smoking: bool(attr(roomType, 'NonSmoking')) === false } : {}),
        rates: [],
      };
      rooms.set(roomTypeCode, room);
    }
    room.rates.push(readRate(roomRate, ratePlan, roomTypeCode, search));
  }
  return [...rooms.values()];
}

function failureFromErrors(root: Node): SourceFailure | null {
  const errors = list(asNode(root.Errors)?.Error);
  if (errors.length === 0) return null;
  const described = errors
    .map((error) => `${attr(error, 'Code') ?? '?'} ${attr(error, 'ShortText') ?? text(error) ?? ''}`.trim())
    .join('; ');
  const codes = errors.map((error) => attr(error, 'Code'));
  const words = described.toLowerCase();
  // OpenTravel "Error Code" list: 322 No availability, 424 No hotels found, 392 Invalid hotel code, 375 Hotel not active.
  if (codes.includes('322') || codes.includes('424') || /no availability|sold out/.test(words))
    return new SourceFailure('RoomsNotAvailable', described);
  if (codes.includes('392') || codes.includes('375') || /invalid hotel|hotel not/.test(words))
    return new SourceFailure('HotelNotOnIbe', described);
  if (/adult|occupan|guest count/.test(words)) return new SourceFailure('AdultsCountNotSupported', described);
  return new SourceFailure('SourceDown', described);
}

/**
 * Maps an `OTA_HotelAvailRS` answering `question` to rooms, or throws a typed SourceFailure naming
 * why not; an answer to another question (EchoToken, hotel, stay, guests) is such a failure.
 */
export function mapHotelAvailRS(xml: string, question: Question): Room[] {
  const search = question;
  let document: Node;
  try {
    document = parser.parse(xml) as Node;
  } catch (error) {
    throw new SourceFailure('InvalidResult', `response is not XML: ${(error as Error).message}`);
  }
  const envelope = asNode(document.Envelope);
  const root = asNode(document.OTA_HotelAvailRS) ?? asNode(asNode(envelope?.Body)?.OTA_HotelAvailRS);
  if (!root) throw new SourceFailure('InvalidResult', 'response is not an OTA_HotelAvailRS');
  checkEchoToken(root, question);
  const failure = failureFromErrors(root);
  if (failure) throw failure;
  const roomStays = list(asNode(root.RoomStays)?.RoomStay);
  if (roomStays.length > 0) {
    for (const roomStay of roomStays) checkRoomStayBelongs(roomStay, question);
    const rooms = roomStays.flatMap((roomStay) => roomsOfRoomStay(roomStay, search));
    // Several RoomStays may list the same room type; merge their rates under one room.
    const merged = new Map<string, Room>();
    for (const room of rooms) {
      const existing = merged.get(room.id);
      if (existing) existing.rates.push(...room.rates);
      else merged.set(room.id, room);
    }
    return [...merged.values()];
  }
  const summaries = list(root.SummaryResponse);
  if (summaries.length > 0) {
    // OTA 2001B summary answers quote one rate (often a nightly average or a range) and no stay
    // total; serving it would invent the total, so it is refused with the reason.
    const reasons = summaries.map((summary) => {
      const quoted = attr(asNode(asNode(summary.RateQuote)?.QuotedRate), 'RateAmount') ?? '?';
      const currency = attr(summary, 'CurrencyCode') ?? '?';
      const indicator = attr(summary, 'RateIndicator');
      return `${attr(asNode(summary.HotelReference), 'HotelCode') ?? '?'}: summary quote ${quoted} ${currency}${indicator ? ` (${indicator})` : ''} has no stay total`;
    });
    throw new SourceFailure('InvalidResult', reasons.join('; '));
  }
  if (root.Success !== undefined) return [];
  throw new SourceFailure('InvalidResult', 'OTA_HotelAvailRS has neither Success, RoomStays nor Errors');
}

const escapeXml = (value: string) => value.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function buildHotelAvailRQ(
  source: { hotelCode: string; chainCode?: string; requestorId?: string },
  search: RateSearch,
  echoToken: string,
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<OTA_HotelAvailRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.0" EchoToken="${escapeXml(echoToken)}" AvailRatesOnly="true" RateDetailsInd="true">
  <POS><Source>${source.requestorId ? `<RequestorID Type="18" ID="${escapeXml(source.requestorId)}"/>` : ''}</Source></POS>
  <AvailRequestSegments>
    <AvailRequestSegment AvailReqType="Room">
      <HotelSearchCriteria><Criterion><HotelRef HotelCode="${escapeXml(source.hotelCode)}"${source.chainCode ? ` ChainCode="${escapeXml(source.chainCode)}"` : ''}/></Criterion></HotelSearchCriteria>
      <StayDateRange Start="${search.checkIn}" End="${checkOutOf(search)}"/>
      <RoomStayCandidates><RoomStayCandidate Quantity="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="${search.guests}"/></GuestCounts></RoomStayCandidate></RoomStayCandidates>
    </AvailRequestSegment>
  </AvailRequestSegments>
</OTA_HotelAvailRQ>`;
}

export function createOpenTravelSource(ports: { fetch: SafeFetch; timeoutMs: number }): RateSource {
  return {
    async search(hotel: HotelRow, search: RateSearch, signal: AbortSignal): Promise<SourceOutcome> {
      const source = hotel.source;
      if (source.kind !== 'opentravel') return { ok: false, kind: 'HotelNotOnIbe', reason: 'hotel is not configured for OpenTravel' };
      // A new token per request, not per search: an answer to an earlier request for the same
      // search (now stale) must not pass for this one's either.
      const question: Question = { ...search, hotelCode: source.hotelCode, echoToken: randomUUID() };
      try {
        const response = await ports.fetch(source.endpointUrl, {
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8', accept: 'text/xml' },
          body: buildHotelAvailRQ(source, search, question.echoToken),
          signal,
          timeoutMs: ports.timeoutMs,
          maxBytes: 20 * 1024 * 1024,
        });
        const body = await response.text();
        if (response.status >= 400) throw new SourceFailure('SourceDown', `OpenTravel endpoint answered ${response.status}`);
        return { ok: true, rooms: mapHotelAvailRS(body, question) };
      } catch (error) {
        return failureOutcome(error, signal);
      }
    },
  };
}
