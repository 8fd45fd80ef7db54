import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runMailHousekeeping } from './housekeeping.ts';

// The keys of what each pool account took (mail_mailbox_seen) are kept for the retention only: the
// mail housekeeping forgets older ones, whatever the account, and keeps the rest.

const dayMs = 86_400_000;
let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('mailbox_seen');
  pool = createPool(database.url, 2);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

it('forgets the keys taken longer ago than the retention, in batches, and keeps the newer ones', async () => {
  for (const email of ['a@pool.test', 'b@pool.test']) {
    await pool.query("INSERT INTO mail_outlook_accounts (email, sealed_secret) VALUES ($1, '\\x00')", [email]);
  }
  // 12,000 old keys (more than one batch) across both accounts, and 3 recent ones.
  await pool.query(
    `INSERT INTO mail_mailbox_seen (email, message_key, seen_at)
     SELECT CASE WHEN n % 2 = 0 THEN 'a@pool.test' ELSE 'b@pool.test' END, 'mid:<old-' || n || '@x.test>', now() - interval '40 days' - n * interval '1 second'
     FROM generate_series(1, 12000) AS n`,
  );
  await pool.query(
    `INSERT INTO mail_mailbox_seen (email, message_key, seen_at) VALUES
       ('a@pool.test', 'mid:<recent-1@x.test>', now() - interval '29 days'),
       ('a@pool.test', 'mid:<recent-2@x.test>', now()),
       ('b@pool.test', 'mid:<recent-3@x.test>', now() - interval '1 hour')`,
  );

  const result = await runMailHousekeeping({ db: pool, enqueue: async () => {} }, { seenRetentionMs: 30 * dayMs });

  expect(result.forgotten).toBe(12_000);
  const left = await pool.query<{ message_key: string }>('SELECT message_key FROM mail_mailbox_seen ORDER BY message_key');
  expect(left.rows.map((row) => row.message_key)).toEqual(['mid:<recent-1@x.test>', 'mid:<recent-2@x.test>', 'mid:<recent-3@x.test>']);
  // Without a retention (no mailbox watching configured) nothing is forgotten.
  expect((await runMailHousekeeping({ db: pool, enqueue: async () => {} })).forgotten).toBe(0);
});
