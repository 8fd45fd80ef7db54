import type { Queryable } from '@quarry/db';
import { renewApplicationLease } from './applications.queries.ts';

/** Why a run stopped before its irreversible step: its lease on the application went to another run. */
class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

export type HeldLease = {
  /** Aborted once the lease is provably no longer this run's: renewal found another owner, or it could not be renewed before it lapsed. */
  lost: AbortSignal;
  stop(): void;
};

/**
 * Keeps a run's lease on an application alive: renewed every third of its length. A renewal that
 * finds the lease gone, or a lease that could not be renewed (Postgres unreachable) until it
 * lapsed, aborts `lost`: another run may hold the application now.
 */
export function keepApplicationLease(db: Queryable, applicationId: string, owner: string, leaseMs: number): HeldLease {
  const controller = new AbortController();
  let renewedAt = Date.now();
  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing || controller.signal.aborted) return;
      renewing = true;
      const asked = Date.now();
      renewApplicationLease(db, applicationId, owner, leaseMs)
        .then((held) => {
          if (held) renewedAt = asked;
          else controller.abort(new LeaseLost(`application ${applicationId}: another run holds it now`));
        })
        .catch(() => {
          if (Date.now() - renewedAt >= leaseMs)
            controller.abort(new LeaseLost(`application ${applicationId}: its lease could not be renewed before it lapsed`));
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
