import { withTransaction, type Pool, type Queryable } from '@quarry/db';
import { sealedForOf } from './deployment-keyring.ts';
import type { Keyring } from './keyring.ts';
import { sealedColumns, type SealedColumn } from './sealed-columns.ts';

/** How many values of a column are sealed with each key; `legacy`: the layout of before the keyring (no key id). */
export type ColumnKeyCounts = { table: string; column: string; byKey: Record<string, number> };

/** What one re-sealing pass did to a column. */
export type ResealProgress = { table: string; column: string; resealed: number; unreadable: number };

const legacy = 'legacy';
const everyColumn: readonly SealedColumn[] = Object.values(sealedColumns);

// The key id of a stored value, in SQL: "QK1", a length byte, the id (see keyring.ts).
const keyIdSql = (column: string) =>
  `CASE WHEN substring(${column} from 1 for 3) = '\\x514b31'::bytea THEN encode(substring(${column} from 5 for get_byte(${column}, 3)), 'escape') ELSE '${legacy}' END`;

const headerOf = (keyId: string) =>
  Buffer.concat([Buffer.from('QK1', 'latin1'), Buffer.from([keyId.length]), Buffer.from(keyId, 'latin1')]);

/** Every sealed column's values counted by the key that sealed them (what `quarry keys status` shows). */
export async function countSealedByKey(db: Queryable, columns: readonly SealedColumn[] = everyColumn): Promise<ColumnKeyCounts[]> {
  const counts: ColumnKeyCounts[] = [];
  for (const column of columns) {
    const result = await db.query<{ key_id: string; values: string }>(
      `SELECT ${keyIdSql(column.column)} AS key_id, count(*) AS values FROM ${column.table} WHERE ${column.column} IS NOT NULL GROUP BY 1 ORDER BY 1`,
    );
    counts.push({
      table: column.table,
      column: column.column,
      byKey: Object.fromEntries(result.rows.map((row) => [row.key_id, Number(row.values)])),
    });
  }
  return counts;
}

/**
 * One pass over every sealed column: the values not sealed with the current key are opened and
 * sealed again with it, `batchSize` rows per transaction (fewer for columns of large values). The rows are locked `FOR UPDATE SKIP
 * LOCKED`: the service goes on while it runs, and a row a request or a job holds is left for the
 * next pass (`countSealedByKey` tells what is left). A value that does not open (altered, or
 * sealed with a key the ring no longer holds) is counted as unreadable and left as it is.
 */
export async function resealColumns(
  pool: Pool,
  keyring: Keyring,
  options: { batchSize?: number; columns?: readonly SealedColumn[]; onProgress?: (progress: ResealProgress) => void } = {},
): Promise<ResealProgress[]> {
  const batchSize = options.batchSize ?? 500;
  const current = headerOf(keyring.currentKeyId);
  const passes: ResealProgress[] = [];
  for (const column of options.columns ?? everyColumn) {
    const progress: ResealProgress = { table: column.table, column: column.column, resealed: 0, unreadable: 0 };
    const rowsPerBatch = Math.min(batchSize, column.maxBatch ?? batchSize);
    // Rows that did not open: skipped by the next batches of this pass.
    const unreadable: string[] = [];
    for (;;) {
      const selected = await withTransaction(pool, async (client) => {
        const rows = await client.query<{ id: string; row_key: string; sealed: Buffer }>(
          `SELECT ctid::text AS id, (${column.rowKey})::text AS row_key, ${column.column} AS sealed FROM ${column.table}
           WHERE ${column.column} IS NOT NULL AND substring(${column.column} from 1 for $1) <> $2 AND NOT (ctid = ANY($3::tid[]))
           LIMIT $4 FOR UPDATE SKIP LOCKED`,
          [current.length, current, unreadable, rowsPerBatch],
        );
        const ids: string[] = [];
        const values: Buffer[] = [];
        for (const row of rows.rows) {
          const sealedFor = sealedForOf(column, row.row_key);
          let plaintext: Buffer;
          try {
            plaintext = keyring.open(column.purpose, row.sealed, sealedFor);
          } catch {
            unreadable.push(row.id);
            progress.unreadable += 1;
            continue;
          }
          ids.push(row.id);
          values.push(keyring.seal(column.purpose, plaintext, sealedFor));
        }
        // ctid is stable while this transaction holds the row's lock; `ctid = ANY` is a TID scan.
        if (ids.length > 0) {
          await client.query(
            `UPDATE ${column.table} SET ${column.column} = ($2::bytea[])[array_position($1::tid[], ctid)] WHERE ctid = ANY($1::tid[])`,
            [ids, values],
          );
        }
        progress.resealed += ids.length;
        return rows.rows.length;
      });
      if (selected > 0) options.onProgress?.({ ...progress });
      if (selected < rowsPerBatch) break;
    }
    passes.push(progress);
  }
  return passes;
}
