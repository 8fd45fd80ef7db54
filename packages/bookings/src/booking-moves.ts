import { sealedColumns } from '@quarry/keyring';
import type { BookingStage } from '@quarry/contracts';
import { isStoreOutage } from '@quarry/jobs';
import { stateOf, canMove } from './booking-stages.ts';
import type { BookingsPorts } from './bookings-ports.ts';
import { deleteOutbox, moveBooking, type BookingRow, type OutboxJob, type TransitionFields } from './bookings.queries.ts';

export type Move = {
  from: readonly BookingStage[];
  to: BookingStage;
  seq?: number;
  orderState?: 'none' | 'placing';
  fields?: TransitionFields;
  delayMs?: number;
  /** The hotel's definite answer about the order: it also replaces a `BookingOutcomeUnknown` another run recorded. */
  replacesUnknown?: boolean;
};

/** The job id of a booking's step at one version: enqueueing it twice adds it once. */
export const stepJobId = (bookingId: string, seq: number) => `booking-${bookingId}-${seq}`;

type OutboxPorts = Pick<BookingsPorts, 'pool' | 'enqueueStep' | 'enqueueNotify' | 'onError'>;

/** Adds one outbox job to its queue under its own id (a job already there is not added again). */
export async function enqueueOutboxJob(ports: Pick<BookingsPorts, 'enqueueStep' | 'enqueueNotify'>, job: OutboxJob): Promise<void> {
  const options = { jobId: job.jobId, ...(job.delayMs > 0 ? { delayMs: job.delayMs } : {}) };
  if (job.job === 'bookings.step') await ports.enqueueStep(job.payload, options);
  else await ports.enqueueNotify(job.payload, options);
}

/**
 * Enqueues what a committed change wrote to the outbox, and removes what reached Redis. A failure
 * here changes nothing of the change, which is committed: what is left the relay enqueues
 * (`relayBookingOutbox`) once Redis is back, so a caller answers with the committed booking.
 */
export async function flushOutbox(ports: OutboxPorts, jobs: readonly OutboxJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const sent: string[] = [];
  try {
    for (const job of jobs) {
      await enqueueOutboxJob(ports, job);
      sent.push(job.jobId);
    }
  } catch (error) {
    // Redis away is the connection's own log line; anything else is worth one here.
    if (!isStoreOutage(error)) ports.onError?.(error, 'booking enqueue (the outbox relay retries it)');
  }
  await deleteOutbox(ports.pool, sent).catch((error: unknown) => {
    if (!isStoreOutage(error)) ports.onError?.(error, 'booking outbox');
  });
}

/**
 * Applies one stage change and what follows from it: the worker's next job when there is work,
 * the client's callback (both written to the outbox by the change's own statement, enqueued after
 * its commit), and the card's purge when the booking ended. Null when the booking was no longer
 * where the caller saw it (another change won).
 */
export async function applyMove(
  ports: Pick<BookingsPorts, 'pool' | 'sealer' | 'vault' | 'enqueueStep' | 'enqueueNotify' | 'onError' | 'statusCache'>,
  bookingId: string,
  move: Move,
): Promise<BookingRow | null> {
  const illegal = move.from.filter((from) => !canMove(from, move.to));
  if (illegal.length > 0) throw new Error(`booking stage ${illegal.join('/')} cannot move to ${move.to}`);
  const state = stateOf(move.to);
  const moved = await moveBooking(ports.pool, bookingId, { ...move, state });
  if (!moved) return null;
  // The announcement reaches this process too, but maybe after the client's next read: a client
  // that changed its booking then reads it must see the change.
  ports.statusCache?.invalidate(bookingId);
  const { row, previousPanToken, outbox } = moved;
  await flushOutbox(ports, outbox);
  if (state === 'finished' && previousPanToken) {
    // The card is no longer needed whatever the outcome; a failed purge is logged (the vault's own
    // expiry removes it in the end) and never changes the booking's outcome.
    await ports.vault
      .purgeCard(ports.sealer.open(sealedColumns.bookingPanToken, bookingId, previousPanToken), { clientId: row.clientId })
      .catch((error: unknown) => ports.onError?.(error, 'card purge'));
  }
  return row;
}
