-- Up Migration

-- A batch: its own queue, state and exact counters (updated in the same transaction as each row).
CREATE TABLE batches (
  batch_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  state text NOT NULL CHECK (state IN ('created', 'processing', 'paused', 'resumed', 'finished')),
  jobs_count integer NOT NULL CHECK (jobs_count > 0),
  processed_count integer NOT NULL DEFAULT 0,
  succeeded_count integer NOT NULL DEFAULT 0,
  failed_count integer NOT NULL DEFAULT 0,
  employer text,
  concurrency integer NOT NULL,
  rate_per_minute integer NOT NULL,
  paused_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX batches_client_created ON batches (client_id, created_at DESC);
CREATE INDEX batches_active ON batches (state) WHERE state <> 'finished';

-- Every mining request, single or a batch row. The newest submission of a (client, jobPostId) is
-- what retrieval reports; its id orders submissions (a COPY numbers a batch's rows in file order).
CREATE TABLE submissions (
  submission_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id text NOT NULL,
  job_post_id text NOT NULL,
  batch_id uuid REFERENCES batches (batch_id),
  row_no integer,
  url text NOT NULL,
  employer text NOT NULL,
  job_title text NOT NULL,
  country text NOT NULL,
  -- queued: accepted; admitted: handed to the batch queue; processing; completed | failed.
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'admitted', 'processing', 'completed', 'failed')),
  error_code text,
  submitted_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  adapter text,
  duration_ms integer
);
CREATE INDEX submissions_lookup ON submissions (client_id, job_post_id, submission_id DESC);
CREATE INDEX submissions_batch_state ON submissions (batch_id, state, row_no) WHERE batch_id IS NOT NULL;
CREATE INDEX submissions_batch_finished ON submissions (batch_id, finished_at DESC) WHERE batch_id IS NOT NULL AND finished_at IS NOT NULL;

-- The newest completed result per (client, jobPostId), pre-serialized for retrieval: `body` is the
-- v2 shape (with categories), `body_v1` the same without. A re-submission leaves it readable
-- until its own run completes.
CREATE TABLE mining_results (
  client_id text NOT NULL,
  job_post_id text NOT NULL,
  submission_id bigint NOT NULL,
  body text NOT NULL,
  body_v1 text NOT NULL,
  succeeded_at timestamptz NOT NULL,
  adapter text NOT NULL,
  duration_ms integer NOT NULL,
  PRIMARY KEY (client_id, job_post_id)
);

-- Down Migration
DROP TABLE mining_results;
DROP TABLE submissions;
DROP TABLE batches;
