-- Up Migration

-- How the mail process follows the account's INBOX since its last login: 'idle' (the server
-- offers IMAP IDLE and reports new mail at once) or 'poll' (read again every MAILBOX_POLL_MS).
ALTER TABLE mail_outlook_accounts
  ADD COLUMN watch_mode text CHECK (watch_mode IN ('idle', 'poll'));

-- Keys of what each account took are kept for MAILBOX_SEEN_RETENTION_DAYS; housekeeping deletes
-- older ones by this index.
CREATE INDEX mail_mailbox_seen_seen_at ON mail_mailbox_seen (seen_at);

-- Down Migration
DROP INDEX mail_mailbox_seen_seen_at;
ALTER TABLE mail_outlook_accounts DROP COLUMN watch_mode;
