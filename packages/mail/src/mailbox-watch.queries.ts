import type { Queryable } from '@quarry/db';
import type { ImapServer } from './mail-accounts.queries.ts';

/** A handed-out account as the watcher needs it. */
export type WatchedAccount = {
  email: string;
  alias: string;
  assignedAt: Date;
  imap: ImapServer;
  sealedSecret: Buffer;
  sealedAccessToken: Buffer | null;
  accessTokenExpiresAt: Date | null;
  loginFailures: number;
};

type DbWatchedAccount = {
  email: string;
  alias: string;
  assigned_at: Date;
  imap_host: string;
  imap_port: number;
  imap_secure: boolean;
  imap_user: string | null;
  sealed_secret: Buffer;
  sealed_access_token: Buffer | null;
  access_token_expires_at: Date | null;
  login_failures: number;
};

const toWatchedAccount = (row: DbWatchedAccount): WatchedAccount => ({
  email: row.email,
  alias: row.alias,
  assignedAt: row.assigned_at,
  imap: { host: row.imap_host, port: row.imap_port, secure: row.imap_secure, user: row.imap_user },
  sealedSecret: row.sealed_secret,
  sealedAccessToken: row.sealed_access_token,
  accessTokenExpiresAt: row.access_token_expires_at,
  loginFailures: row.login_failures,
});

/** Says this watcher is alive for `ms` more, forgets watchers long gone, and returns how many are alive. */
export async function heartbeatWatcher(db: Queryable, watcherId: string, ms: number): Promise<number> {
  const result = await db.query<{ alive: string }>(
    `WITH beat AS (
       INSERT INTO mail_mailbox_watchers (watcher_id, alive_until) VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (watcher_id) DO UPDATE SET alive_until = EXCLUDED.alive_until
     ), gone AS (
       DELETE FROM mail_mailbox_watchers WHERE alive_until < now() - interval '1 hour'
     )
     SELECT count(*) + 1 AS alive FROM mail_mailbox_watchers WHERE alive_until > now() AND watcher_id <> $1`,
    [watcherId, ms],
  );
  return Number(result.rows[0]?.alive ?? 1);
}

export async function forgetWatcher(db: Queryable, watcherId: string): Promise<void> {
  await db.query('DELETE FROM mail_mailbox_watchers WHERE watcher_id = $1', [watcherId]);
}

/** Accounts that should be watched by someone: handed out and not broken. */
export async function countWatchableAccounts(db: Queryable): Promise<number> {
  const result = await db.query<{ count: string }>(
    "SELECT count(*) FROM mail_outlook_accounts WHERE client_id IS NOT NULL AND state <> 'broken'",
  );
  return Number(result.rows[0]?.count ?? 0);
}

/** Extends this watcher's leases; returns the accounts it still holds (a broken or taken one is not among them). */
export async function renewLeases(db: Queryable, watcherId: string, ms: number): Promise<Set<string>> {
  const result = await db.query<{ email: string }>(
    `UPDATE mail_outlook_accounts SET lease_expires_at = now() + make_interval(secs => $2::double precision / 1000)
     WHERE lease_owner = $1 AND client_id IS NOT NULL AND state <> 'broken' RETURNING email`,
    [watcherId, ms],
  );
  return new Set(result.rows.map((row) => row.email));
}

/**
 * Takes up to `limit` accounts nobody holds (never leased, released, or whose watcher stopped
 * renewing), except those waiting out a login backoff. `SKIP LOCKED`: two watchers claiming at once
 * each get different accounts.
 */
export async function claimAccounts(db: Queryable, watcherId: string, ms: number, limit: number): Promise<WatchedAccount[]> {
  if (limit <= 0) return [];
  const result = await db.query<DbWatchedAccount>(
    `UPDATE mail_outlook_accounts SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2::double precision / 1000)
     WHERE email IN (
       SELECT email FROM mail_outlook_accounts
       WHERE client_id IS NOT NULL AND state <> 'broken' AND (lease_expires_at IS NULL OR lease_expires_at < now())
         AND (next_attempt_at IS NULL OR next_attempt_at <= now())
       ORDER BY assigned_at, email LIMIT $3 FOR UPDATE SKIP LOCKED
     )
     RETURNING email, alias, assigned_at, imap_host, imap_port, imap_secure, imap_user, sealed_secret, sealed_access_token, access_token_expires_at, login_failures`,
    [watcherId, ms, limit],
  );
  return result.rows.map(toWatchedAccount);
}

/** Gives accounts back (shutdown, or more than this watcher's share) so another watcher takes them at once. */
export async function releaseLeases(db: Queryable, watcherId: string, emails: string[]): Promise<void> {
  if (emails.length === 0) return;
  await db.query(
    'UPDATE mail_outlook_accounts SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND email = ANY($2::text[])',
    [watcherId, emails],
  );
}

/** The login worked: a failing account is well again, and its INBOX is followed in `mode` (IDLE when the server offers it). */
export async function recordLoginSucceeded(db: Queryable, email: string, mode: 'idle' | 'poll'): Promise<void> {
  await db.query(
    `UPDATE mail_outlook_accounts SET state = 'ok', login_failures = 0, next_attempt_at = NULL, watch_mode = $2
     WHERE email = $1 AND (state <> 'ok' OR login_failures > 0 OR watch_mode IS DISTINCT FROM $2)`,
    [email, mode],
  );
}

/**
 * A refused login: counted, the lease given up until `retryAt`, and after `maxFailures` in a row the
 * account is broken (never watched nor handed out again until the operator loads it anew).
 */
export async function recordLoginFailed(
  db: Queryable,
  failure: { email: string; watcherId: string; error: string; retryAt: Date; maxFailures: number },
): Promise<'failing' | 'broken'> {
  const result = await db.query<{ state: 'failing' | 'broken' }>(
    `UPDATE mail_outlook_accounts SET login_failures = login_failures + 1, last_error = $2, last_error_at = now(),
       state = CASE WHEN login_failures + 1 >= $4 THEN 'broken' ELSE 'failing' END,
       next_attempt_at = $3, lease_owner = NULL, lease_expires_at = NULL
     WHERE email = $1 RETURNING state`,
    [failure.email, failure.error, failure.retryAt, failure.maxFailures],
  );
  return result.rows[0]?.state ?? 'failing';
}

/** Anything else that went wrong with the mailbox (network, server), for operators to see. */
export async function recordMailboxError(db: Queryable, email: string, error: string): Promise<void> {
  await db.query('UPDATE mail_outlook_accounts SET last_error = $2, last_error_at = now() WHERE email = $1', [email, error]);
}

/** A refreshed OAuth2 grant: the access token (and a rotated refresh token inside the sealed secret). */
export async function storeAccessToken(
  db: Queryable,
  email: string,
  token: { sealedSecret: Buffer; sealedAccessToken: Buffer; expiresAt: Date },
): Promise<void> {
  await db.query(
    'UPDATE mail_outlook_accounts SET sealed_secret = $2, sealed_access_token = $3, access_token_expires_at = $4 WHERE email = $1',
    [email, token.sealedSecret, token.sealedAccessToken, token.expiresAt],
  );
}

export type FolderProgress = { uidValidity: bigint; lastUid: number };

export async function readProgress(db: Queryable, email: string, folder: string): Promise<FolderProgress | null> {
  const result = await db.query<{ uidvalidity: string; last_uid: string }>(
    'SELECT uidvalidity, last_uid FROM mail_mailbox_progress WHERE email = $1 AND folder = $2',
    [email, folder],
  );
  const row = result.rows[0];
  return row ? { uidValidity: BigInt(row.uidvalidity), lastUid: Number(row.last_uid) } : null;
}

/** Rows deleted by one statement of pruneSeenMessages, so none holds its locks long. */
const pruneBatch = 5_000;

/** Forgets the keys of messages taken more than `retentionMs` ago, a batch at a time; returns how many. */
export async function pruneSeenMessages(db: Queryable, retentionMs: number): Promise<number> {
  let forgotten = 0;
  for (;;) {
    const result = await db.query(
      `DELETE FROM mail_mailbox_seen WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM mail_mailbox_seen WHERE seen_at < now() - make_interval(secs => $1::double precision / 1000) LIMIT $2))`,
      [retentionMs, pruneBatch],
    );
    forgotten += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < pruneBatch) return forgotten;
  }
}
