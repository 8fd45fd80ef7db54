import type { Queryable } from '@quarry/db';
import { findBodies, searchKeyString, type SearchKey } from './rate-results.queries.ts';

/**
 * Serialized results this worker sent lately, keyed by search and checked against the content hash
 * the database reports at send time: a hit is byte-for-byte the stored body (held as the push
 * sends it, after a comma), never a stale copy.
 * Pushes of the same hotels to many subscriptions then cost one database read, not one each.
 * Bounded by bytes; least recently used entries go first.
 */
export type BodyCache = {
  get(key: string, sha256: Buffer): Buffer | undefined;
  set(key: string, sha256: Buffer, body: Buffer): void;
};

export function createBodyCache(maxBytes: number): BodyCache {
  const entries = new Map<string, { sha256: Buffer; body: Buffer }>();
  let total = 0;
  return {
    get(key, sha256) {
      const entry = entries.get(key);
      if (!entry || !entry.sha256.equals(sha256)) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.body;
    },
    set(key, sha256, body) {
      if (body.length > maxBytes) return;
      const previous = entries.get(key);
      if (previous) {
        total -= previous.body.length;
        entries.delete(key);
      }
      entries.set(key, { sha256, body });
      total += body.length;
      for (const [oldest, entry] of entries) {
        if (total <= maxBytes) break;
        entries.delete(oldest);
        total -= entry.body.length;
      }
    },
  };
}

/**
 * The stored bodies of `keys` (keyed by `searchKeyString`): from the cache while the stored hash
 * still matches, the rest in one query, encoded by `encode` and cached as encoded. A result
 * replaced between the hash read and this one comes back as its newer bytes; one deleted meanwhile
 * is absent.
 */
export async function readBodies(
  db: Queryable,
  keys: Array<SearchKey & { sha256: Buffer }>,
  options: { cache?: BodyCache | undefined; encode: (body: string) => Buffer },
): Promise<Map<string, Buffer>> {
  const bodies = new Map<string, Buffer>();
  const missing = keys.filter((key) => {
    const cached = options.cache?.get(searchKeyString(key), key.sha256);
    if (cached) bodies.set(searchKeyString(key), cached);
    return !cached;
  });
  for (const row of await findBodies(db, missing)) {
    const bytes = options.encode(row.body);
    bodies.set(searchKeyString(row), bytes);
    options.cache?.set(searchKeyString(row), row.sha256, bytes);
  }
  return bodies;
}
