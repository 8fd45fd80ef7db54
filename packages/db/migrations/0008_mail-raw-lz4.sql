-- Up Migration

-- Every accepted message is written to `mail_messages.raw` once, read back at most once, then
-- deleted. pglz compression of that column was ~9% of Postgres's CPU in bench smtp
-- (perf); lz4 compresses and decompresses several times faster. Measured here, 10,000 rows of
-- 10 KB text each: pglz 437–582 ms, lz4 47–52 ms (no compression at all: 549 ms, the bytes then
-- go to the WAL and TOAST uncompressed). About 45 µs less Postgres CPU per message.
-- A server built without lz4 keeps pglz: the column works the same, only slower.
DO $$
BEGIN
  ALTER TABLE mail_messages ALTER COLUMN raw SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: mail_messages.raw keeps pglz';
END
$$;
