import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, renamedMigrations } from './migrate.ts';

const serverUrl = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const migrationsDir = fileURLToPath(new URL('../migrations', import.meta.url));
const created: string[] = [];

/** The URL of a database of its own (created by `migrateToLatest` or the runner on first use). */
function databaseUrl(label: string): string {
  const name = `quarry_migrate_${label}_${randomBytes(4).toString('hex')}`;
  created.push(name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

const recordedNames = async (url: string) =>
  (await query<{ name: string }>(url, 'SELECT name FROM schema_migrations ORDER BY run_on, id')).map((row) => row.name);
const fileNames = async () =>
  (await readdir(migrationsDir))
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.replace(/\.sql$/, ''))
    .sort();

afterAll(async () => {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
});

describe('migration numbers', () => {
  it('gives every migration a number of its own', async () => {
    const numbers = (await fileNames()).map((name) => name.slice(0, 4));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('renames only to files that exist, from names no file has', async () => {
    const files = new Set(await fileNames());
    for (const [from, to] of renamedMigrations) {
      expect(files.has(to), to).toBe(true);
      expect(files.has(from), from).toBe(false);
    }
  });
});

describe('migrateToLatest', () => {
  it('applies every migration to a new database, recorded under the names the files have now', async () => {
    const url = databaseUrl('fresh');
    const applied = await migrateToLatest(url);
    expect(applied).toEqual(await fileNames());
    expect(await recordedNames(url)).toEqual(await fileNames());
  });

  it('starts on a database migrated under the old names without running any migration again', async () => {
    // The migrations as they shipped before the renumbering: the same SQL under the old names.
    const oldDir = await mkdtemp(join(tmpdir(), 'quarry-old-migrations-'));
    try {
      const oldNameOf = new Map(renamedMigrations.map(([from, to]) => [to, from]));
      for (const name of await fileNames())
        await copyFile(join(migrationsDir, `${name}.sql`), join(oldDir, `${oldNameOf.get(name) ?? name}.sql`));
      const url = databaseUrl('old_names');
      const client = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, '/postgres') });
      await client.connect();
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(new URL(url).pathname.slice(1))}`);
      await client.end();
      await runner({
        databaseUrl: url,
        dir: oldDir,
        direction: 'up',
        migrationsTable: 'schema_migrations',
        checkOrder: true,
        log: () => {},
      });
      const before = await recordedNames(url);
      expect(before).toContain('0005_mail-outlook-accounts');
      expect(before).toContain('0005_mail-counters');

      // Two processes of the new version start at once on it.
      const [first, second] = await Promise.all([migrateToLatest(url), migrateToLatest(url)]);
      expect(first).toEqual([]);
      expect(second).toEqual([]);
      expect(await recordedNames(url)).toEqual(await fileNames());
      // The rows of the migrations that ran once are still one each (nothing ran again).
      expect(await recordedNames(url)).toHaveLength(before.length);
      expect(await migrateToLatest(url)).toEqual([]);
    } finally {
      await rm(oldDir, { recursive: true, force: true });
    }
  });
});
