import { randomUUID } from 'node:crypto';
import type { BookingErrorCode } from '@quarry/contracts';
import { createOpenTravelSource, type HotelRow, type SourceOutcome } from '@quarry/rates';
import type { SafeFetch } from '@quarry/safe-fetch';
import type { BookingEngine, RepriceOutcome } from '../booking-engine.ts';
import { buildCancelRQ, buildHotelResRQ, buildReadRQ, readCancelRS, readHotelResRS, readResRetrieveRS } from './ota-reservation.ts';

type OpenTravelHotel = HotelRow & { source: Extract<HotelRow['source'], { kind: 'opentravel' }> };

function openTravelSourceOf(hotel: HotelRow): OpenTravelHotel['source'] {
  if (hotel.source.kind !== 'opentravel') throw new Error(`hotel ${hotel.hotelId} is not an OpenTravel hotel`);
  return hotel.source;
}

/** The rates source's failure kinds as a booking sees them: which end the booking, which are tried again. */
export function repriceOutcome(outcome: SourceOutcome): RepriceOutcome {
  if (outcome.ok) return outcome;
  const map: Record<Exclude<SourceOutcome, { ok: true }>['kind'], { code: BookingErrorCode; transient: boolean }> = {
    RoomsNotAvailable: { code: 'RoomNotAvailable', transient: false },
    AdultsCountNotSupported: { code: 'RoomNotAvailable', transient: false },
    HotelNotOnIbe: { code: 'GenericWebsiteError', transient: false },
    InvalidResult: { code: 'GenericWebsiteError', transient: false },
    SourceDown: { code: 'SystemUnavailable', transient: true },
    Timeout: { code: 'SystemUnavailable', transient: true },
  };
  if (outcome.kind === 'RoomsNotAvailable') return { ok: true, rooms: [] };
  return { ok: false, reason: outcome.reason, ...map[outcome.kind] };
}

/**
 * The booking engine of OpenTravel hotels: re-prices with `OTA_HotelAvailRQ` (the rates source's
 * own request and strict reading), orders with `OTA_HotelResRQ`, and reads a reservation by our
 * reference with `OTA_ReadRQ` (after a crash, and after a 3-D Secure challenge: ADR 0039), and
 * cancels with `OTA_CancelRQ` a reservation whose challenge expired.
 */
export function createOpenTravelBookingEngine(ports: { fetch: SafeFetch; timeoutMs: number }): BookingEngine {
  const rates = createOpenTravelSource(ports);
  const post = async (hotel: HotelRow, xml: string, signal: AbortSignal): Promise<string> => {
    const response = await ports.fetch(openTravelSourceOf(hotel).endpointUrl, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', accept: 'text/xml' },
      body: xml,
      signal,
      timeoutMs: ports.timeoutMs,
      maxBytes: 2 * 1024 * 1024,
    });
    const body = await response.text();
    if (response.status >= 400) throw new Error(`the OpenTravel endpoint answered ${response.status}`);
    return body;
  };
  const read = async (hotel: HotelRow, reference: string, signal: AbortSignal) => {
    const echoToken = randomUUID();
    return readResRetrieveRS(await post(hotel, buildReadRQ(openTravelSourceOf(hotel), reference, echoToken), signal), echoToken, reference);
  };
  return {
    async reprice(hotel, stay, signal) {
      return repriceOutcome(await rates.search(hotel, { hotelId: hotel.hotelId, ...stay }, signal));
    },
    async placeOrder(hotel, order, signal) {
      const echoToken = randomUUID();
      const answer = await post(hotel, buildHotelResRQ(openTravelSourceOf(hotel), order, echoToken), signal);
      return readHotelResRS(answer, echoToken, order.reference, order.total);
    },
    findOrderByReference: read,
    continueAfterChallenge: read,
    async cancelOrder(hotel, reference, signal) {
      const echoToken = randomUUID();
      return readCancelRS(await post(hotel, buildCancelRQ(openTravelSourceOf(hotel), reference, echoToken), signal), echoToken);
    },
  };
}
