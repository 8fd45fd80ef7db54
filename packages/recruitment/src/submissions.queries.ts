import { batchFinishedEvent, callbackTarget, jobPostEvent, oweCallback } from '@quarry/callbacks';
import type { PoolClient, Queryable } from '@quarry/db';

type SubmissionState = 'queued' | 'admitted' | 'processing' | 'completed' | 'failed';

export type SubmissionToMine = {
  submissionId: string;
  clientId: string;
  jobPostId: string;
  batchId: string | null;
  url: string;
  employer: string;
  jobTitle: string;
  country: string;
};

export async function insertSingleSubmission(
  db: Queryable,
  submission: {
    clientId: string;
    jobPostId: string;
    url: string;
    employer: string;
    jobTitle: string;
    country: string;
    callbackUrl?: string | undefined;
  },
): Promise<string> {
  const result = await db.query<{ submission_id: string }>(
    `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, callback_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING submission_id`,
    [
      submission.clientId,
      submission.jobPostId,
      submission.url,
      submission.employer,
      submission.jobTitle,
      submission.country,
      submission.callbackUrl ?? null,
    ],
  );
  return String(result.rows[0]?.submission_id);
}

/**
 * Marks a submission as being mined and returns what to mine, or null when it already finished.
 * A submission already `processing` is returned again: that is a crashed worker's job being
 * re-run by the queue. When the admitting transaction has not committed yet, the row lock makes
 * this wait for it, so a row is never mined before it is durably admitted.
 */
export async function startSubmission(db: Queryable, submissionId: string): Promise<SubmissionToMine | null> {
  const result = await db.query<{
    client_id: string;
    job_post_id: string;
    batch_id: string | null;
    url: string;
    employer: string;
    job_title: string;
    country: string;
  }>(
    `UPDATE submissions SET state = 'processing', started_at = now()
     WHERE submission_id = $1 AND state IN ('queued', 'admitted', 'processing')
     RETURNING client_id, job_post_id, batch_id, url, employer, job_title, country`,
    [submissionId],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    submissionId,
    clientId: row.client_id,
    jobPostId: row.job_post_id,
    batchId: row.batch_id,
    url: row.url,
    employer: row.employer,
    jobTitle: row.job_title,
    country: row.country,
  };
}

export type SubmissionOutcome =
  | { kind: 'completed'; body: string; bodyV1: string; succeededAt: Date; adapter: string; durationMs: number }
  | { kind: 'failed'; errorCode: string; adapter: string | null; durationMs: number };

/**
 * Records the outcome once. Counters of the batch move in the same transaction and only when the
 * submission really changes to a final state, so they stay exact when a job runs twice. The
 * callbacks it owes are recorded in the same transaction (ADR 0053): `jobPost.mined` or
 * `jobPost.failed` to the post's URL (a batch row: the batch's), and `batch.finished` from the one
 * transaction whose row brings the batch's count to its end (the batch row's lock orders them).
 * Returns the batch state after the update (null for single submissions or a repeated outcome).
 */
export async function finishSubmission(
  client: PoolClient,
  submissionId: string,
  outcome: SubmissionOutcome,
): Promise<{ batchId: string | null; finishedBatch: boolean } | null> {
  // The batch's URL is read here, not from the batch row's update below: the row's event is owed
  // before that update takes the batch row's lock, which every row of the batch waits for.
  const updated = await client.query<{ client_id: string; job_post_id: string; batch_id: string | null; callback_url: string | null }>(
    `UPDATE submissions SET state = $2, error_code = $3, finished_at = now(), adapter = $4, duration_ms = $5
     WHERE submission_id = $1 AND state NOT IN ('completed', 'failed')
     RETURNING client_id, job_post_id, batch_id,
       coalesce(callback_url, (SELECT b.callback_url FROM batches AS b WHERE b.batch_id = submissions.batch_id)) AS callback_url`,
    [submissionId, outcome.kind, outcome.kind === 'failed' ? outcome.errorCode : null, outcome.adapter, outcome.durationMs],
  );
  const row = updated.rows[0];
  if (!row) return null;
  if (outcome.kind === 'completed') {
    // Only a newer submission's result replaces an older one.
    await client.query(
      `INSERT INTO mining_results (client_id, job_post_id, submission_id, body, body_v1, succeeded_at, adapter, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (client_id, job_post_id) DO UPDATE SET
         submission_id = EXCLUDED.submission_id, body = EXCLUDED.body, body_v1 = EXCLUDED.body_v1,
         succeeded_at = EXCLUDED.succeeded_at, adapter = EXCLUDED.adapter, duration_ms = EXCLUDED.duration_ms
       WHERE mining_results.submission_id < EXCLUDED.submission_id`,
      [
        row.client_id,
        row.job_post_id,
        submissionId,
        outcome.body,
        outcome.bodyV1,
        outcome.succeededAt,
        outcome.adapter,
        outcome.durationMs,
      ],
    );
  }
  const at = new Date();
  const event = jobPostEvent({
    jobPostId: row.job_post_id,
    batchId: row.batch_id,
    kind: outcome.kind,
    errorCode: outcome.kind === 'failed' ? outcome.errorCode : null,
    succeededAt: outcome.kind === 'completed' ? outcome.succeededAt : null,
  });
  await oweCallback(client, { clientId: row.client_id, url: row.callback_url, subjectId: row.job_post_id, at, ...event });
  if (!row.batch_id) return { batchId: null, finishedBatch: false };
  const batch = await client.query<{
    state: string;
    just_finished: boolean;
    callback_url: string | null;
    jobs_count: number;
    succeeded_count: number;
    failed_count: number;
  }>(
    `UPDATE batches SET
       processed_count = processed_count + 1,
       succeeded_count = succeeded_count + $2,
       failed_count = failed_count + $3,
       state = CASE WHEN processed_count + 1 >= jobs_count THEN 'finished' ELSE state END,
       finished_at = CASE WHEN processed_count + 1 >= jobs_count THEN now() ELSE finished_at END
     WHERE batch_id = $1 RETURNING state, processed_count = jobs_count AS just_finished, callback_url, jobs_count, succeeded_count, failed_count`,
    [row.batch_id, outcome.kind === 'completed' ? 1 : 0, outcome.kind === 'failed' ? 1 : 0],
  );
  const counted = batch.rows[0];
  if (counted?.just_finished && (await callbackTarget(client, row.client_id, counted.callback_url))) {
    // Every other row's outcome committed before this transaction took the batch row's lock.
    const failures = await client.query<{ error_code: string; count: string }>(
      `SELECT error_code, count(*) FROM submissions WHERE batch_id = $1 AND state = 'failed' GROUP BY error_code`,
      [row.batch_id],
    );
    const finished = batchFinishedEvent({
      batchId: row.batch_id,
      jobsCount: counted.jobs_count,
      completed: counted.succeeded_count,
      failed: counted.failed_count,
      failedByErrorCode: Object.fromEntries(failures.rows.map((failure) => [failure.error_code, Number(failure.count)])),
      finishedAt: at,
    });
    await oweCallback(client, { clientId: row.client_id, url: counted.callback_url, subjectId: row.batch_id, at, ...finished });
  }
  return { batchId: row.batch_id, finishedBatch: counted?.state === 'finished' };
}

export type RetrievalRow = {
  state: SubmissionState;
  errorCode: string | null;
  body: string | null;
  bodyV1: string | null;
};

/** One round trip for retrieval: the newest submission's state and the newest completed result. */
export async function findRetrieval(db: Queryable, clientId: string, jobPostId: string): Promise<RetrievalRow | null> {
  const result = await db.query<{ state: SubmissionState | null; error_code: string | null; body: string | null; body_v1: string | null }>({
    name: 'find-retrieval',
    text: `SELECT s.state, s.error_code, r.body, r.body_v1
           FROM (SELECT 1) AS one
           LEFT JOIN LATERAL (
             SELECT state, error_code FROM submissions
             WHERE client_id = $1 AND job_post_id = $2 ORDER BY submission_id DESC LIMIT 1
           ) AS s ON true
           LEFT JOIN mining_results AS r ON r.client_id = $1 AND r.job_post_id = $2`,
    values: [clientId, jobPostId],
  });
  const row = result.rows[0];
  if (!row?.state) return null;
  return { state: row.state, errorCode: row.error_code, body: row.body, bodyV1: row.body_v1 };
}

/** The newest completed mining of a post for a client: its questions (v2 shape) and the page it came from. */
export async function findMinedForm(
  db: Queryable,
  clientId: string,
  jobPostId: string,
): Promise<{ body: string; url: string; employer: string; jobTitle: string; country: string } | null> {
  const result = await db.query<{ body: string; url: string; employer: string; job_title: string; country: string }>(
    `SELECT r.body, s.url, s.employer, s.job_title, s.country
     FROM mining_results AS r JOIN submissions AS s ON s.submission_id = r.submission_id
     WHERE r.client_id = $1 AND r.job_post_id = $2`,
    [clientId, jobPostId],
  );
  const row = result.rows[0];
  return row ? { body: row.body, url: row.url, employer: row.employer, jobTitle: row.job_title, country: row.country } : null;
}
