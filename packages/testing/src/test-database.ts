import { randomBytes } from 'node:crypto';
import { migrateToLatest } from '@quarry/db';
import pg from 'pg';

const sharedServerUrl = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type TestDatabase = { url: string; name: string; drop: () => Promise<void> };

/**
 * A fresh, migrated database of its own for one test file; `drop` removes it. On the machine's
 * shared server unless `serverUrl` names another (a test's private server).
 */
export async function createTestDatabase(label = 'test', serverUrl = sharedServerUrl): Promise<TestDatabase> {
  const name = `quarry_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await migrateToLatest(url.toString());
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
