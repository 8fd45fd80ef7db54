-- Up Migration

-- The dashboard's per-minute activity reads the job posts that finished in the last hour, across
-- every batch and single submission; without this it would scan the whole table on every poll.
CREATE INDEX submissions_finished ON submissions (finished_at) WHERE finished_at IS NOT NULL;
