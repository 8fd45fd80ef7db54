import type { Queryable } from '@quarry/db';

export type ClientRow = {
  clientId: string;
  name: string;
  scopes: string[];
  jwtSecretCiphertext: Buffer;
  createdAt: Date;
  revokedAt: Date | null;
};

type DbClientRow = {
  client_id: string;
  name: string;
  scopes: string[];
  jwt_secret_ciphertext: Buffer;
  created_at: Date;
  revoked_at: Date | null;
};

const columns = 'client_id, name, scopes, jwt_secret_ciphertext, created_at, revoked_at';

function toClientRow(row: DbClientRow): ClientRow {
  return {
    clientId: row.client_id,
    name: row.name,
    scopes: row.scopes,
    jwtSecretCiphertext: row.jwt_secret_ciphertext,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertClient(
  db: Queryable,
  client: { clientId: string; name: string; scopes: string[]; secretHash: Buffer; jwtSecretCiphertext: Buffer },
): Promise<ClientRow> {
  const result = await db.query<DbClientRow>(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${columns}`,
    [client.clientId, client.name, client.scopes, client.secretHash, client.jwtSecretCiphertext],
  );
  return toClientRow(result.rows[0] as DbClientRow);
}

/** Only active clients: a revoked client's credentials stop working everywhere. */
export async function findActiveClientBySecretHash(db: Queryable, secretHash: Buffer): Promise<ClientRow | null> {
  const result = await db.query<DbClientRow>({
    name: 'find-active-client-by-secret-hash',
    text: `SELECT ${columns} FROM clients WHERE secret_hash = $1 AND revoked_at IS NULL`,
    values: [secretHash],
  });
  return result.rows[0] ? toClientRow(result.rows[0]) : null;
}

export async function findActiveClientById(db: Queryable, clientId: string): Promise<ClientRow | null> {
  const result = await db.query<DbClientRow>({
    name: 'find-active-client-by-id',
    text: `SELECT ${columns} FROM clients WHERE client_id = $1 AND revoked_at IS NULL`,
    values: [clientId],
  });
  return result.rows[0] ? toClientRow(result.rows[0]) : null;
}

export async function listClients(db: Queryable): Promise<ClientRow[]> {
  const result = await db.query<DbClientRow>(`SELECT ${columns} FROM clients ORDER BY created_at, client_id`);
  return result.rows.map(toClientRow);
}

/** Returns false when no active client has that id. */
export async function revokeClient(db: Queryable, clientId: string): Promise<boolean> {
  const result = await db.query('UPDATE clients SET revoked_at = now() WHERE client_id = $1 AND revoked_at IS NULL', [clientId]);
  return result.rowCount === 1;
}

/** The origins that may frame an active client's 3-D Secure pages; null when no active client has the id. */
export async function findFrameOriginsRow(db: Queryable, clientId: string): Promise<string[] | null> {
  const result = await db.query<{ frame_origins: string[] }>({
    name: 'find-client-frame-origins',
    text: 'SELECT frame_origins FROM clients WHERE client_id = $1 AND revoked_at IS NULL',
    values: [clientId],
  });
  return result.rows[0]?.frame_origins ?? null;
}

export async function updateFrameOriginsRow(db: Queryable, clientId: string, origins: string[]): Promise<string[] | null> {
  const result = await db.query<{ frame_origins: string[] }>(
    'UPDATE clients SET frame_origins = $2 WHERE client_id = $1 AND revoked_at IS NULL RETURNING frame_origins',
    [clientId, origins],
  );
  return result.rows[0]?.frame_origins ?? null;
}
