-- Up Migration

-- Landing a 70,000-row batch is one COPY into `submissions`, and the 200 waits for it (target:
-- under 1 s). Measured on the 2-core VM, that COPY took ~760 ms with the table as 0002 made it
-- and ~470 ms with these changes:
--   * The batch foreign key ran a lookup in `batches` for every copied row (~200 ms). Rows with a
--     batch_id are only written in the transaction that inserts that batch (acceptBatch,
--     copyFailedRowsToBatch), and batches are never deleted, so the key guarded nothing the code
--     does not already guarantee.
--   * Ids and states compare byte-wise ("C"): under the database's C.UTF-8 every index comparison
--     went through strcoll. Nothing orders these columns for people to read.
--   * `(batch_id, state, row_no)` over every row is replaced by partial indexes that each serve a
--     query: the queued rows in file order (admission: rows arrive in row order, so the COPY only
--     appends), and the few rows in flight or failed (in-flight count, failure breakdown, retry).
ALTER TABLE submissions DROP CONSTRAINT submissions_batch_id_fkey;
ALTER TABLE submissions
  ALTER COLUMN client_id TYPE text COLLATE "C",
  ALTER COLUMN job_post_id TYPE text COLLATE "C",
  ALTER COLUMN state TYPE text COLLATE "C";
DROP INDEX submissions_batch_state;
CREATE INDEX submissions_batch_queued ON submissions (batch_id, row_no) WHERE state = 'queued';
CREATE INDEX submissions_batch_unsettled ON submissions (batch_id, state) WHERE state IN ('admitted', 'processing', 'failed');

-- Down Migration
DROP INDEX submissions_batch_unsettled;
DROP INDEX submissions_batch_queued;
CREATE INDEX submissions_batch_state ON submissions (batch_id, state, row_no) WHERE batch_id IS NOT NULL;
ALTER TABLE submissions
  ALTER COLUMN client_id TYPE text COLLATE "default",
  ALTER COLUMN job_post_id TYPE text COLLATE "default",
  ALTER COLUMN state TYPE text COLLATE "default";
ALTER TABLE submissions ADD CONSTRAINT submissions_batch_id_fkey FOREIGN KEY (batch_id) REFERENCES batches (batch_id);
