import type { Pool, Queryable } from '@quarry/db';
import { copyBodies, findBodies, searchKeyString, type SearchKey } from './rate-results.queries.ts';

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

const comma = Buffer.from(',');

/**
 * What a push sends of each of `keys` (keyed by `searchKeyString`): `,` and the body, as pieces to
 * write in turn. From the cache while the stored hash still matches; the rest in one binary COPY,
 * the bytes as Postgres sent them (`copyBodies`). Without a cache nothing is joined or copied; with
 * one, each body read is joined once behind its comma, cached, and sent from that copy.
 */
export async function readBodyPieces(
  pool: Pool,
  keys: Array<SearchKey & { sha256: Buffer }>,
  cache: BodyCache | undefined,
): Promise<Map<string, Buffer[]>> {
  const pieces = new Map<string, Buffer[]>();
  const missing = keys.filter((key) => {
    const cached = cache?.get(searchKeyString(key), key.sha256);
    if (cached) pieces.set(searchKeyString(key), [cached]);
    return !cached;
  });
  for (const row of await copyBodies(pool, missing)) {
    const key = searchKeyString(row);
    if (!cache) {
      pieces.set(key, [comma, ...row.parts]);
      continue;
    }
    const bytes = Buffer.allocUnsafe(1 + row.bytes);
    bytes[0] = 0x2c;
    let at = 1;
    for (const part of row.parts) at += part.copy(bytes, at);
    cache.set(key, row.sha256, bytes);
    pieces.set(key, [bytes]);
  }
  return pieces;
}
