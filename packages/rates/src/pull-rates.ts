import { validationError } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { readBodies, type BodyCache } from './body-cache.ts';
import { findPullRows, searchKeyString, type SearchKey } from './rate-results.queries.ts';
import type { RefreshOutcome } from './refresh-search.ts';

export type PullQuery = { hotelIds: string[]; checkIn: string; nights: number; guests: number };

const MAX_HOTELS_PER_PULL = 1000;

function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const single = (value: unknown): string | undefined =>
  Array.isArray(value) ? (value.length === 1 ? String(value[0]) : undefined) : value === undefined ? undefined : String(value);

/**
 * Parses `GET /Pull/RatesFeed` parameters; every problem is listed, one message each, as the
 * interface's RequestParametersValidationError shows (`details.messages`).
 */
export function parsePullQuery(query: Record<string, unknown>): PullQuery {
  const messages: string[] = [];
  const rawIds = query.hotelIds ?? query['hotelIds[]'];
  const hotelIds = (Array.isArray(rawIds) ? rawIds : rawIds === undefined ? [] : [rawIds]).map(String);
  if (hotelIds.length === 0) messages.push('hotelIds is required');
  if (hotelIds.length > MAX_HOTELS_PER_PULL) messages.push(`hotelIds must list at most ${MAX_HOTELS_PER_PULL} hotels`);
  hotelIds.forEach((hotelId, index) => {
    if (hotelId.length === 0) messages.push(`hotelIds[${index}] must not be empty`);
    if (hotelId.length > 200) messages.push(`hotelIds[${index}] must be at most 200 characters`);
  });

  const checkIn = single(query.checkIn);
  if (query.checkIn === undefined || checkIn === '') messages.push('checkIn is required');
  else if (checkIn === undefined) messages.push('checkIn must be given once');
  else if (!isRealDate(checkIn)) messages.push('checkIn must be a date in yyyy-MM-dd format');

  const nightsText = single(query.nights);
  const nights = Number(nightsText);
  if (query.nights === undefined || nightsText === '') messages.push('nights is required');
  else if (nightsText === undefined) messages.push('nights must be given once');
  else if (!/^\d+$/.test(nightsText) || !Number.isSafeInteger(nights) || nights < 1)
    messages.push('nights must be an integer of at least 1');

  const guestsText = single(query.guests);
  let guests = 2;
  if (query.guests !== undefined) {
    guests = Number(guestsText);
    if (guestsText === undefined || guestsText === '' || !/^\d+$/.test(guestsText) || guests < 1) {
      messages.push('guests must be an integer of at least 1');
    }
  }
  if (messages.length > 0) throw validationError(messages);
  return { hotelIds: [...new Set(hotelIds)], checkIn: checkIn as string, nights, guests };
}

export type PullPorts = {
  db: Queryable;
  refresh: (key: SearchKey, signal: AbortSignal) => Promise<RefreshOutcome>;
  now: () => Date;
  horizonDays: number;
  /** Live fetches of missing or stale searches must answer within this; later ones are left out. */
  liveDeadlineMs: number;
  /** A live fetch still running at the deadline keeps going (and is stored) up to this. */
  sourceTimeoutMs: number;
  /** Stored bodies this process served lately, reused while the stored hash still matches. */
  cache?: BodyCache;
};

const DAY_MS = 86_400_000;

const open = Buffer.from('[');
const comma = Buffer.from(',');
const close = Buffer.from(']');

/**
 * Answers a pull as the pieces of the serialized JSON array, built from stored bytes. Fresh stored results are
 * served as they are; missing or stale ones are fetched live within the deadline; hotels the client
 * may not see, dates beyond the horizon and guest counts not collected are absent (no coverage).
 * The first query returns only content hashes: a body this process served lately with the same
 * hash is taken from the cache, so a hot pull moves 32 bytes per hotel out of Postgres, not the
 * result, and no text is decoded and re-encoded.
 */
export async function pullRates(
  ports: PullPorts,
  clientId: string,
  query: PullQuery,
): Promise<{ parts: Buffer[]; unknownHotelIds: string[] }> {
  const now = ports.now();
  const today = now.toISOString().slice(0, 10);
  const offsetDays = Math.round((Date.parse(`${query.checkIn}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS);
  const search = { checkIn: query.checkIn, nights: query.nights, guests: query.guests };
  // Every hotel granted to the client comes back, stored result or not: the rest are unknown to
  // it (not registered, or another client's, which is not told apart so as not to reveal it).
  const granted = await findPullRows(ports.db, clientId, query.hotelIds, search, now);
  const known = new Set(granted.map((hotel) => hotel.hotelId));
  const unknownHotelIds = query.hotelIds.filter((hotelId) => !known.has(hotelId));
  const parts = await pullParts(ports, query, search, offsetDays < 0 || offsetDays >= ports.horizonDays ? [] : granted);
  return { parts, unknownHotelIds };
}

async function pullParts(
  ports: PullPorts,
  query: PullQuery,
  search: { checkIn: string; nights: number; guests: number },
  granted: Array<{ hotelId: string; guests: number[]; sha256: Buffer | null }>,
): Promise<Buffer[]> {
  const hotels = granted.filter((hotel) => hotel.guests.includes(query.guests));
  if (hotels.length === 0) return [open, close];
  const stored = await readBodies(
    ports.db,
    hotels.flatMap((hotel) => (hotel.sha256 === null ? [] : [{ hotelId: hotel.hotelId, ...search, sha256: hotel.sha256 }])),
    { cache: ports.cache, encode: (body) => Buffer.from(body) },
  );
  const bodies = new Map<string, Buffer>();
  for (const hotel of hotels) {
    const body = stored.get(searchKeyString({ hotelId: hotel.hotelId, ...search }));
    if (body) bodies.set(hotel.hotelId, body);
  }
  const missing = hotels.filter((hotel) => !bodies.has(hotel.hotelId));
  if (missing.length > 0) {
    const signal = AbortSignal.timeout(ports.sourceTimeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ports.liveDeadlineMs);
    });
    await Promise.race([
      deadline,
      Promise.all(
        missing.map(async (hotel) => {
          const outcome = await ports.refresh({ hotelId: hotel.hotelId, ...search }, signal).catch(() => null);
          if (outcome?.status === 'stored') bodies.set(hotel.hotelId, Buffer.from(outcome.body));
        }),
      ),
    ]);
    clearTimeout(timer);
  }
  // Request order; a hotel answered after the deadline is not added any more (the array is built now).
  const parts: Buffer[] = [open];
  for (const hotelId of query.hotelIds) {
    const body = bodies.get(hotelId);
    if (body === undefined) continue;
    if (parts.length > 1) parts.push(comma);
    parts.push(body);
  }
  parts.push(close);
  // The pieces, not one joined buffer: the caller writes them as one corked writev, and no
  // response-sized buffer is allocated (and collected) per request.
  return parts;
}
