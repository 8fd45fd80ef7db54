import type { HotelRow } from '../hotels.queries.ts';
import type { RateSearch, RateSource, SourceOutcome } from './rate-source.ts';

/**
 * Who waits for a search: without one, or while `urgent()` is true, someone waits for the answer
 * now (a pull); otherwise it is scheduled work, which gives way to urgent searches of the source.
 */
export type SearchPriority = { urgent: () => boolean };

/**
 * Runs a search once its source has room: the deployment-wide concurrency and start-rate limits
 * per source key (@quarry/cluster-limits in production), so every process together stays polite.
 */
export type SourceGate = <T>(sourceKey: string, work: () => Promise<T>, signal: AbortSignal, priority?: SearchPriority) => Promise<T>;

/** Picks the adapter of a hotel's source. */
export type SourceRegistry = {
  search(hotel: HotelRow, search: RateSearch, signal: AbortSignal, priority?: SearchPriority): Promise<SourceOutcome>;
};

/** Politeness unit: one booking engine or API host, whatever the number of hotels behind it. */
function sourceKey(hotel: HotelRow): string {
  const url = hotel.source.kind === 'opentravel' ? hotel.source.endpointUrl : hotel.bookingPageUrl;
  try {
    return `${hotel.source.kind}:${new URL(url).host}`;
  } catch {
    return `${hotel.source.kind}:${url}`;
  }
}

export function createSourceRegistry(adapters: Partial<Record<HotelRow['source']['kind'], RateSource>>, gate: SourceGate): SourceRegistry {
  return {
    async search(hotel, search, signal, priority) {
      const adapter = adapters[hotel.source.kind];
      if (!adapter) return { ok: false, kind: 'HotelNotOnIbe', reason: `no adapter for source ${hotel.source.kind} in this process` };
      let started = false;
      try {
        return await gate(
          sourceKey(hotel),
          () => {
            started = true;
            return adapter.search(hotel, search, signal);
          },
          signal,
          priority,
        );
      } catch (error) {
        // Adapters answer with outcomes; what throws is the wait for the source's turn (or Redis).
        const reason = (error as Error).message;
        return started || signal.aborted
          ? { ok: false, kind: 'Timeout', reason }
          : { ok: false, kind: 'SourceDown', reason: `source limit unavailable: ${reason}` };
      }
    },
  };
}
