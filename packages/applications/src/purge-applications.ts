import type { Queryable } from '@quarry/db';
import { purgeEndedBefore } from './applications.queries.ts';

/**
 * The recurring `applications.purge` job: what identifies a candidate is removed `retentionDays`
 * after the application ended (status and error code stay). In chunks, so one run never holds
 * a long lock on a large table.
 */
export async function purgeApplications(db: Queryable, options: { retentionDays: number; now?: Date; chunk?: number }): Promise<number> {
  const endedBefore = new Date((options.now ?? new Date()).getTime() - options.retentionDays * 86_400_000);
  const chunk = options.chunk ?? 1_000;
  let total = 0;
  for (;;) {
    const purged = await purgeEndedBefore(db, endedBefore, chunk);
    total += purged;
    if (purged < chunk) return total;
  }
}
