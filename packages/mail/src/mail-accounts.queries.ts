import type { Queryable } from '@quarry/db';

export type ImapServer = { host: string; port: number; secure: boolean; user: string | null };

export type NewPoolAccount = {
  email: string;
  sealedSecret: Buffer;
  imap: ImapServer;
  sealedAccessToken: Buffer | null;
  accessTokenExpiresAt: Date | null;
};

/**
 * Adds accounts to the pool; an address already in it is left as it is, unless it is broken: loading
 * it again (a new password, a new token) gives it a fresh start. Returns how many were new or renewed.
 */
export async function insertOutlookAccounts(db: Queryable, accounts: NewPoolAccount[]): Promise<number> {
  if (accounts.length === 0) return 0;
  const result = await db.query(
    `INSERT INTO mail_outlook_accounts (email, sealed_secret, imap_host, imap_port, imap_secure, imap_user, sealed_access_token, access_token_expires_at)
     SELECT * FROM unnest($1::text[], $2::bytea[], $3::text[], $4::integer[], $5::boolean[], $6::text[], $7::bytea[], $8::timestamptz[])
     ON CONFLICT (email) DO UPDATE SET sealed_secret = EXCLUDED.sealed_secret, imap_host = EXCLUDED.imap_host, imap_port = EXCLUDED.imap_port,
       imap_secure = EXCLUDED.imap_secure, imap_user = EXCLUDED.imap_user, sealed_access_token = EXCLUDED.sealed_access_token,
       access_token_expires_at = EXCLUDED.access_token_expires_at, state = 'ok', login_failures = 0, next_attempt_at = NULL
     WHERE mail_outlook_accounts.state = 'broken'`,
    [
      accounts.map((account) => account.email),
      accounts.map((account) => account.sealedSecret),
      accounts.map((account) => account.imap.host),
      accounts.map((account) => account.imap.port),
      accounts.map((account) => account.imap.secure),
      accounts.map((account) => account.imap.user),
      accounts.map((account) => account.sealedAccessToken),
      accounts.map((account) => account.accessTokenExpiresAt),
    ],
  );
  return result.rowCount ?? 0;
}

export async function countFreeOutlookAccounts(db: Queryable): Promise<number> {
  const result = await db.query<{ count: string }>(
    "SELECT count(*) FROM mail_outlook_accounts WHERE client_id IS NULL AND state <> 'broken'",
  );
  return Number(result.rows[0]?.count ?? 0);
}

/**
 * Hands the oldest free account to a client, inside the caller's transaction. `SKIP LOCKED` lets
 * concurrent requests each take a different account instead of queueing on the same row, and the
 * row lock makes sure no account is ever handed out twice. A broken account (its mailbox cannot be
 * read) is never handed out.
 */
export async function assignFreeOutlookAccount(
  db: Queryable,
  assignment: { clientId: string; alias: string; forwardsTo: string; keepSender: boolean },
): Promise<{ email: string; sealedSecret: Buffer } | null> {
  const result = await db.query<{ email: string; sealed_secret: Buffer }>(
    `UPDATE mail_outlook_accounts SET client_id = $1, alias = $2, forwards_to = $3, keep_sender = $4, assigned_at = now()
     WHERE email = (
       SELECT email FROM mail_outlook_accounts WHERE client_id IS NULL AND state <> 'broken' ORDER BY loaded_at, email LIMIT 1 FOR UPDATE SKIP LOCKED
     )
     RETURNING email, sealed_secret`,
    [assignment.clientId, assignment.alias, assignment.forwardsTo, assignment.keepSender],
  );
  const row = result.rows[0];
  return row ? { email: row.email, sealedSecret: row.sealed_secret } : null;
}
