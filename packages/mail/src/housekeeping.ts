import { type Queryable } from '@quarry/db';
import { deleteFinishedMessages, listOverdueDeliveries } from './mail.queries.ts';
import { deleteOrphanCounters, markExpiredBindings } from './bindings.queries.ts';
import { deliveryJobId, type EnqueueDelivery } from './deliver-mail.ts';
import { pruneSeenMessages } from './mailbox-watch.queries.ts';

/** A delivery this much past its due time has lost its job (crash between commit and enqueue). */
const OVERDUE_GRACE_MS = 2 * 60_000;

/**
 * The periodic mail job: marks expired bindings (bookkeeping only: every check already compares
 * `expires_at` with now), re-enqueues deliveries whose job never reached Redis, and forgets the
 * keys of pool-mailbox messages taken longer ago than `seenRetentionMs` (the watcher never takes a
 * message that old, so a forgotten key cannot let one through twice). Deterministic job ids make a
 * re-enqueue of a job that does exist a no-op.
 */
export async function runMailHousekeeping(
  ports: { db: Queryable; enqueue: EnqueueDelivery },
  options: { overdueGraceMs?: number; seenRetentionMs?: number } = {},
): Promise<{ expired: number; requeued: number; forgotten: number }> {
  const expired = await markExpiredBindings(ports.db);
  await deleteOrphanCounters(ports.db);
  await deleteFinishedMessages(ports.db, 60_000);
  const forgotten = options.seenRetentionMs === undefined ? 0 : await pruneSeenMessages(ports.db, options.seenRetentionMs);
  const overdue = await listOverdueDeliveries(ports.db, options.overdueGraceMs ?? OVERDUE_GRACE_MS, 1000);
  for (const delivery of overdue) {
    await ports.enqueue({ deliveryId: delivery.deliveryId }, { jobId: deliveryJobId(delivery.deliveryId, delivery.attempts) });
  }
  return { expired, requeued: overdue.length, forgotten };
}
