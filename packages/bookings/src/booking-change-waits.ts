import { listenOnChannel } from '@quarry/db';
import { bookingChangesChannel } from './booking-status-cache.ts';

/**
 * Wakes a worker's waits on a booking at each committed change of it, from Postgres' own
 * announcements (the `booking_changes` trigger, ADR 0044): a held checkout learns of the client's
 * consent, a cancel or a timeout when it is committed, not at its next poll. While the listening
 * connection is down nothing is sure to arrive: `listening()` is false (callers poll instead), and
 * both ends of an outage wake every wait, which then reads its row again.
 */
export type BookingChangeWaits = {
  /** Resolves at the next announced change of the booking; taken before reading the row, so no change in between is missed. */
  next(bookingId: string): { changed: Promise<void>; cancel(): void };
  listening(): boolean;
  stop(): Promise<void>;
};

export function followBookingChangesForWaits(databaseUrl: string, onLost: (error?: Error) => void): BookingChangeWaits {
  const waits = new Map<string, Set<() => void>>();
  let listening = false;
  const wake = (bookingId: string) => {
    for (const resolve of waits.get(bookingId) ?? []) resolve();
    waits.delete(bookingId);
  };
  const wakeAll = () => {
    for (const bookingId of [...waits.keys()]) wake(bookingId);
  };
  const listener = listenOnChannel(databaseUrl, bookingChangesChannel, {
    onNotification: wake,
    onLost: (error) => {
      listening = false;
      wakeAll();
      onLost(error);
    },
    onListening: () => {
      listening = true;
      wakeAll();
    },
  });
  return {
    next(bookingId) {
      const { promise, resolve } = Promise.withResolvers<undefined>();
      const wakeThis = () => resolve(undefined);
      const resolvers = waits.get(bookingId) ?? new Set<() => void>();
      resolvers.add(wakeThis);
      waits.set(bookingId, resolvers);
      return {
        changed: promise,
        cancel: () => {
          resolvers.delete(wakeThis);
          if (resolvers.size === 0 && waits.get(bookingId) === resolvers) waits.delete(bookingId);
        },
      };
    },
    listening: () => listening,
    stop: async () => {
      await listener.stop();
      wakeAll();
    },
  };
}
