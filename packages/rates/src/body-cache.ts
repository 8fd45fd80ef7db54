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
