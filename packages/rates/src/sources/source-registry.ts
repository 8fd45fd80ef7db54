import type { HotelRow } from '../hotels.queries.ts';
import type { RateSearch, RateSource, SourceOutcome } from './rate-source.ts';

export type SourceLimits = { concurrency: number; perSecond: number };

/** Picks the adapter of a hotel's source. */
export type SourceRegistry = { search(hotel: HotelRow, search: RateSearch, signal: AbortSignal): Promise<SourceOutcome> };

/** Politeness unit: one booking engine or API host, whatever the number of hotels behind it. */
function sourceKey(hotel: HotelRow): string {
  const url = hotel.source.kind === 'opentravel' ? hotel.source.endpointUrl : hotel.bookingPageUrl;
  try {
    return `${hotel.source.kind}:${new URL(url).host}`;
  } catch {
    return `${hotel.source.kind}:${url}`;
  }
}

/** At most `concurrency` searches at once and `perSecond` starts per second, per source key, in this process. */
function createLimiter(limits: SourceLimits) {
  let active = 0;
  let nextStartAt = 0;
  const waiting: Array<() => void> = [];
  const spacingMs = limits.perSecond > 0 ? 1000 / limits.perSecond : 0;
  const pump = () => {
    while (active < limits.concurrency && waiting.length > 0) {
      const wait = Math.max(0, nextStartAt - Date.now());
      if (wait > 0) {
        setTimeout(pump, wait).unref();
        return;
      }
      nextStartAt = Date.now() + spacingMs;
      active += 1;
      waiting.shift()?.();
    }
  };
  return async <T>(work: () => Promise<T>, signal: AbortSignal): Promise<T> => {
    await new Promise<void>((resolve, reject) => {
      const start = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = waiting.indexOf(start);
        if (index >= 0) waiting.splice(index, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted while waiting for the source'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      waiting.push(start);
      pump();
    });
    try {
      return await work();
    } finally {
      active -= 1;
      pump();
    }
  };
}

export function createSourceRegistry(adapters: Partial<Record<HotelRow['source']['kind'], RateSource>>, limits: SourceLimits): SourceRegistry {
  const limiters = new Map<string, ReturnType<typeof createLimiter>>();
  return {
    async search(hotel, search, signal) {
      const adapter = adapters[hotel.source.kind];
      if (!adapter) return { ok: false, kind: 'HotelNotOnIbe', reason: `no adapter for source ${hotel.source.kind} in this process` };
      const key = sourceKey(hotel);
      let limiter = limiters.get(key);
      if (!limiter) {
        limiter = createLimiter(limits);
        limiters.set(key, limiter);
      }
      try {
        return await limiter(() => adapter.search(hotel, search, signal), signal);
      } catch (error) {
        return { ok: false, kind: 'Timeout', reason: (error as Error).message };
      }
    },
  };
}
