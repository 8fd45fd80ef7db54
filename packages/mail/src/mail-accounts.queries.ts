import type { Queryable } from '@quarry/db';

/** Adds accounts to the pool; an address already in it is left as it is. Returns how many were new. */
export async function insertOutlookAccounts(db: Queryable, accounts: Array<{ email: string; sealedSecret: Buffer }>): Promise<number> {
  if (accounts.length === 0) return 0;
  const result = await db.query(
    `INSERT INTO mail_outlook_accounts (email, sealed_secret)
     SELECT * FROM unnest($1::text[], $2::bytea[]) ON CONFLICT (email) DO NOTHING`,
    [accounts.map((account) => account.email), accounts.map((account) => account.sealedSecret)],
  );
  return result.rowCount ?? 0;
}

export async function countFreeOutlookAccounts(db: Queryable): Promise<number> {
  const result = await db.query<{ count: string }>('SELECT count(*) FROM mail_outlook_accounts WHERE client_id IS NULL');
  return Number(result.rows[0]?.count ?? 0);
}

/**
 * Hands the oldest free account to a client, inside the caller's transaction. `SKIP LOCKED` lets
 * concurrent requests each take a different account instead of queueing on the same row, and the
 * row lock makes sure no account is ever handed out twice.
 */
export async function assignFreeOutlookAccount(
  db: Queryable,
  assignment: { clientId: string; alias: string; forwardsTo: string; keepSender: boolean },
): Promise<{ email: string; sealedSecret: Buffer } | null> {
  const result = await db.query<{ email: string; sealed_secret: Buffer }>(
    `UPDATE mail_outlook_accounts SET client_id = $1, alias = $2, forwards_to = $3, keep_sender = $4, assigned_at = now()
     WHERE email = (
       SELECT email FROM mail_outlook_accounts WHERE client_id IS NULL ORDER BY loaded_at, email LIMIT 1 FOR UPDATE SKIP LOCKED
     )
     RETURNING email, sealed_secret`,
    [assignment.clientId, assignment.alias, assignment.forwardsTo, assignment.keepSender],
  );
  const row = result.rows[0];
  return row ? { email: row.email, sealedSecret: row.sealed_secret } : null;
}
