import type { RetrievalCacheSettings } from '@quarry/config';
import { createAnnouncedCache } from '@quarry/db';
import { LRUCache } from 'lru-cache';

/** Which retrieval route's body: v1 find (no categories) or /questions and v2 find. */
export type RetrievalShape = 'v1' | 'v2';

/**
 * Completed retrieval answers kept by an API process, so the hottest read of the service costs no
 * database round trip (it was most of the cost: express alone serves ~20,000 req/s here, with the
 * query ~6,000). An announced cache (`createAnnouncedCache` of `packages/db`, its rules there): only
 * answers of a `completed` newest submission are kept; they change only when a mining outcome is
 * recorded, and the worker that records one announces it (`invalidate`, over Redis pub/sub,
 * `result-announcements.ts`). Entries also expire after `ttlMs`, which bounds the damage of an
 * announcement lost to a worker crash between its commit and its publish.
 */
export type RetrievalCache = {
  get(clientId: string, jobPostId: string, shape: RetrievalShape): string | undefined;
  /** Null while the cache cannot be trusted; pass the value to `keep` after reading the store. */
  reservation(): number | null;
  keep(reservation: number, clientId: string, jobPostId: string, shape: RetrievalShape, answer: string): void;
  invalidate(clientId: string, jobPostId: string): void;
  /** Announcements may have been missed (subscriber down): drop everything and stop serving. */
  suspend(): void;
  /** Announcements flow again (subscriber subscribed). */
  resume(): void;
};

export function createRetrievalCache(options: RetrievalCacheSettings): RetrievalCache {
  const cache = createAnnouncedCache<string, string>(
    new LRUCache({ maxSize: Math.max(1, options.maxBytes), sizeCalculation: (answer) => Math.max(1, answer.length), ttl: options.ttlMs }),
    { keeps: options.maxBytes > 0 },
  );
  const keyOf = (clientId: string, jobPostId: string, shape: RetrievalShape) => `${clientId}\n${jobPostId}\n${shape}`;
  return {
    get: (clientId, jobPostId, shape) => cache.get(keyOf(clientId, jobPostId, shape)),
    reservation: () => cache.reservation(),
    keep: (reservation, clientId, jobPostId, shape, answer) => cache.keep(reservation, keyOf(clientId, jobPostId, shape), answer),
    invalidate: (clientId, jobPostId) => cache.invalidate(keyOf(clientId, jobPostId, 'v1'), keyOf(clientId, jobPostId, 'v2')),
    suspend: () => cache.suspend(),
    resume: () => cache.resume(),
  };
}
