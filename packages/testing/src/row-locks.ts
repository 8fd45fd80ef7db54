import type { Pool } from 'pg';

/**
 * Takes row locks in an open transaction and keeps them until `release`: a statement that writes
 * those rows waits in Postgres meanwhile, so a test can stop a process between two of its steps
 * without any hook in its code.
 */
export async function holdRowLocks(pool: Pool, text: string, values: unknown[] = []): Promise<{ rows: number; release(): Promise<void> }> {
  const client = await pool.connect();
  let released = false;
  try {
    await client.query('BEGIN');
    const result = await client.query(`${text} FOR UPDATE`, values);
    return {
      rows: result.rowCount ?? 0,
      async release() {
        if (released) return;
        released = true;
        try {
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
      },
    };
  } catch (error) {
    client.release(true);
    throw error;
  }
}

/** Backends of this database waiting for a lock while running a statement whose text contains `fragment`. */
export async function lockWaiters(pool: Pool, fragment: string): Promise<number[]> {
  const result = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0 AND pid <> pg_backend_pid()`,
    [fragment],
  );
  return result.rows.map((row) => row.pid);
}
