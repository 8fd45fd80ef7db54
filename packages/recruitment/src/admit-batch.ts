import { withTransaction } from '@quarry/db';
import { admitBatchRows, countBatchInFlight, findBatch } from './batches.queries.ts';
import type { RecruitmentPorts } from './recruitment-ports.ts';

/**
 * Tops up a batch's queue so that about twice its concurrency is waiting or running: Redis holds
 * a window, not 70,000 jobs, and pausing only has to stop admission. Rows are enqueued inside
 * the transaction that marks them admitted; a worker that takes one before the commit waits on
 * the row lock (see startSubmission), and a crash before the commit leaves the rows queued to be
 * admitted again under the same job ids.
 */
export async function admitBatch(ports: Pick<RecruitmentPorts, 'pool' | 'queue'>, batchId: string): Promise<number> {
  const batch = await findBatch(ports.pool, batchId);
  if (!batch || batch.state === 'paused' || batch.state === 'finished') return 0;
  const room = batch.concurrency * 2 - (await countBatchInFlight(ports.pool, batchId));
  if (room <= 0) return 0;
  return withTransaction(ports.pool, async (client) => {
    const rows = await admitBatchRows(client, batchId, room);
    if (rows.length > 0) {
      await ports.queue.enqueueBatchRows(batchId, rows, { concurrency: batch.concurrency, ratePerMinute: batch.ratePerMinute });
    }
    return rows.length;
  });
}
