import type { Queryable } from '@quarry/db';
import { renewOrderLease } from './bookings.queries.ts';

/** Why a run's hold on a booking's order ended: another run holds it now, or it lapsed unrenewed. */
class OrderLeaseLost extends Error {
  override readonly name = 'OrderLeaseLost';
}

export type HeldOrderLease = {
  /** Aborted once the lease is provably no longer this run's: a renewal found another owner, or none succeeded before it lapsed. */
  lost: AbortSignal;
  stop(): void;
};

/**
 * Keeps a run's lease on a booking's order alive while it asks the hotel: renewed every third of
 * its length (ADR 0048). A renewal that finds another owner, or a lease that could not be renewed
 * (Postgres unreachable) until it lapsed, aborts `lost`. Before the intent that stops the run;
 * after it the run goes on to read the hotel's answer, the one thing no other run can know.
 */
export function keepOrderLease(db: Queryable, bookingId: string, owner: string, leaseMs: number): HeldOrderLease {
  const controller = new AbortController();
  let renewedAt = Date.now();
  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing || controller.signal.aborted) return;
      renewing = true;
      const asked = Date.now();
      renewOrderLease(db, bookingId, owner, leaseMs)
        .then((held) => {
          if (held) renewedAt = asked;
          else controller.abort(new OrderLeaseLost(`booking ${bookingId}: another run holds its order now`));
        })
        .catch(() => {
          if (Date.now() - renewedAt >= leaseMs)
            controller.abort(new OrderLeaseLost(`booking ${bookingId}: its order lease could not be renewed before it lapsed`));
        })
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return { lost: controller.signal, stop: () => clearInterval(timer) };
}
