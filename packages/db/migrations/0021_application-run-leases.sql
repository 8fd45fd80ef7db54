-- Up Migration

-- The run that holds an application: who (a process and job run of its own) and until when. It is
-- renewed while the run lives; a run that finds another's live lease waits for it instead of
-- taking the application over, and a run that lost its lease writes nothing but a definite
-- outcome over SubmissionOutcomeUnknown (its late answer is the truth the other run could not know).
ALTER TABLE applications ADD COLUMN run_owner text;
ALTER TABLE applications ADD COLUMN run_expires_at timestamptz;

-- The reconciler's scan: applications not yet ended, oldest first.
CREATE INDEX applications_unfinished ON applications (created_at) WHERE state IN ('queued', 'processing', 'submitting');

-- Down Migration
DROP INDEX applications_unfinished;
ALTER TABLE applications DROP COLUMN run_expires_at;
ALTER TABLE applications DROP COLUMN run_owner;
