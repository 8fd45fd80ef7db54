import type { Queryable } from '@quarry/db';

export type StoredAtsCredential = { ats: string; board: string; createdAt: Date };

/** Registers a client's key for a board; a repeat replaces the key (a rotated key). */
export async function upsertAtsCredential(
  db: Queryable,
  row: { clientId: string; ats: string; board: string; keySealed: Buffer },
): Promise<StoredAtsCredential> {
  const result = await db.query<{ created_at: Date }>(
    `INSERT INTO ats_credentials (client_id, ats, board, key_sealed) VALUES ($1, $2, $3, $4)
     ON CONFLICT (client_id, ats, board) DO UPDATE SET key_sealed = EXCLUDED.key_sealed, created_at = now()
     RETURNING created_at`,
    [row.clientId, row.ats, row.board, row.keySealed],
  );
  const stored = result.rows[0];
  if (!stored) throw new Error('the credential upsert returned no row');
  return { ats: row.ats, board: row.board, createdAt: stored.created_at };
}

export async function listAtsCredentials(db: Queryable, clientId: string): Promise<StoredAtsCredential[]> {
  const result = await db.query<{ ats: string; board: string; created_at: Date }>(
    'SELECT ats, board, created_at FROM ats_credentials WHERE client_id = $1 ORDER BY ats, board',
    [clientId],
  );
  return result.rows.map((row) => ({ ats: row.ats, board: row.board, createdAt: row.created_at }));
}

export async function deleteAtsCredential(db: Queryable, clientId: string, ats: string, board: string): Promise<boolean> {
  const result = await db.query('DELETE FROM ats_credentials WHERE client_id = $1 AND ats = $2 AND board = $3', [clientId, ats, board]);
  return (result.rowCount ?? 0) > 0;
}

export async function findSealedAtsKey(db: Queryable, clientId: string, ats: string, board: string): Promise<Buffer | null> {
  const result = await db.query<{ key_sealed: Buffer }>(
    'SELECT key_sealed FROM ats_credentials WHERE client_id = $1 AND ats = $2 AND board = $3',
    [clientId, ats, board],
  );
  return result.rows[0]?.key_sealed ?? null;
}
