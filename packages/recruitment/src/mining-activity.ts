import type { MiningActivity } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { miningActivityByMinute } from './mining-activity.queries.ts';

/** Per-minute job posts processed and their success rate: the dashboard's trend charts. */
export async function getMiningActivity(db: Queryable, minutes: number): Promise<MiningActivity> {
  const rows = await miningActivityByMinute(db, minutes);
  return {
    minutes: rows.map((row) => ({
      minute: row.minute.toISOString(),
      processed: row.processed,
      succeeded: row.succeeded,
      failed: row.processed - row.succeeded,
      successRate: row.processed === 0 ? null : row.succeeded / row.processed,
    })),
  };
}
