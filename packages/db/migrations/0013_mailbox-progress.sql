-- Up Migration

-- How each pooled account is read over IMAP, and its health as operators see it. `state`:
-- 'ok'; 'failing' (a login failed, retried after next_attempt_at); 'broken' (too many failed
-- logins in a row: never watched nor handed out again until the operator loads it anew).
ALTER TABLE mail_outlook_accounts
  ADD COLUMN imap_host text NOT NULL DEFAULT 'outlook.office365.com',
  ADD COLUMN imap_port integer NOT NULL DEFAULT 993,
  ADD COLUMN imap_secure boolean NOT NULL DEFAULT true,
  ADD COLUMN imap_user text,
  ADD COLUMN state text NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'failing', 'broken')),
  ADD COLUMN login_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN last_error text,
  ADD COLUMN last_error_at timestamptz,
  ADD COLUMN last_message_at timestamptz,
  ADD COLUMN forwarded integer NOT NULL DEFAULT 0,
  -- OAuth2: the current access token, sealed, and when it stops being good.
  ADD COLUMN sealed_access_token bytea,
  ADD COLUMN access_token_expires_at timestamptz,
  -- The mail process watching the account, until lease_expires_at (renewed while it lives).
  ADD COLUMN lease_owner text,
  ADD COLUMN lease_expires_at timestamptz;
CREATE INDEX mail_outlook_accounts_watchable ON mail_outlook_accounts (lease_expires_at) WHERE client_id IS NOT NULL AND state <> 'broken';

-- The checkpoint of each watched folder: messages up to last_uid under uidvalidity are stored.
-- It moves only in the transaction that stores the message (ADR: mailbox watching).
CREATE TABLE mail_mailbox_progress (
  email text NOT NULL REFERENCES mail_outlook_accounts (email) ON DELETE CASCADE,
  folder text NOT NULL,
  uidvalidity bigint NOT NULL,
  last_uid bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (email, folder)
);

-- What was taken from each account, by Message-ID (or a digest of the bytes when it has none): a
-- folder whose UIDVALIDITY changed is read again from its start, and these keys keep it from
-- forwarding anything twice.
CREATE TABLE mail_mailbox_seen (
  email text NOT NULL REFERENCES mail_outlook_accounts (email) ON DELETE CASCADE,
  message_key text NOT NULL,
  seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (email, message_key)
);

-- Mail processes that watch mailboxes, so each can take its fair share of the accounts.
CREATE TABLE mail_mailbox_watchers (
  watcher_id text PRIMARY KEY,
  alive_until timestamptz NOT NULL
);

-- Down Migration
DROP TABLE mail_mailbox_watchers;
DROP TABLE mail_mailbox_seen;
DROP TABLE mail_mailbox_progress;
DROP INDEX mail_outlook_accounts_watchable;
ALTER TABLE mail_outlook_accounts
  DROP COLUMN imap_host, DROP COLUMN imap_port, DROP COLUMN imap_secure, DROP COLUMN imap_user, DROP COLUMN state,
  DROP COLUMN login_failures, DROP COLUMN next_attempt_at, DROP COLUMN last_error, DROP COLUMN last_error_at,
  DROP COLUMN last_message_at, DROP COLUMN forwarded, DROP COLUMN sealed_access_token, DROP COLUMN access_token_expires_at,
  DROP COLUMN lease_owner, DROP COLUMN lease_expires_at;
