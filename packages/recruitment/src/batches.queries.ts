import copyStreams from 'pg-copy-streams';
import type { PoolClient, Queryable } from '@quarry/db';

export type BatchRow = {
  batchId: string;
  clientId: string;
  state: 'created' | 'processing' | 'paused' | 'resumed' | 'finished';
  jobsCount: number;
  processedCount: number;
  succeededCount: number;
  failedCount: number;
  employer: string | null;
  concurrency: number;
  ratePerMinute: number;
  pausedReason: string | null;
  createdAt: Date;
  finishedAt: Date | null;
};

type DbBatchRow = {
  batch_id: string;
  client_id: string;
  state: BatchRow['state'];
  jobs_count: number;
  processed_count: number;
  succeeded_count: number;
  failed_count: number;
  employer: string | null;
  concurrency: number;
  rate_per_minute: number;
  paused_reason: string | null;
  created_at: Date;
  finished_at: Date | null;
};

const columns = `batch_id, client_id, state, jobs_count, processed_count, succeeded_count, failed_count, employer,
  concurrency, rate_per_minute, paused_reason, created_at, finished_at`;

function toBatchRow(row: DbBatchRow): BatchRow {
  return {
    batchId: row.batch_id,
    clientId: row.client_id,
    state: row.state,
    jobsCount: row.jobs_count,
    processedCount: row.processed_count,
    succeededCount: row.succeeded_count,
    failedCount: row.failed_count,
    employer: row.employer,
    concurrency: row.concurrency,
    ratePerMinute: row.rate_per_minute,
    pausedReason: row.paused_reason,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

/** Inserted first (rows reference it) with a provisional count, fixed by `setBatchJobsCount`. */
export async function insertBatch(
  client: PoolClient,
  batch: { batchId: string; clientId: string; concurrency: number; ratePerMinute: number; callbackUrl?: string | null },
): Promise<void> {
  await client.query(
    `INSERT INTO batches (batch_id, client_id, state, jobs_count, concurrency, rate_per_minute, callback_url)
     VALUES ($1, $2, 'created', 1, $3, $4, $5)`,
    [batch.batchId, batch.clientId, batch.concurrency, batch.ratePerMinute, batch.callbackUrl ?? null],
  );
}

export async function setBatchJobsCount(client: PoolClient, batchId: string, jobsCount: number, employer: string | null): Promise<void> {
  await client.query('UPDATE batches SET jobs_count = $2, employer = $3 WHERE batch_id = $1', [batchId, jobsCount, employer]);
}

const copySpecial = /[\\\t\n\r]/;
const copySpecials = /[\\\t\n\r]/g;

/** Escapes one value for COPY's text format. Most values need nothing, and a test is far cheaper than a replace. */
function copyText(value: string): string {
  if (!copySpecial.test(value)) return value;
  return value.replace(copySpecials, (char) => (char === '\\' ? '\\\\' : char === '\t' ? '\\t' : char === '\n' ? '\\n' : '\\r'));
}

export type SubmissionCopyRow = { jobPostId: string; rowNo: number; url: string; employer: string; jobTitle: string; country: string };

/**
 * Streams one batch's rows into `submissions` with COPY inside the caller's transaction. Rows are
 * buffered into ~64 KB chunks. `write` returns a promise only when it sent a chunk the server has
 * not taken yet: awaiting every row cost a microtask each, 70,000 per batch (bench batch-intake).
 * Memory stays bounded whatever the file size as long as callers await what `write` returns.
 */
export function openSubmissionCopy(
  client: PoolClient,
  batch: { clientId: string; batchId: string },
): {
  write: (row: SubmissionCopyRow) => Promise<void> | undefined;
  finish: () => Promise<void>;
  /** Abandons the COPY (CopyFail), so the connection can roll back; must run before ROLLBACK. */
  abort: () => Promise<void>;
} {
  const stream = client.query(
    copyStreams.from('COPY submissions (client_id, batch_id, job_post_id, row_no, url, employer, job_title, country) FROM STDIN'),
  );
  let failure: Error | null = null;
  stream.on('error', (error: Error) => (failure = error));
  const sameForEveryRow = `${copyText(batch.clientId)}\t${batch.batchId}\t`;
  let buffer = '';
  const flush = async () => {
    if (failure) throw failure;
    if (!buffer) return;
    const chunk = buffer;
    buffer = '';
    if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', resolve));
  };
  return {
    write(row) {
      buffer += `${sameForEveryRow}${copyText(row.jobPostId)}\t${row.rowNo}\t${copyText(row.url)}\t${copyText(row.employer)}\t${copyText(row.jobTitle)}\t${copyText(row.country)}\n`;
      return buffer.length >= 65_536 ? flush() : undefined;
    },
    async abort() {
      if (stream.destroyed) return;
      await new Promise<void>((resolve) => {
        stream.once('close', resolve);
        stream.destroy(new Error('batch rejected'));
      });
    },
    async finish() {
      await flush();
      await new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve);
        stream.once('error', reject);
        stream.end();
      });
    },
  };
}

export async function findClientBatch(db: Queryable, clientId: string, batchId: string): Promise<BatchRow | null> {
  const result = await db.query<DbBatchRow>(`SELECT ${columns} FROM batches WHERE client_id = $1 AND batch_id = $2`, [clientId, batchId]);
  return result.rows[0] ? toBatchRow(result.rows[0]) : null;
}

/** Operators' view: any client's batch. */
export async function findBatch(db: Queryable, batchId: string): Promise<BatchRow | null> {
  const result = await db.query<DbBatchRow>(`SELECT ${columns} FROM batches WHERE batch_id = $1`, [batchId]);
  return result.rows[0] ? toBatchRow(result.rows[0]) : null;
}

export async function listBatches(db: Queryable, options: { limit: number; activeOnly: boolean }): Promise<BatchRow[]> {
  const result = await db.query<DbBatchRow>(
    `SELECT ${columns} FROM batches ${options.activeOnly ? "WHERE state <> 'finished'" : ''} ORDER BY created_at DESC LIMIT $1`,
    [options.limit],
  );
  return result.rows.map(toBatchRow);
}

export async function pauseBatch(db: Queryable, batchId: string, reason: string): Promise<BatchRow | null> {
  const result = await db.query<DbBatchRow>(
    `UPDATE batches SET state = 'paused', paused_reason = $2
     WHERE batch_id = $1 AND state IN ('created', 'processing', 'resumed') RETURNING ${columns}`,
    [batchId, reason],
  );
  return result.rows[0] ? toBatchRow(result.rows[0]) : null;
}

export async function resumeBatch(db: Queryable, batchId: string): Promise<BatchRow | null> {
  const result = await db.query<DbBatchRow>(
    `UPDATE batches SET state = 'resumed', paused_reason = NULL WHERE batch_id = $1 AND state = 'paused' RETURNING ${columns}`,
    [batchId],
  );
  return result.rows[0] ? toBatchRow(result.rows[0]) : null;
}

/**
 * Admits up to `limit` queued rows of a running batch, in file order. SKIP LOCKED lets several
 * admitters run at once without handing out a row twice. Returns nothing for a paused or
 * finished batch.
 */
export async function admitBatchRows(
  client: PoolClient,
  batchId: string,
  limit: number,
): Promise<Array<{ submissionId: string; rowNo: number }>> {
  const batch = await client.query<{ state: string }>(
    `UPDATE batches SET state = CASE WHEN state = 'created' THEN 'processing' ELSE state END
     WHERE batch_id = $1 AND state IN ('created', 'processing', 'resumed') RETURNING state`,
    [batchId],
  );
  if (batch.rowCount === 0 || limit <= 0) return [];
  const result = await client.query<{ submission_id: string; row_no: number }>(
    `UPDATE submissions SET state = 'admitted' WHERE submission_id IN (
       SELECT submission_id FROM submissions WHERE batch_id = $1 AND state = 'queued'
       ORDER BY row_no LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING submission_id, row_no`,
    [batchId, limit],
  );
  return result.rows.map((row) => ({ submissionId: String(row.submission_id), rowNo: row.row_no }));
}

export async function countBatchInFlight(db: Queryable, batchId: string): Promise<number> {
  const result = await db.query<{ count: string }>(
    `SELECT count(*) FROM submissions WHERE batch_id = $1 AND state IN ('admitted', 'processing')`,
    [batchId],
  );
  return Number(result.rows[0]?.count ?? 0);
}

/** Success rate over the batch's last `window` outcomes, or null until that many exist. */
export async function recentBatchSuccessRate(db: Queryable, batchId: string, window: number): Promise<number | null> {
  const result = await db.query<{ total: string; succeeded: string }>(
    `SELECT count(*) AS total, count(*) FILTER (WHERE state = 'completed') AS succeeded FROM (
       SELECT state FROM submissions WHERE batch_id = $1 AND finished_at IS NOT NULL
       ORDER BY finished_at DESC LIMIT $2) AS recent`,
    [batchId, window],
  );
  const total = Number(result.rows[0]?.total ?? 0);
  return total < window ? null : Number(result.rows[0]?.succeeded ?? 0) / total;
}

/** Error codes of a batch's failed rows, most frequent first (operators' breakdown). */
export async function batchErrorBreakdown(db: Queryable, batchId: string): Promise<Array<{ errorCode: string; count: number }>> {
  const result = await db.query<{ error_code: string; count: string }>(
    `SELECT error_code, count(*) FROM submissions WHERE batch_id = $1 AND state = 'failed' GROUP BY error_code ORDER BY count(*) DESC`,
    [batchId],
  );
  return result.rows.map((row) => ({ errorCode: row.error_code, count: Number(row.count) }));
}

export type BatchJobPostRow = {
  jobPostId: string;
  rowNo: number;
  url: string;
  state: string;
  errorCode: string | null;
  adapter: string | null;
  durationMs: number | null;
};

/** A batch's rows for operators: the failed ones, or the slowest finished ones (`finished_at IS NOT NULL` selects the partial index submissions_batch_finished). */
export async function listBatchJobPosts(
  db: Queryable,
  batchId: string,
  options: { filter: 'failed' | 'slowest'; limit: number },
): Promise<BatchJobPostRow[]> {
  const result = await db.query<{
    job_post_id: string;
    row_no: number;
    url: string;
    state: string;
    error_code: string | null;
    adapter: string | null;
    duration_ms: number | null;
  }>(
    options.filter === 'failed'
      ? `SELECT job_post_id, row_no, url, state, error_code, adapter, duration_ms FROM submissions
         WHERE batch_id = $1 AND state = 'failed' ORDER BY row_no LIMIT $2`
      : `SELECT job_post_id, row_no, url, state, error_code, adapter, duration_ms FROM submissions
         WHERE batch_id = $1 AND finished_at IS NOT NULL AND duration_ms IS NOT NULL ORDER BY duration_ms DESC LIMIT $2`,
    [batchId, options.limit],
  );
  return result.rows.map((row) => ({
    jobPostId: row.job_post_id,
    rowNo: row.row_no,
    url: row.url,
    state: row.state,
    errorCode: row.error_code,
    adapter: row.adapter,
    durationMs: row.duration_ms,
  }));
}

/** Copies a batch's failed rows into a new batch of the same client (renumbered in file order). */
export async function copyFailedRowsToBatch(client: PoolClient, fromBatchId: string, newBatchId: string): Promise<number> {
  const source = await client.query<{
    client_id: string;
    concurrency: number;
    rate_per_minute: number;
    employer: string | null;
    callback_url: string | null;
  }>('SELECT client_id, concurrency, rate_per_minute, employer, callback_url FROM batches WHERE batch_id = $1', [fromBatchId]);
  const batch = source.rows[0];
  if (!batch) return 0;
  // The new batch announces its rows and its end where the first one did.
  await insertBatch(client, {
    batchId: newBatchId,
    clientId: batch.client_id,
    concurrency: batch.concurrency,
    ratePerMinute: batch.rate_per_minute,
    callbackUrl: batch.callback_url,
  });
  const copied = await client.query(
    `INSERT INTO submissions (client_id, job_post_id, batch_id, row_no, url, employer, job_title, country)
     SELECT client_id, job_post_id, $2, row_number() OVER (ORDER BY row_no), url, employer, job_title, country
     FROM submissions WHERE batch_id = $1 AND state = 'failed' ORDER BY row_no`,
    [fromBatchId, newBatchId],
  );
  const count = copied.rowCount ?? 0;
  if (count > 0) await setBatchJobsCount(client, newBatchId, count, batch.employer);
  return count;
}

/** The ids of batches whose rows may still be queued (each has a queue of its own, `mining.batch.<id>`). */
export async function listUnfinishedBatchIds(db: Queryable): Promise<string[]> {
  const result = await db.query<{ batch_id: string }>(`SELECT batch_id FROM batches WHERE state <> 'finished'`);
  return result.rows.map((row) => row.batch_id);
}
