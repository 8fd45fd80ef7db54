import { enqueueOutboxJob } from './booking-moves.ts';
import type { BookingsPorts } from './bookings-ports.ts';
import { deleteOutbox, listOutbox } from './bookings.queries.ts';

/** A job the change's own caller is still enqueueing is left to it this long. */
const callerFirstMs = 1_000;
const batch = 200;

/**
 * The outbox relay (ADR 0048): enqueues the jobs committed booking changes wrote to the outbox and
 * their callers could not enqueue (Redis was away between the commit and the enqueue, or the
 * process died there), under their own job ids, and removes them once they are in Redis. Two
 * relays adding one job add it once. Stops at the first failure (Redis away) and leaves the rest.
 */
export async function relayBookingOutbox(ports: Pick<BookingsPorts, 'pool' | 'enqueueStep' | 'enqueueNotify'>): Promise<number> {
  const jobs = await listOutbox(ports.pool, callerFirstMs, batch);
  const sent: string[] = [];
  try {
    for (const job of jobs) {
      await enqueueOutboxJob(ports, job);
      sent.push(job.jobId);
    }
  } finally {
    await deleteOutbox(ports.pool, sent);
  }
  return sent.length;
}
