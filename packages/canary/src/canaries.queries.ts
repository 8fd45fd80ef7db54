import type { Queryable } from '@quarry/db';

export type CanaryRow = {
  canaryId: string;
  clientId: string;
  holdMs: number;
  state: 'queued' | 'processing' | 'completed';
  runs: number;
  createdAt: Date;
  completedAt: Date | null;
  completedBy: string | null;
};

type DbCanaryRow = {
  canary_id: string;
  client_id: string;
  hold_ms: number;
  state: CanaryRow['state'];
  runs: number;
  created_at: Date;
  completed_at: Date | null;
  completed_by: string | null;
};

const columns = 'canary_id, client_id, hold_ms, state, runs, created_at, completed_at, completed_by';

function toCanaryRow(row: DbCanaryRow): CanaryRow {
  return {
    canaryId: row.canary_id,
    clientId: row.client_id,
    holdMs: row.hold_ms,
    state: row.state,
    runs: row.runs,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    completedBy: row.completed_by,
  };
}

export async function insertCanary(db: Queryable, canary: { canaryId: string; clientId: string; holdMs: number }): Promise<CanaryRow> {
  const result = await db.query<DbCanaryRow>(
    `INSERT INTO canaries (canary_id, client_id, hold_ms, state) VALUES ($1, $2, $3, 'queued') RETURNING ${columns}`,
    [canary.canaryId, canary.clientId, canary.holdMs],
  );
  return toCanaryRow(result.rows[0] as DbCanaryRow);
}

/** Tenant-scoped read: another client's canary is indistinguishable from a missing one. */
export async function findCanary(db: Queryable, clientId: string, canaryId: string): Promise<CanaryRow | null> {
  const result = await db.query<DbCanaryRow>(`SELECT ${columns} FROM canaries WHERE client_id = $1 AND canary_id = $2`, [
    clientId,
    canaryId,
  ]);
  return result.rows[0] ? toCanaryRow(result.rows[0]) : null;
}

/** Marks a (re)started run; returns null when the canary is gone or already completed. */
export async function startCanaryRun(db: Queryable, canaryId: string): Promise<CanaryRow | null> {
  const result = await db.query<DbCanaryRow>(
    `UPDATE canaries SET state = 'processing', runs = runs + 1
     WHERE canary_id = $1 AND state <> 'completed' RETURNING ${columns}`,
    [canaryId],
  );
  return result.rows[0] ? toCanaryRow(result.rows[0]) : null;
}

export async function completeCanary(db: Queryable, canaryId: string, completedBy: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE canaries SET state = 'completed', completed_at = now(), completed_by = $2
     WHERE canary_id = $1 AND state <> 'completed'`,
    [canaryId, completedBy],
  );
  return result.rowCount === 1;
}
