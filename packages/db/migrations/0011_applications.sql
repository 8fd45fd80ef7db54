-- Up Migration

-- One application of a candidate to a job post, on behalf of a client. What identifies a person
-- (candidate, answers, file URLs and their headers, the confirmation and its screenshot) is kept
-- only sealed (AES-256-GCM with QUARRY_SECRET_KEY) and purged a retention period after the
-- application ends; the status and error code stay. `email_hash` (HMAC of the lowercased email)
-- finds a candidate's applications without keeping the address readable.
CREATE TABLE applications (
  application_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  job_post_id text NOT NULL,
  email_hash bytea NOT NULL,
  idempotency_key text,
  -- queued: accepted; processing: a worker runs it; submitting: the final step was about to
  -- happen (recorded durably before it); success | failed: final.
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'processing', 'submitting', 'success', 'failed')),
  error_code text,
  message text,
  url text,
  host text,
  employer text,
  job_title text,
  -- The questions the answers were checked against (JSON), when the post was mined before.
  questions text,
  sealed bytea,
  confirmation_sealed bytea,
  screenshot_sealed bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  submitting_at timestamptz,
  submitted_at timestamptz,
  finished_at timestamptz,
  purged_at timestamptz
);
CREATE UNIQUE INDEX applications_idempotency ON applications (client_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX applications_candidate ON applications (client_id, job_post_id, email_hash, created_at DESC);
-- At most one application of a candidate to a post is being submitted or has succeeded: two
-- requests racing past the AlreadyApplied check cannot both reach the employer's form.
CREATE UNIQUE INDEX applications_one_submission ON applications (client_id, job_post_id, email_hash) WHERE state IN ('submitting', 'success');
CREATE INDEX applications_state ON applications (state, error_code);
CREATE INDEX applications_finished ON applications (finished_at DESC) WHERE finished_at IS NOT NULL;
CREATE INDEX applications_to_purge ON applications (finished_at) WHERE sealed IS NOT NULL AND finished_at IS NOT NULL;

-- Down Migration
DROP TABLE applications;
