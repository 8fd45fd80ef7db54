import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { createClient } from './pool.ts';

const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));

/** Creates the database named in the URL when it does not exist (first start on a fresh server). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) return;
  const probe = createClient(databaseUrl);
  try {
    await probe.connect();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error; // 3D000: database does not exist
  } finally {
    await probe.end().catch(() => {});
  }
  url.pathname = '/postgres';
  const admin = createClient(url.toString());
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } catch (error) {
    // 42P04: another process starting at the same moment created it first.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await admin.end();
  }
}

/**
 * Migrations that shipped under another name, old → new. Two files once shared the number 0005;
 * the second and every one up to the gap at 0018 moved up by one, so their order is unchanged.
 * node-pg-migrate knows an applied migration by its recorded name only, so a database migrated
 * under the old names gets its records renamed before the runner compares them with the files:
 * without that, `checkOrder` refuses to start (and the renamed files would run again).
 */
export const renamedMigrations: ReadonlyArray<readonly [from: string, to: string]> = [
  ['0005_mail-outlook-accounts', '0006_mail-outlook-accounts'],
  ['0006_batch-intake-indexes', '0007_batch-intake-indexes'],
  ['0007_mail-raw-lz4', '0008_mail-raw-lz4'],
  ['0008_mail-smtputf8', '0009_mail-smtputf8'],
  ['0009_submissions-finished-index', '0010_submissions-finished-index'],
  ['0010_applications', '0011_applications'],
  ['0011_vault', '0012_vault'],
  ['0012_mailbox-progress', '0013_mailbox-progress'],
  ['0013_ats-credentials', '0014_ats-credentials'],
  ['0014_bookings', '0015_bookings'],
  ['0015_booking-checkouts', '0016_booking-checkouts'],
  ['0016_mailbox-watch-mode', '0017_mailbox-watch-mode'],
  ['0017_applications-ats-job', '0018_applications-ats-job'],
];

/**
 * Renames the records of `renamedMigrations` in one statement: idempotent, and atomic, so two
 * processes starting at once cannot leave half the records renamed. No old name is a new name,
 * so a record is never renamed twice. Nothing to do on a database no migration ran in.
 */
async function renameRecordedMigrations(client: pg.Client): Promise<void> {
  const table = await client.query<{ found: string | null }>(`SELECT to_regclass('schema_migrations')::text AS found`);
  if (!table.rows[0]?.found) return;
  await client.query(
    `UPDATE schema_migrations AS recorded SET name = renamed.to_name
       FROM unnest($1::text[], $2::text[]) AS renamed(from_name, to_name)
      WHERE recorded.name = renamed.from_name`,
    [renamedMigrations.map(([from]) => from), renamedMigrations.map(([, to]) => to)],
  );
}

/**
 * Applies pending migrations. Safe when several processes start at once: node-pg-migrate holds an
 * advisory lock, and with `wait` the others block until the first has finished, then find nothing to do.
 */
export async function migrateToLatest(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  // Our own client, so its 'error' event is handled (node-pg-migrate's own client has no listener).
  const client = createClient(databaseUrl);
  await client.connect();
  try {
    await renameRecordedMigrations(client);
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  const applied = await runner({
    dbClient: client,
    dir: migrationsDir,
    direction: 'up',
    migrationsTable: 'schema_migrations',
    advisoryLockMode: 'wait',
    checkOrder: true,
    log: () => {},
  }).finally(() => client.end().catch(() => {}));
  return applied.map((migration) => migration.name);
}
