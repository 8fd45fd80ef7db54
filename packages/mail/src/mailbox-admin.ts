import type { MailboxAccountsView } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';

type DbAccount = {
  email: string;
  state: 'ok' | 'failing' | 'broken';
  assigned: boolean;
  alias: string | null;
  forwards_to: string | null;
  imap_host: string;
  imap_port: number;
  imap_secure: boolean;
  oauth2: boolean;
  forwarded: number;
  last_message_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  login_failures: number;
  next_attempt_at: Date | null;
  watcher: string | null;
  watch_mode: 'idle' | 'poll' | null;
};

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Operators' view of the pool: counts, and the accounts that need a look first (broken, failing,
 * then the most recently active), at most `limit`. Whether an account uses OAuth2 is known from
 * its access token column, so no secret is opened for this view.
 */
export async function listMailboxAccounts(ports: { db: Queryable }, limit = 500): Promise<MailboxAccountsView> {
  const counts = await ports.db.query<{ available: string; watched: string; failing: string; broken: string }>(
    `SELECT count(*) FILTER (WHERE client_id IS NULL AND state <> 'broken') AS available,
            count(*) FILTER (WHERE lease_expires_at > now()) AS watched,
            count(*) FILTER (WHERE state = 'failing') AS failing,
            count(*) FILTER (WHERE state = 'broken') AS broken
     FROM mail_outlook_accounts`,
  );
  const rows = await ports.db.query<DbAccount>(
    `SELECT email, state, client_id IS NOT NULL AS assigned, alias, forwards_to, imap_host, imap_port, imap_secure,
            sealed_access_token IS NOT NULL AS oauth2, forwarded, last_message_at, last_error, last_error_at, login_failures, next_attempt_at,
            CASE WHEN lease_expires_at > now() THEN lease_owner END AS watcher, watch_mode
     FROM mail_outlook_accounts
     ORDER BY CASE state WHEN 'broken' THEN 0 WHEN 'failing' THEN 1 ELSE 2 END, last_message_at DESC NULLS LAST, email
     LIMIT $1`,
    [limit],
  );
  const count = counts.rows[0];
  return {
    counts: {
      available: Number(count?.available ?? 0),
      watched: Number(count?.watched ?? 0),
      failing: Number(count?.failing ?? 0),
      broken: Number(count?.broken ?? 0),
    },
    accounts: rows.rows.map((row) => ({
      email: row.email,
      state: row.state,
      assigned: row.assigned,
      alias: row.alias,
      forwardsTo: row.forwards_to,
      imap: { host: row.imap_host, port: row.imap_port, secure: row.imap_secure },
      auth: row.oauth2 ? 'oauth2' : 'password',
      forwarded: row.forwarded,
      lastMessageAt: iso(row.last_message_at),
      lastError: row.last_error,
      lastErrorAt: iso(row.last_error_at),
      loginFailures: row.login_failures,
      nextAttemptAt: iso(row.next_attempt_at),
      watcher: row.watcher,
      mode: row.watch_mode,
    })),
  };
}
