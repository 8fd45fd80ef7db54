import type { Room } from '@quarry/contracts';
import type { HotelRow } from '../hotels.queries.ts';

export type RateSearch = { hotelId: string; checkIn: string; nights: number; guests: number };

/**
 * What a source may answer. `RoomsNotAvailable` is a real answer (stored as `rooms: []`);
 * `HotelNotOnIbe` and `AdultsCountNotSupported` mean no coverage; the rest are failures: logged
 * with their reason, never stored, never served.
 */
export type SourceFailureKind =
  'RoomsNotAvailable' | 'HotelNotOnIbe' | 'AdultsCountNotSupported' | 'SourceDown' | 'Timeout' | 'InvalidResult';

export type SourceOutcome = { ok: true; rooms: Room[] } | { ok: false; kind: SourceFailureKind; reason: string };

/** An adapter: one search against one hotel's booking engine or distribution API. */
export type RateSource = {
  search(hotel: HotelRow, search: RateSearch, signal: AbortSignal): Promise<SourceOutcome>;
};

/** Typed failure thrown inside adapters and turned into an outcome at their edge. */
export class SourceFailure extends Error {
  readonly kind: SourceFailureKind;
  constructor(kind: SourceFailureKind, reason: string) {
    super(reason);
    this.name = 'SourceFailure';
    this.kind = kind;
  }
}

export function failureOutcome(error: unknown, signal: AbortSignal): SourceOutcome {
  if (error instanceof SourceFailure) return { ok: false, kind: error.kind, reason: error.message };
  if (signal.aborted) return { ok: false, kind: 'Timeout', reason: 'search aborted at its deadline' };
  const name = (error as { name?: string } | null)?.name;
  if (name === 'FetchTimeoutError' || name === 'TimeoutError') return { ok: false, kind: 'Timeout', reason: (error as Error).message };
  return { ok: false, kind: 'SourceDown', reason: error instanceof Error ? error.message : String(error) };
}

export function checkOutOf(search: RateSearch): string {
  const date = new Date(`${search.checkIn}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + search.nights);
  return date.toISOString().slice(0, 10);
}
