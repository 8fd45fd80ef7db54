-- Up Migration

-- The job an application goes to as its ATS knows it (`greenhouse:4012345`, `lever:<posting id>`,
-- `recruitee:acme:backend-engineer`, or the apply page's address for a site no adapter knows):
-- two job posts of a client naming the same ATS job are one job, so a candidate applied to one is
-- AlreadyApplied to the other. Rows from before this column keep their job post as the key.
ALTER TABLE applications ADD COLUMN ats_job text;
UPDATE applications SET ats_job = 'post:' || job_post_id WHERE ats_job IS NULL;
ALTER TABLE applications ALTER COLUMN ats_job SET NOT NULL;

-- At most one application of a candidate to an ATS job is being submitted or has succeeded, per
-- client (beside the same rule per job post): racing requests cannot both reach the vendor.
CREATE UNIQUE INDEX applications_one_submission_per_ats_job ON applications (client_id, ats_job, email_hash) WHERE state IN ('submitting', 'success');

-- Down Migration
DROP INDEX applications_one_submission_per_ats_job;
ALTER TABLE applications DROP COLUMN ats_job;
