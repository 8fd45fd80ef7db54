import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthenticator, createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createLogger } from '@quarry/observability';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../middleware/error-handler.middleware.ts';
import { miningActivityRoutes } from './mining-activity.routes.ts';

const secretKey = Buffer.alloc(32, 5);
let database: TestDatabase;
let db: Pool;
let server: Server;
let base: string;
let admin: { secret: string };
let tenant: { secret: string };

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;
type Activity = { minutes: Array<{ minute: string; processed: number; succeeded: number; failed: number; successRate: number | null }> };

/** Inserts job posts that finished one second into the minute starting at `minute`. */
async function finished(minute: number, state: 'completed' | 'failed' | 'processing', count: number): Promise<void> {
  await db.query(
    `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, state, finished_at)
     SELECT 'cl_test', 'jp-' || gen_random_uuid(), 'https://jobs.example/1', 'Acme', 'Engineer', 'us', $1,
            CASE WHEN $1 = 'processing' THEN NULL ELSE to_timestamp($2::bigint / 1000.0) + interval '1 second' END
       FROM generate_series(1, $3::int)`,
    [state, minute, count],
  );
}

/**
 * What each returned minute must hold, looked up by its label: the clock may pass into the next
 * minute between the inserts and the request, which shifts the window but never a row's minute.
 */
function expectMinutes(minutes: Activity['minutes'], expected: Map<number, { succeeded: number; failed: number }>): void {
  for (const entry of minutes) {
    const { succeeded = 0, failed = 0 } = expected.get(Date.parse(entry.minute)) ?? {};
    const processed = succeeded + failed;
    expect(entry, entry.minute).toEqual({
      minute: entry.minute,
      processed,
      succeeded,
      failed,
      successRate: processed === 0 ? null : succeeded / processed,
    });
  }
}

let currentMinute: number;
const minutesAgo = (count: number) => currentMinute - count * 60_000;

beforeAll(async () => {
  database = await createTestDatabase('mining_activity');
  db = createPool(database.url, 2);
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  tenant = await createClient({ db, secretKey }, { name: 'tenant', scopes: ['recruitment'] });
  const app = express();
  app.use(miningActivityRoutes({ authenticator: createAuthenticator({ db, secretKey, cacheMs: 0 }), db }));
  app.use(errorHandler(createLogger({ level: 'silent' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = await db.query<{ minute: Date }>("SELECT date_trunc('minute', now()) AS minute");
  currentMinute = now.rows[0]!.minute.getTime();
  await finished(minutesAgo(0), 'completed', 3);
  await finished(minutesAgo(0), 'failed', 1);
  await finished(minutesAgo(5), 'failed', 2);
  await finished(minutesAgo(59), 'completed', 4);
  await finished(minutesAgo(60), 'completed', 7); // an hour ago: outside the window
  await finished(minutesAgo(0), 'processing', 5); // not finished: never counted
});

const inserted = () =>
  new Map([
    [minutesAgo(0), { succeeded: 3, failed: 1 }],
    [minutesAgo(5), { succeeded: 0, failed: 2 }],
    [minutesAgo(59), { succeeded: 4, failed: 0 }],
    [minutesAgo(60), { succeeded: 7, failed: 0 }],
  ]);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await db.end();
  await database.drop();
});

describe('GET /v1/admin/mining-activity', () => {
  it('counts the job posts finished in each of the last 60 minutes, with their success rate', async () => {
    const response = await fetch(`${base}/v1/admin/mining-activity`, { headers: { authorization: basic(admin.secret) } });
    expect(response.status).toBe(200);
    const { minutes } = (await response.json()) as Activity;
    expect(minutes).toHaveLength(60);
    // Consecutive whole minutes, oldest first, ending with the current one.
    for (let index = 1; index < minutes.length; index += 1) {
      expect(Date.parse(minutes[index]!.minute) - Date.parse(minutes[index - 1]!.minute)).toBe(60_000);
    }
    expect(Date.parse(minutes.at(-1)!.minute)).toBeGreaterThanOrEqual(currentMinute);
    expectMinutes(minutes, inserted());
    expect(minutes.at(-1)!.processed + minutes.at(-2)!.processed).toBe(4);
  });

  it('takes a shorter window, rejects a bad one by name, and is for operators only', async () => {
    const short = (await (
      await fetch(`${base}/v1/admin/mining-activity?minutes=6`, { headers: { authorization: basic(admin.secret) } })
    ).json()) as Activity;
    expect(short.minutes).toHaveLength(6);
    expectMinutes(short.minutes, inserted());
    const bad = await fetch(`${base}/v1/admin/mining-activity?minutes=0`, { headers: { authorization: basic(admin.secret) } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('minutes');
    expect((await fetch(`${base}/v1/admin/mining-activity`, { headers: { authorization: basic(tenant.secret) } })).status).toBe(403);
  });
});
