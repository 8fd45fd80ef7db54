import type { BookingStage } from '@quarry/contracts';
import { stateOf, canMove } from './booking-stages.ts';
import type { BookingsPorts } from './bookings-ports.ts';
import { moveBooking, type BookingRow, type TransitionFields } from './bookings.queries.ts';

export type Move = { from: readonly BookingStage[]; to: BookingStage; seq?: number; orderState?: 'none' | 'placing'; fields?: TransitionFields; delayMs?: number };

/** The job id of a booking's step at one version: enqueueing it twice adds it once. */
export const stepJobId = (bookingId: string, seq: number) => `booking-${bookingId}-${seq}`;

/**
 * Applies one stage change and what follows from it: the worker's next job when there is work,
 * the client's callback, and the card's purge when the booking ended. Null when the booking was no
 * longer where the caller saw it (another change won).
 */
export async function applyMove(ports: Pick<BookingsPorts, 'pool' | 'sealer' | 'vault' | 'enqueueStep' | 'enqueueNotify' | 'onError' | 'statusCache'>, bookingId: string, move: Move): Promise<BookingRow | null> {
  const illegal = move.from.filter((from) => !canMove(from, move.to));
  if (illegal.length > 0) throw new Error(`booking stage ${illegal.join('/')} cannot move to ${move.to}`);
  const state = stateOf(move.to);
  const moved = await moveBooking(ports.pool, bookingId, { ...move, state });
  if (!moved) return null;
  // The announcement reaches this process too, but maybe after the client's next read: a client
  // that changed its booking then reads it must see the change.
  ports.statusCache?.invalidate(bookingId);
  const { row, previousPanToken } = moved;
  if (row.work !== null) await ports.enqueueStep({ bookingId }, { jobId: stepJobId(bookingId, row.seq), ...(move.delayMs ? { delayMs: move.delayMs } : {}) });
  if (row.callbackUrl) await ports.enqueueNotify({ bookingId, seq: row.seq }, { jobId: `booking-notify-${bookingId}-${row.seq}` });
  if (state === 'finished' && previousPanToken) {
    // The card is no longer needed whatever the outcome; a failed purge is logged (the vault's own
    // expiry removes it in the end) and never changes the booking's outcome.
    await ports.vault.purgeCard(ports.sealer.open(previousPanToken), { clientId: row.clientId }).catch((error: unknown) => ports.onError?.(error, 'card purge'));
  }
  return row;
}
