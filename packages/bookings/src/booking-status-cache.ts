import { listenOnChannel, type ChannelListener } from '@quarry/db';
import { LRUCache } from 'lru-cache';

/**
 * Bookings' statuses as the API last rendered them, so polling a booking (what every client does
 * while it waits for a stage) costs no database round trip. Correctness rests on three rules:
 * - every committed change of a booking row is announced by Postgres itself (a trigger's NOTIFY,
 *   delivered at commit, whichever process or statement made the change), and drops the copy;
 * - a read that raced an announcement is not kept: `reservation()` is taken before reading the
 *   store and `keep` ignores it if any change arrived meanwhile;
 * - while announcements cannot arrive (the listening connection is down) nothing is served or
 *   kept, and everything is dropped when it comes back. Entries also expire after `ttlMs`.
 * A copy is served only to the client that owns the booking; anyone else goes to the store (404).
 */
export type BookingStatusCache = {
  get(clientId: string, bookingId: string): string | undefined;
  /** Null while the cache cannot be trusted; pass the value to `keep` after reading the store. */
  reservation(): number | null;
  keep(reservation: number, clientId: string, bookingId: string, status: string): void;
  /** A change of this booking was committed (announced, or made by this process). */
  invalidate(bookingId: string): void;
  suspend(): void;
  resume(): void;
};

export type BookingStatusCacheSettings = { maxBytes: number; ttlMs: number };

export function createBookingStatusCache(settings: BookingStatusCacheSettings): BookingStatusCache {
  const entries = new LRUCache<string, { clientId: string; status: string }>({
    maxSize: Math.max(1, settings.maxBytes),
    sizeCalculation: (entry) => Math.max(1, entry.status.length + entry.clientId.length + 64),
    ttl: settings.ttlMs,
  });
  let generation = 0;
  let trusted = false;
  return {
    get(clientId, bookingId) {
      if (!trusted) return undefined;
      const entry = entries.get(bookingId);
      return entry?.clientId === clientId ? entry.status : undefined;
    },
    reservation: () => (trusted ? generation : null),
    keep(reservation, clientId, bookingId, status) {
      if (!trusted || reservation !== generation || settings.maxBytes === 0) return;
      entries.set(bookingId, { clientId, status });
    },
    invalidate(bookingId) {
      generation += 1;
      entries.delete(bookingId);
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

/** The channel the `booking_changes` trigger (migration 0019) announces on. */
export const bookingChangesChannel = 'booking_changes';

/** Keeps `cache` current from Postgres' announcements, on a connection of its own. */
export function followBookingChanges(databaseUrl: string, cache: BookingStatusCache, onLost: (error?: Error) => void): ChannelListener {
  return listenOnChannel(databaseUrl, bookingChangesChannel, {
    onNotification: (bookingId) => cache.invalidate(bookingId),
    onLost: (error) => {
      cache.suspend();
      onLost(error);
    },
    onListening: () => cache.resume(),
  });
}
