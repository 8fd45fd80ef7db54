import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { ensureCallbackSecret, jobPostEvent, oweCallback } from '@quarry/callbacks';
import { createPool, withTransaction, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/** The dashboard's Callbacks page, in Chromium: per client what was delivered, failed or is waiting, and one client's events. */

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const secretKey = Buffer.alloc(32, 23);

let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let base: string;
let admin: { clientId: string; secret: string };
let platform: { clientId: string };

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  database = await createTestDatabase('dashboard-callbacks');
  redis = createTestRedis('dashboard-callbacks');
  db = createPool(database.url, 3);
  admin = await createClient({ db, secretKey }, { name: 'operator', scopes: ['recruitment', 'admin'] });
  platform = await createClient({ db, secretKey }, { name: 'jobs platform', scopes: ['recruitment'] });
  await ensureCallbackSecret(db, createSealer(secretKey), platform.clientId);
  // Owed through the outbox as the outcomes owe them; no worker runs here, so the states are set as the relay and deliveries would.
  await withTransaction(db, async (client) => {
    for (let index = 0; index < 5; index += 1) {
      const event = jobPostEvent({
        jobPostId: `post-${index}`,
        batchId: null,
        kind: index === 4 ? 'failed' : 'completed',
        errorCode: 'JobExpired',
      });
      await oweCallback(client, {
        clientId: platform.clientId,
        url: 'https://hooks.platform.example/quarry',
        subjectId: `post-${index}`,
        at: new Date(),
        ...event,
      });
    }
  });
  await db.query(
    `UPDATE callback_outbox SET state = 'delivered', attempts = 1, last_status = 204, delivered_at = now(), last_attempt_at = now() WHERE subject_id IN ('post-0', 'post-1')`,
  );
  await db.query(
    `UPDATE callback_outbox SET state = 'failed', attempts = 12, last_status = 500, last_error = 'HTTP 500', last_attempt_at = now() WHERE subject_id = 'post-2'`,
  );
  await db.query(
    `UPDATE callback_outbox SET attempts = 3, last_error = 'connect ECONNREFUSED (ECONNREFUSED)', last_attempt_at = now(), next_attempt_at = now() + interval '10 minutes' WHERE subject_id = 'post-3'`,
  );
  api = await startQuarry('api', { ...quarryEnv({ database, redis, secretKey }), AUTH_CACHE_MS: '0' });
  base = `http://127.0.0.1:${api.port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  if (api && api.child.exitCode === null && api.child.signalCode === null) {
    api.child.kill('SIGKILL');
    await api.exited;
  }
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

const rowsOf = async (page: Page, testId: string) =>
  (await page.evaluate(
    `Array.from(document.querySelectorAll('[data-testid=${testId}] tbody tr'), (row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent.trim()))`,
  )) as string[][];

describe("the dashboard's Callbacks page", () => {
  it("shows each client's delivered, failed and waiting callbacks, and one client's events", async () => {
    for (const [width, height, name] of [
      [1366, 768, 'laptop'],
      [390, 844, 'phone'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await page.goto(`${base}/dashboard`);
      await page.fill('#secret', admin.secret);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/dashboard$/);
      await page.click('a[data-nav=callbacks]');
      await page.waitForSelector('[data-testid=callback-clients] tbody tr');
      const [row] = await rowsOf(page, 'callback-clients');
      expect(row?.[0]).toContain('jobs platform');
      expect(row?.slice(2, 6)).toEqual(['2', '0', '2', '1']);
      expect(row?.[8]).toContain('ECONNREFUSED');
      await page.screenshot({ path: `${screenshots}dashboard-callbacks-${name}.png`, fullPage: true });
      await page.click(`a[href="#/callbacks/${platform.clientId}"]`);
      await page.waitForSelector('[data-testid=callback-events] tbody tr');
      const events = await rowsOf(page, 'callback-events');
      expect(events.map((event) => [event[1], event[2]])).toEqual([
        ['post-4', 'pending'],
        ['post-3', 'pending'],
        ['post-2', 'failed'],
        ['post-1', 'delivered'],
        ['post-0', 'delivered'],
      ]);
      expect(events[2]?.[4]).toBe('HTTP 500');
      await page.screenshot({ path: `${screenshots}dashboard-callbacks-client-${name}.png`, fullPage: true });
      await context.close();
    }
  });
});
