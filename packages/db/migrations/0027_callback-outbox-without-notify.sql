-- Up Migration

-- An owed callback no longer NOTIFYs the relay at its commit. Postgres serializes every commit that
-- issued a NOTIFY, through its WAL flush, on one lock per database (to keep the queue in commit
-- order): outcomes that owe callbacks could then commit no faster than one flush after another
-- (240 commits/s on the development VM against 630-1,100 without the trigger). The relay polls
-- every CALLBACK_RELAY_POLL_MS instead (ADR 0053).
DROP TRIGGER callback_outbox_owed ON callback_outbox;
DROP FUNCTION callback_outbox_notify();

-- Down Migration
CREATE FUNCTION callback_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('callback_outbox', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER callback_outbox_owed AFTER INSERT ON callback_outbox FOR EACH ROW EXECUTE FUNCTION callback_outbox_notify();
