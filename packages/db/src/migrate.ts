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
 * Applies pending migrations. Safe when several processes start at once: node-pg-migrate holds an
 * advisory lock, and with `wait` the others block until the first has finished, then find nothing to do.
 */
export async function migrateToLatest(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  // Our own client, so its 'error' event is handled (node-pg-migrate's own client has no listener).
  const client = createClient(databaseUrl);
  await client.connect();
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
