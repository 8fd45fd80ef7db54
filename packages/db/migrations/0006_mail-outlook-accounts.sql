-- Up Migration

-- The operator's pool of mailbox accounts for POST /email/retrieve-outlook-account. Password and
-- cookies are sealed together (AES-256-GCM under QUARRY_SECRET_KEY); an account is handed out
-- once, to one client, with the alias whose mail is forwarded.
CREATE TABLE mail_outlook_accounts (
  email text PRIMARY KEY,
  sealed_secret bytea NOT NULL,
  loaded_at timestamptz NOT NULL DEFAULT now(),
  client_id text REFERENCES clients (client_id),
  alias text UNIQUE,
  forwards_to text,
  keep_sender boolean,
  assigned_at timestamptz,
  CHECK ((client_id IS NULL) = (assigned_at IS NULL))
);
CREATE INDEX mail_outlook_accounts_free ON mail_outlook_accounts (loaded_at) WHERE client_id IS NULL;

-- Down Migration
DROP TABLE mail_outlook_accounts;
