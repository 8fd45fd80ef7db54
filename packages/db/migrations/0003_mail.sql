-- Up Migration

-- A forwarding binding: mail to `recipient` goes to `forwards_to`. The recipient is unique across
-- the whole deployment (the SMTP server has no tenant to scope by), stored lowercased.
CREATE TABLE mail_bindings (
  recipient text PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  forwards_to text NOT NULL,
  keep_sender boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  -- 'expired' is written by the housekeeping job for operators; every check uses expires_at, so a
  -- binding stops applying at the very moment it expires, whether or not the job has run.
  state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'expired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  received_count bigint NOT NULL DEFAULT 0,
  delivered_count bigint NOT NULL DEFAULT 0,
  bounced_count bigint NOT NULL DEFAULT 0,
  last_delivered_at timestamptz
);
CREATE INDEX mail_bindings_client ON mail_bindings (client_id);
CREATE INDEX mail_bindings_active_expiry ON mail_bindings (expires_at) WHERE state = 'active';

-- A message accepted by the SMTP server (250 is answered only after this row commits). The raw
-- bytes (with our Received: line) live here until every delivery of the message is final.
CREATE TABLE mail_messages (
  message_id uuid PRIMARY KEY,
  -- '' is the null reverse-path <>: such mail is never bounced.
  envelope_from text NOT NULL,
  raw bytea NOT NULL,
  size_bytes integer NOT NULL,
  accepted_at timestamptz NOT NULL DEFAULT now()
);

-- One delivery of one message to one destination: the unit of retry and of exactly-once.
CREATE TABLE mail_deliveries (
  delivery_id uuid PRIMARY KEY,
  message_id uuid NOT NULL REFERENCES mail_messages (message_id) ON DELETE CASCADE,
  -- The bound address the message was sent to; null for bounces and reversed SRS bounces.
  recipient text,
  forwards_to text NOT NULL,
  -- forward: a bound recipient's copy; bounce: a DSN we generated; srs-return: a bounce coming
  -- back to an SRS address, relayed to the original sender.
  kind text NOT NULL CHECK (kind IN ('forward', 'bounce', 'srs-return')),
  keep_sender boolean NOT NULL,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'deferred', 'delivered', 'bounced')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  -- Many recipients of one message may share a destination: it gets the message once.
  UNIQUE (message_id, forwards_to)
);
CREATE INDEX mail_deliveries_pending ON mail_deliveries (next_attempt_at) WHERE state IN ('queued', 'deferred');

-- Down Migration
DROP TABLE mail_deliveries;
DROP TABLE mail_messages;
DROP TABLE mail_bindings;
