-- Up Migration

-- A client's callbacks: the default URL (used where a request names none) and the Standard
-- Webhooks secret that signs every callback, sealed with QUARRY_SECRET_KEY. After a rotation the
-- previous secret signs too, beside the new one, until previous_valid_until (ADR 0053).
CREATE TABLE callback_clients (
  client_id text PRIMARY KEY REFERENCES clients (client_id),
  default_url text,
  secret_sealed bytea NOT NULL,
  previous_secret_sealed bytea,
  previous_valid_until timestamptz,
  secret_created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Where the outcome of one request is announced: a single post, a batch (every row and the batch's
-- end), an application. NULL: the client's default, if it has one.
ALTER TABLE submissions ADD COLUMN callback_url text;
ALTER TABLE batches ADD COLUMN callback_url text;
ALTER TABLE applications ADD COLUMN callback_url text;

-- The outbox of recruitment's callbacks: one row per event owed to a client, inserted in the
-- transaction that commits the outcome it announces (an outcome never commits without it). The
-- relay moves due rows to the callbacks.deliver queue (state sending, under a lease and a
-- dispatch number), at most CALLBACK_CLIENT_CONCURRENCY per client; a delivery records its answer
-- here. webhook_id is the Standard Webhooks message id: the same on every attempt.
CREATE TABLE callback_outbox (
  event_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook_id text NOT NULL DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
  client_id text NOT NULL,
  event_type text NOT NULL,
  subject_id text NOT NULL,
  url text NOT NULL,
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  dispatch_seq integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_attempt_at timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz
);
CREATE INDEX callback_outbox_due ON callback_outbox (client_id, next_attempt_at) WHERE state = 'pending';
CREATE INDEX callback_outbox_sending ON callback_outbox (client_id, lease_until) WHERE state = 'sending';
CREATE INDEX callback_outbox_client ON callback_outbox (client_id, event_id DESC);
CREATE INDEX callback_outbox_settled ON callback_outbox (created_at) WHERE state IN ('delivered', 'failed');
-- A batch ends once: a second batch.finished for it could only be a bug, and is refused here too.
CREATE UNIQUE INDEX callback_outbox_batch_finished ON callback_outbox (subject_id) WHERE event_type = 'batch.finished';

-- The relay is woken at the commit of every insert (Postgres folds a transaction's identical
-- notifications into one, and sends none for a rollback).
CREATE FUNCTION callback_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('callback_outbox', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER callback_outbox_owed AFTER INSERT ON callback_outbox FOR EACH ROW EXECUTE FUNCTION callback_outbox_notify();

-- Down Migration
DROP TRIGGER callback_outbox_owed ON callback_outbox;
DROP FUNCTION callback_outbox_notify();
DROP TABLE callback_outbox;
ALTER TABLE applications DROP COLUMN callback_url;
ALTER TABLE batches DROP COLUMN callback_url;
ALTER TABLE submissions DROP COLUMN callback_url;
DROP TABLE callback_clients;
