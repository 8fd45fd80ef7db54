import type { RetrievalCacheSettings } from '@quarry/config';
import { LRUCache } from 'lru-cache';

/** Which retrieval route's body: v1 find (no categories) or /questions and v2 find. */
export type RetrievalShape = 'v1' | 'v2';

/**
 * Completed retrieval answers kept by an API process, so the hottest read of the service costs no
 * database round trip (it was most of the cost: express alone serves ~20,000 req/s here, with the
 * query ~6,000). Correctness rests on three rules:
 * - only answers of a `completed` newest submission are kept; they change only when a mining
 *   outcome is recorded, and the worker that records one announces it (`invalidate`, over Redis
 *   pub/sub in the app);
 * - a read that raced an announcement is not kept: `reservation()` is taken before reading the
 *   store and `keep` ignores it if any announcement arrived meanwhile;
 * - while announcements cannot arrive (the subscriber is down) nothing is served or kept, and
 *   everything is dropped when it comes back; entries also expire after `ttlMs`, which bounds the
 *   damage of an announcement lost to a worker crash between its commit and its publish.
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
  const entries = new LRUCache<string, string>({ maxSize: Math.max(1, options.maxBytes), sizeCalculation: (answer) => Math.max(1, answer.length), ttl: options.ttlMs });
  let generation = 0;
  let trusted = false;
  const keyOf = (clientId: string, jobPostId: string, shape: RetrievalShape) => `${clientId}\n${jobPostId}\n${shape}`;
  return {
    get: (clientId, jobPostId, shape) => (trusted ? entries.get(keyOf(clientId, jobPostId, shape)) : undefined),
    reservation: () => (trusted ? generation : null),
    keep(reservation, clientId, jobPostId, shape, answer) {
      if (!trusted || reservation !== generation || options.maxBytes === 0) return;
      entries.set(keyOf(clientId, jobPostId, shape), answer);
    },
    invalidate(clientId, jobPostId) {
      generation += 1;
      entries.delete(keyOf(clientId, jobPostId, 'v1'));
      entries.delete(keyOf(clientId, jobPostId, 'v2'));
    },
    suspend() {
      trusted = false;
      generation += 1;
      entries.clear();
    },
    resume() {
      generation += 1;
      entries.clear();
      trusted = true;
    },
  };
}
