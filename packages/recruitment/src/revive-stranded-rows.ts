import type { Queryable } from '@quarry/db';
import type { RecruitmentPorts, StrandedRow } from './recruitment-ports.ts';

/**
 * Rows a queue should be carrying: admitted or processing rows of running batches, and single
 * posts not finished (older than a few seconds: a request between its insert and its enqueue is
 * usually left alone, and the job id makes a double enqueue harmless anyway). Oldest first, at most `limit`.
 */
async function findUnfinishedRows(db: Queryable, limit: number, minAgeMs: number): Promise<StrandedRow[]> {
  const result = await db.query<{
    submission_id: string;
    batch_id: string | null;
    row_no: number | null;
    concurrency: number | null;
    rate_per_minute: number | null;
  }>(
    `(SELECT s.submission_id, s.batch_id, s.row_no, b.concurrency, b.rate_per_minute FROM submissions s JOIN batches b USING (batch_id)
       WHERE b.state IN ('created', 'processing', 'resumed') AND s.state IN ('admitted', 'processing')
       ORDER BY s.submission_id LIMIT $1)
     UNION ALL
     (SELECT submission_id, batch_id, row_no, NULL, NULL FROM submissions
       WHERE batch_id IS NULL AND state IN ('queued', 'processing') AND submitted_at < now() - make_interval(secs => $2::float8 / 1000)
       ORDER BY submission_id LIMIT $1)`,
    [limit, minAgeMs],
  );
  return result.rows.map((row) =>
    row.batch_id !== null && row.row_no !== null && row.concurrency !== null && row.rate_per_minute !== null
      ? {
          submissionId: String(row.submission_id),
          batch: { batchId: row.batch_id, rowNo: row.row_no, limits: { concurrency: row.concurrency, ratePerMinute: row.rate_per_minute } },
        }
      : { submissionId: String(row.submission_id), batch: null },
  );
}

/**
 * The reconciler of the mining pipeline. A row's job can be lost or end without recording its
 * outcome (Redis restarted empty, attempts spent while a store was away, a stalled job failed
 * after repeated crashes); its row would then stay `admitted`/`processing` forever and hold one
 * of its batch's concurrency slots. Such jobs are put back (the same job id, so a row is never
 * queued twice) and the row runs again; mining is idempotent per row (see mineSubmission).
 * Returns how many rows were put back. `minAgeMs` (3 s) spares single posts younger than that (their
 * enqueue may still be on its way; a second one under the same job id would be a no-op anyway);
 * right after Redis came back every one is due (their enqueue failed while it was away).
 */
export async function reviveStrandedRows(
  ports: Pick<RecruitmentPorts, 'pool' | 'queue'>,
  options: { limit?: number; minAgeMs?: number } = {},
): Promise<number> {
  const rows = await findUnfinishedRows(ports.pool, options.limit ?? 1_000, options.minAgeMs ?? 3_000);
  if (rows.length === 0) return 0;
  return ports.queue.reviveJobs(rows);
}
