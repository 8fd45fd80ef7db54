import { createHash } from 'node:crypto';
import { describeIssues, HotelRateResult, type Room } from '@quarry/contracts';
import type { RateSearch } from './sources/rate-source.ts';

export type ValidatedResult = { body: string; sha256: Buffer };

/**
 * Validates a source's rooms against the interface's strict schema and serializes the hotel object
 * once. Key order is fixed by the schema's parse output, so equal content gives equal bytes and the
 * hash tells a real change from a refresh that found the same rates.
 */
export function validateResult(search: RateSearch, rooms: Room[]): { ok: true; result: ValidatedResult } | { ok: false; reason: string } {
  const parsed = HotelRateResult.safeParse({
    hotelId: search.hotelId,
    checkIn: search.checkIn,
    nights: search.nights,
    guests: search.guests,
    rooms,
  });
  if (!parsed.success) return { ok: false, reason: describeIssues(parsed.error).slice(0, 20).join('; ') };
  const body = JSON.stringify(parsed.data);
  return { ok: true, result: { body, sha256: createHash('sha256').update(body).digest() } };
}
