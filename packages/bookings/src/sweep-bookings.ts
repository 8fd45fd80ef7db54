import { applyMove, flushOutbox, stepJobId } from './booking-moves.ts';
import { awaitsClientInput } from './booking-stages.ts';
import type { WorkerPorts } from './bookings-ports.ts';
import { listAwaitingSince, listCreatedBefore, listStalledWork, takeLostCheckouts } from './bookings.queries.ts';

export type SweepSummary = { inputTimeouts: number; jobTimeouts: number; requeued: number };

/**
 * A step not changed for this long may have had its job lost (Redis lost it, a crash between
 * commit and enqueue): it is enqueued again under its own job id, a no-op while the job exists,
 * so the wait only spares steps whose enqueue is still on its way.
 */
export const stalledStepAfterMs = 5_000;
const batch = 500;

/**
 * The `bookings.sweep` job (repeating): the timers. A booking awaiting a client input for longer
 * than the input timeout fails `InputTimeout`; one unfinished an hour (the job timeout) after
 * creation fails `JobTimeout`, unless its order is with the hotel (then only the hotel's answer,
 * or the 3-D Secure timeout, ends it). Work whose job was lost is enqueued again under the same
 * job id (a no-op when the job exists).
 */
export async function sweepBookings(ports: WorkerPorts): Promise<SweepSummary> {
  const now = (ports.now ?? (() => new Date()))().getTime();
  let inputTimeouts = 0;
  let jobTimeouts = 0;
  for (const booking of await listCreatedBefore(ports.pool, new Date(now - ports.timers.jobTimeoutMs), batch)) {
    const moved = await applyMove(ports, booking.bookingId, {
      from: [booking.stage],
      to: 'failed',
      seq: booking.seq,
      orderState: 'none',
      fields: { errorCode: 'JobTimeout', errorMessage: 'The booking did not finish within its time limit; nothing was ordered' },
    });
    if (moved) jobTimeouts += 1;
  }
  for (const booking of await listAwaitingSince(ports.pool, awaitsClientInput, new Date(now - ports.timers.inputTimeoutMs), batch)) {
    const current = await applyMove(ports, booking.bookingId, {
      from: awaitsClientInput,
      to: 'failed',
      seq: booking.seq,
      orderState: 'none',
      fields: { errorCode: 'InputTimeout', errorMessage: 'The awaited input did not arrive in time; nothing was ordered' },
    });
    if (current) inputTimeouts += 1;
  }
  let requeued = 0;
  // A browser checkout whose holder died: its next step runs without it (a new checkout before the
  // order, the reservation lookup after the click).
  for (const booking of await takeLostCheckouts(ports.pool, batch)) {
    if (booking.outbox.length === 0) continue;
    await flushOutbox(ports, booking.outbox);
    requeued += 1;
  }
  for (const booking of await listStalledWork(ports.pool, new Date(now - stalledStepAfterMs), batch)) {
    await ports.enqueueStep({ bookingId: booking.bookingId }, { jobId: stepJobId(booking.bookingId, booking.seq) });
    requeued += 1;
  }
  return { inputTimeouts, jobTimeouts, requeued };
}
