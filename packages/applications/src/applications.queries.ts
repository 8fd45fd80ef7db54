// Longer than 400 lines: every statement on the applications table, one query module per aggregate
// as the rest of the store; the claim, the intent and the outcome share one set of lease rules.
import { applicationEndedEvent, oweCallback } from '@quarry/callbacks';
import type { ApplicationTransport } from '@quarry/contracts';
import { withTransaction, withTransactionWithin, type Pool, type Queryable } from '@quarry/db';

type ApplicationState = 'queued' | 'processing' | 'submitting' | 'success' | 'failed';

export type NewApplication = {
  applicationId: string;
  clientId: string;
  jobPostId: string;
  /** The job as its ATS names it (`atsJobKey`): with the client and email, the AlreadyApplied key. */
  atsJob: string;
  emailHash: Buffer;
  idempotencyKey: string | null;
  url: string | null;
  host: string | null;
  employer: string | null;
  jobTitle: string | null;
  questions: string | null;
  sealed: Buffer;
  /** Where `application.ended` is POSTed; null: the client's default callback URL, if any. */
  callbackUrl?: string | null;
};

/**
 * Inserts an application; with an idempotency key already used by this client, inserts nothing
 * and returns the first application's id (`created: false`).
 */
export async function insertApplication(db: Queryable, row: NewApplication): Promise<{ applicationId: string; created: boolean }> {
  const inserted = await db.query<{ application_id: string }>(
    `INSERT INTO applications (application_id, client_id, job_post_id, email_hash, idempotency_key, url, host, employer, job_title, questions, sealed, ats_job, callback_url)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (client_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING application_id`,
    [
      row.applicationId,
      row.clientId,
      row.jobPostId,
      row.emailHash,
      row.idempotencyKey,
      row.url,
      row.host,
      row.employer,
      row.jobTitle,
      row.questions,
      row.sealed,
      row.atsJob,
      row.callbackUrl ?? null,
    ],
  );
  if (inserted.rows[0]) return { applicationId: inserted.rows[0].application_id, created: true };
  const first = await db.query<{ application_id: string }>(
    'SELECT application_id FROM applications WHERE client_id = $1 AND idempotency_key = $2',
    [row.clientId, row.idempotencyKey],
  );
  const existing = first.rows[0];
  if (!existing) throw new Error('idempotency key conflict without a row');
  return { applicationId: existing.application_id, created: false };
}

/**
 * Whether this client already applied this candidate successfully to this job: the same ATS job
 * (whichever job post named it) or the same job post.
 */
export async function hasEarlierSuccess(
  db: Queryable,
  job: { clientId: string; atsJob: string; jobPostId: string; emailHash: Buffer },
  except: string,
): Promise<boolean> {
  const result = await db.query(
    `SELECT 1 FROM applications
     WHERE client_id = $1 AND (ats_job = $2 OR job_post_id = $3) AND email_hash = $4 AND state = 'success' AND application_id <> $5 LIMIT 1`,
    [job.clientId, job.atsJob, job.jobPostId, job.emailHash, except],
  );
  return result.rows.length > 0;
}

export type ApplicationRow = {
  applicationId: string;
  clientId: string;
  jobPostId: string;
  state: ApplicationState;
  errorCode: string | null;
  message: string | null;
  submittedAt: Date | null;
  confirmationSealed: Buffer | null;
  hasScreenshot: boolean;
  transport: ApplicationTransport | null;
};

const rowColumns = `application_id, client_id, job_post_id, state, error_code, message, submitted_at, confirmation_sealed, screenshot_sealed IS NOT NULL AS has_screenshot, transport`;
type RawRow = {
  application_id: string;
  client_id: string;
  job_post_id: string;
  state: ApplicationState;
  error_code: string | null;
  message: string | null;
  submitted_at: Date | null;
  confirmation_sealed: Buffer | null;
  has_screenshot: boolean;
  transport: ApplicationTransport | null;
};
const toRow = (row: RawRow): ApplicationRow => ({
  applicationId: row.application_id,
  clientId: row.client_id,
  jobPostId: row.job_post_id,
  state: row.state,
  errorCode: row.error_code,
  message: row.message,
  submittedAt: row.submitted_at,
  confirmationSealed: row.confirmation_sealed,
  hasScreenshot: row.has_screenshot,
  transport: row.transport,
});

export async function findApplicationById(db: Queryable, clientId: string, applicationId: string): Promise<ApplicationRow | null> {
  const result = await db.query<RawRow>(`SELECT ${rowColumns} FROM applications WHERE client_id = $1 AND application_id = $2`, [
    clientId,
    applicationId,
  ]);
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

export async function findNewestForCandidate(
  db: Queryable,
  clientId: string,
  jobPostId: string,
  emailHash: Buffer,
): Promise<ApplicationRow | null> {
  const result = await db.query<RawRow>(
    `SELECT ${rowColumns} FROM applications WHERE client_id = $1 AND job_post_id = $2 AND email_hash = $3 ORDER BY created_at DESC LIMIT 1`,
    [clientId, jobPostId, emailHash],
  );
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

export type ApplicationToRun = {
  applicationId: string;
  clientId: string;
  jobPostId: string;
  atsJob: string;
  emailHash: Buffer;
  /** The state found when the job started: `submitting` means an earlier run may have submitted. */
  state: ApplicationState;
  url: string | null;
  host: string | null;
  employer: string | null;
  jobTitle: string | null;
  questions: string | null;
  sealed: Buffer | null;
};

/**
 * Marks a queued application processing and returns it with the state it had. A `processing` one
 * is a crashed worker's job being re-run (nothing was submitted: `submitting` was not recorded);
 * a `submitting` one is returned unchanged so the caller never submits it again.
 */
/**
 * What `claimApplication` found: the application to run (its lease now this run's), or why not:
 * it ended, it does not exist, or another run holds a live lease until `until`.
 */
export type Claim =
  { kind: 'claimed'; application: ApplicationToRun } | { kind: 'ended' } | { kind: 'missing' } | { kind: 'held'; until: Date };

/**
 * Takes the application's run lease for `owner` for `leaseMs` (queued becomes processing): when no
 * run holds it, when its holder's lease lapsed, or when `owner` holds it already.
 */
export async function claimApplication(db: Queryable, applicationId: string, owner: string, leaseMs: number): Promise<Claim> {
  const result = await db.query<{
    client_id: string;
    job_post_id: string;
    ats_job: string;
    email_hash: Buffer;
    previous: ApplicationState;
    url: string | null;
    host: string | null;
    employer: string | null;
    job_title: string | null;
    questions: string | null;
    sealed: Buffer | null;
  }>(
    `UPDATE applications AS a SET state = CASE WHEN a.state = 'queued' THEN 'processing' ELSE a.state END, started_at = coalesce(a.started_at, now()),
       run_owner = $2, run_expires_at = now() + make_interval(secs => $3::double precision / 1000)
     FROM (SELECT application_id, state, run_owner, run_expires_at FROM applications WHERE application_id = $1 FOR UPDATE) AS before
     WHERE a.application_id = before.application_id AND before.state IN ('queued', 'processing', 'submitting')
       AND (before.run_owner IS NULL OR before.run_owner = $2 OR before.run_expires_at <= now())
     RETURNING a.client_id, a.job_post_id, a.ats_job, a.email_hash, before.state AS previous, a.url, a.host, a.employer, a.job_title, a.questions, a.sealed`,
    [applicationId, owner, leaseMs],
  );
  const row = result.rows[0];
  if (!row) {
    const found = await db.query<{ state: ApplicationState; run_expires_at: Date | null }>(
      'SELECT state, run_expires_at FROM applications WHERE application_id = $1',
      [applicationId],
    );
    const current = found.rows[0];
    if (!current) return { kind: 'missing' };
    if (current.state === 'success' || current.state === 'failed') return { kind: 'ended' };
    return { kind: 'held', until: current.run_expires_at ?? new Date() };
  }
  return {
    kind: 'claimed',
    application: {
      applicationId,
      clientId: row.client_id,
      jobPostId: row.job_post_id,
      atsJob: row.ats_job,
      emailHash: row.email_hash,
      state: row.previous,
      url: row.url,
      host: row.host,
      employer: row.employer,
      jobTitle: row.job_title,
      questions: row.questions,
      sealed: row.sealed,
    },
  };
}

/** Gives up `owner`'s lease of an application that did not end, so the next run need not wait for it to lapse. */
export async function releaseApplicationLease(db: Queryable, applicationId: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE applications SET run_owner = NULL, run_expires_at = NULL WHERE application_id = $1 AND run_owner = $2 AND state IN ('processing', 'submitting')`,
    [applicationId, owner],
  );
}

/** Extends `owner`'s lease; false when it is no longer `owner`'s (another run took it, or the application ended). */
export async function renewApplicationLease(db: Queryable, applicationId: string, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE applications SET run_expires_at = now() + make_interval(secs => $3::double precision / 1000)
     WHERE application_id = $1 AND run_owner = $2 AND state IN ('processing', 'submitting')`,
    [applicationId, owner, leaseMs],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Keeps the questions the application was checked against after they were mined for it. */
export async function storeMinedQuestions(db: Queryable, applicationId: string, questions: string): Promise<void> {
  await db.query('UPDATE applications SET questions = $2 WHERE application_id = $1', [applicationId, questions]);
}

/**
 * Records, in its own statement (committed before the engine's irreversible step), that the
 * application is about to be submitted.
 */
export async function markSubmitting(
  db: Queryable,
  applicationId: string,
  owner: string,
): Promise<'recorded' | 'not-processing' | 'other-submission'> {
  try {
    // Only the run that holds the lease: a run whose lease lapsed (paused, cut off) never submits.
    const result = await db.query(
      `UPDATE applications SET state = 'submitting', submitting_at = now() WHERE application_id = $1 AND state = 'processing' AND run_owner = $2 AND run_expires_at > now()`,
      [applicationId, owner],
    );
    return (result.rowCount ?? 0) > 0 ? 'recorded' : 'not-processing';
  } catch (error) {
    // applications_one_submission(_per_ats_job): this candidate's application to this post, or to
    // the same ATS job, is being submitted or succeeded.
    if ((error as { code?: string }).code === '23505') return 'other-submission';
    throw error;
  }
}

export type ApplicationOutcome = (
  | { status: 'success'; submittedAt: Date; confirmationSealed: Buffer; screenshotSealed: Buffer | null }
  | { status: 'failed'; errorCode: string; message: string; submittedAt: Date | null; screenshotSealed: Buffer | null }
) & { transport?: ApplicationTransport | undefined };

/**
 * Records the final outcome once, by the run that holds the application (`owner`; null where no
 * run ever did, at intake): a second outcome changes nothing. The one exception is a definite
 * outcome (`definite`: what the site or vendor answered) over `SubmissionOutcomeUnknown`, which
 * another run recorded without knowing: that late answer replaces it, whoever sends it. Every
 * outcome recorded owes an `application.ended` callback, in the same transaction (ADR 0053): a
 * replaced one owes a new one, which says what it replaces.
 */
export type FinishOptions = {
  /** The run that holds the application; null where no run ever did (at intake). */
  owner?: string | null;
  /** What the site or vendor answered: it replaces a `SubmissionOutcomeUnknown`. */
  definite?: boolean;
  /**
   * The run that sends this outcome recorded the intent (`submitting`) itself. Only the lease's
   * holder ever records it, once per application, so that run's definite answer is the truth even
   * when its lease lapsed meanwhile and another run holds the application now.
   */
  afterOwnIntent?: boolean;
  /** Ends the transaction within this many ms (a record retried until it is in). */
  withinMs?: number;
};

export async function finishApplication(
  db: Pool,
  applicationId: string,
  outcome: ApplicationOutcome,
  options: FinishOptions = {},
): Promise<boolean> {
  const { owner = null, definite = false, afterOwnIntent = false, withinMs } = options;
  const inTransaction = <T>(work: (client: Queryable) => Promise<T>) =>
    withinMs === undefined ? withTransaction(db, work) : withTransactionWithin(db, withinMs, work);
  return inTransaction(async (client) => {
    const result = await client.query<{ client_id: string; job_post_id: string; callback_url: string | null; replaced: boolean }>(
      `UPDATE applications AS a SET state = $2, error_code = $3, message = $4, submitted_at = $5, confirmation_sealed = $6,
         screenshot_sealed = $7, transport = $8, finished_at = now(), run_owner = NULL, run_expires_at = NULL
       FROM (SELECT application_id, state AS state_before FROM applications WHERE application_id = $1 FOR UPDATE) AS before
       WHERE a.application_id = before.application_id AND (
         (a.state NOT IN ('success', 'failed') AND ($9::text IS NULL OR a.run_owner = $9 OR a.run_owner IS NULL))
         OR ($10 AND a.state = 'failed' AND a.error_code = 'SubmissionOutcomeUnknown' AND a.purged_at IS NULL)
         OR ($10 AND $11 AND a.state = 'submitting'))
       RETURNING a.client_id, a.job_post_id, a.callback_url, before.state_before = 'failed' AS replaced`,
      [
        applicationId,
        outcome.status,
        outcome.status === 'failed' ? outcome.errorCode : null,
        outcome.status === 'failed' ? outcome.message : null,
        outcome.submittedAt,
        outcome.status === 'success' ? outcome.confirmationSealed : null,
        outcome.screenshotSealed,
        outcome.transport ? JSON.stringify(outcome.transport) : null,
        owner,
        definite,
        afterOwnIntent,
      ],
    );
    const row = result.rows[0];
    if (!row) return false;
    const event = applicationEndedEvent({
      applicationId,
      jobPostId: row.job_post_id,
      status: outcome.status,
      errorCode: outcome.status === 'failed' ? outcome.errorCode : null,
      transport: outcome.transport ?? null,
      submittedAt: outcome.submittedAt,
      replacedUnknown: row.replaced,
    });
    await oweCallback(client, { clientId: row.client_id, url: row.callback_url, subjectId: applicationId, at: new Date(), ...event });
    return true;
  });
}

export async function findScreenshot(db: Queryable, applicationId: string, clientId: string | null): Promise<Buffer | null> {
  const result = await db.query<{ screenshot_sealed: Buffer | null }>(
    'SELECT screenshot_sealed FROM applications WHERE application_id = $1 AND ($2::text IS NULL OR client_id = $2)',
    [applicationId, clientId],
  );
  return result.rows[0]?.screenshot_sealed ?? null;
}

/**
 * Applications not ended whose run is not alive (no lease, or one lapsed) and that nothing has
 * touched since `before`: their job may be lost.
 */
export async function findStrandedApplications(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const result = await db.query<{ application_id: string }>(
    `SELECT application_id FROM applications
     WHERE state IN ('queued', 'processing', 'submitting') AND created_at < $1
       AND (run_expires_at IS NULL OR run_expires_at < $1)
       AND coalesce(submitting_at, started_at, created_at) < $1
     ORDER BY created_at LIMIT $2`,
    [before, limit],
  );
  return result.rows.map((row) => row.application_id);
}

/**
 * Ends applications created before `createdBefore` that never ended, and removes what identifies
 * the candidate at once (the email hash too: they did not succeed). Each owes its
 * `application.ended`, in the same transaction. Returns how many.
 */
export async function endAbandonedApplications(db: Pool, createdBefore: Date): Promise<number> {
  return withTransaction(db, async (client) => {
    const result = await client.query<{
      application_id: string;
      client_id: string;
      job_post_id: string;
      callback_url: string | null;
      error_code: string;
    }>(
      `UPDATE applications SET
         state = 'failed',
         error_code = CASE WHEN state = 'submitting' THEN 'SubmissionOutcomeUnknown' ELSE 'ApplicationFailed' END,
         message = CASE WHEN state = 'submitting'
           THEN 'The form may have been submitted, but no run could confirm it before the retention period ended; check with the employer before applying again.'
           ELSE 'The application never ran before the retention period ended; nothing was submitted.' END,
         finished_at = now(), run_owner = NULL, run_expires_at = NULL,
         sealed = NULL, confirmation_sealed = NULL, screenshot_sealed = NULL, questions = NULL, idempotency_key = NULL,
         email_hash = '\\x'::bytea, purged_at = now()
       WHERE state IN ('queued', 'processing', 'submitting') AND created_at < $1 AND (run_expires_at IS NULL OR run_expires_at < now())
       RETURNING application_id, client_id, job_post_id, callback_url, error_code`,
      [createdBefore],
    );
    const at = new Date();
    for (const row of result.rows) {
      const event = applicationEndedEvent({
        applicationId: row.application_id,
        jobPostId: row.job_post_id,
        status: 'failed',
        errorCode: row.error_code,
        transport: null,
        submittedAt: null,
        replacedUnknown: false,
      });
      await oweCallback(client, { clientId: row.client_id, url: row.callback_url, subjectId: row.application_id, at, ...event });
    }
    return result.rows.length;
  });
}

/**
 * Removes what identifies the candidate from applications that ended before `endedBefore`. The
 * status and error code stay. The email hash stays only on a success: it is what refuses a second
 * application of the same candidate to the same job (AlreadyApplied).
 */
export async function purgeEndedBefore(db: Queryable, endedBefore: Date, limit: number): Promise<number> {
  const result = await db.query(
    `UPDATE applications SET sealed = NULL, confirmation_sealed = NULL, screenshot_sealed = NULL, questions = NULL, idempotency_key = NULL,
       -- A failure's message may quote the vendor or the page, which can echo the candidate's answers.
       message = CASE WHEN state = 'failed' THEN 'The details of this failure were removed with the candidate''s data after the retention period; the error code remains.' END,
       email_hash = CASE WHEN state = 'success' THEN email_hash ELSE '\\x'::bytea END, purged_at = now()
     WHERE application_id IN (
       SELECT application_id FROM applications
       WHERE finished_at < $1 AND purged_at IS NULL ORDER BY finished_at LIMIT $2
     )`,
    [endedBefore, limit],
  );
  return result.rowCount ?? 0;
}

export async function countByStatus(db: Queryable): Promise<Array<{ status: string; errorCode: string | null; count: number }>> {
  const result = await db.query<{ state: string; error_code: string | null; count: string }>(
    'SELECT state, error_code, count(*) AS count FROM applications GROUP BY state, error_code ORDER BY state, error_code NULLS FIRST',
  );
  return result.rows.map((row) => ({ status: row.state, errorCode: row.error_code, count: Number(row.count) }));
}

export async function recentFailures(db: Queryable, limit: number) {
  const result = await db.query<{
    application_id: string;
    client_id: string;
    job_post_id: string;
    host: string | null;
    error_code: string | null;
    message: string | null;
    finished_at: Date | null;
    has_screenshot: boolean;
  }>(
    `SELECT application_id, client_id, job_post_id, host, error_code, message, finished_at, screenshot_sealed IS NOT NULL AS has_screenshot
     FROM applications WHERE state = 'failed' ORDER BY finished_at DESC NULLS LAST LIMIT $1`,
    [limit],
  );
  return result.rows;
}
