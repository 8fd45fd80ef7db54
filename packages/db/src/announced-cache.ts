/** Where an announced cache keeps its entries: an LRU with its own size and age limits, or a Map. */
export type CacheEntries<Key, Value> = {
  get(key: Key): Value | undefined;
  set(key: Key, value: Value): unknown;
  delete(key: Key): unknown;
  clear(): void;
};

/**
 * A process's copy of what the store holds, for reads that must cost no round trip, kept correct
 * by announcements of every committed change (a Postgres NOTIFY, a Redis publish). Its rules:
 * - an announcement drops the entries it names (`invalidate`);
 * - a read that raced an announcement is not kept: `reservation()` is taken before reading the
 *   store and `keep` ignores it if any announcement arrived meanwhile;
 * - while announcements cannot arrive (the listening connection is down: `suspend`) nothing is
 *   served or kept, and everything is dropped when they flow again (`resume`). It starts suspended.
 */
export type AnnouncedCache<Key, Value> = {
  get(key: Key): Value | undefined;
  /** Null while the cache cannot be trusted; pass the value to `keep` after reading the store. */
  reservation(): number | null;
  keep(reservation: number, key: Key, value: Value): void;
  /** A change of what these keys hold was committed (announced, or made by this process). */
  invalidate(...keys: Key[]): void;
  /** Announcements may be missed from now on: drop everything and stop serving. */
  suspend(): void;
  /** Announcements flow again (the listener is listening, the subscriber subscribed). */
  resume(): void;
};

/** `keeps: false` (a cache sized 0) serves and keeps nothing, while still following announcements. */
export function createAnnouncedCache<Key, Value>(
  entries: CacheEntries<Key, Value>,
  options: { keeps: boolean },
): AnnouncedCache<Key, Value> {
  // Bumped by every announcement and every change of trust: a reservation from before it is void.
  let generation = 0;
  let trusted = false;
  return {
    get: (key) => (trusted ? entries.get(key) : undefined),
    reservation: () => (trusted ? generation : null),
    keep(reservation, key, value) {
      if (!trusted || reservation !== generation || !options.keeps) return;
      entries.set(key, value);
    },
    invalidate(...keys) {
      generation += 1;
      for (const key of keys) entries.delete(key);
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
