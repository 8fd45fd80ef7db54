import { createAnnouncedCache, listenOnChannel, type ChannelListener } from '@quarry/db';
import { LRUCache } from 'lru-cache';

/**
 * Bookings' statuses as the API last rendered them, so polling a booking (what every client does
 * while it waits for a stage) costs no database round trip. An announced cache (`createAnnouncedCache`
 * of `packages/db`, its rules there): every committed change of a booking row is announced by
 * Postgres itself (a trigger's NOTIFY, delivered at commit, whichever process or statement made the
 * change), and drops the copy. Entries also expire after `ttlMs`.
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
  const cache = createAnnouncedCache<string, { clientId: string; status: string }>(
    new LRUCache({
      maxSize: Math.max(1, settings.maxBytes),
      sizeCalculation: (entry) => Math.max(1, entry.status.length + entry.clientId.length + 64),
      ttl: settings.ttlMs,
    }),
    { keeps: settings.maxBytes > 0 },
  );
  return {
    get(clientId, bookingId) {
      const entry = cache.get(bookingId);
      return entry?.clientId === clientId ? entry.status : undefined;
    },
    reservation: () => cache.reservation(),
    keep: (reservation, clientId, bookingId, status) => cache.keep(reservation, bookingId, { clientId, status }),
    invalidate: (bookingId) => cache.invalidate(bookingId),
    suspend: () => cache.suspend(),
    resume: () => cache.resume(),
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
