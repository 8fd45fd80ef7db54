import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const secretKey = Buffer.alloc(32, 15);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let admin: { secret: string };
const base = () => `http://127.0.0.1:${api.port}`;

/** Job posts that finished `minutesAgo` minutes before now (completed or failed). */
async function finished(minutesAgo: number, completed: number, failed: number): Promise<void> {
  await db.query(
    `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country, state, finished_at)
     SELECT 'cl_test', 'jp-' || gen_random_uuid(), 'https://jobs.example/1', 'Acme', 'Engineer', 'us',
            CASE WHEN n <= $2 THEN 'completed' ELSE 'failed' END, now() - make_interval(mins => $1::int)
       FROM generate_series(1, $2::int + $3::int) AS n`,
    [minutesAgo, completed, failed],
  );
}

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  database = await createTestDatabase('dashboard_charts');
  redis = createTestRedis('dashboard_charts');
  db = createPool(database.url, 2);
  admin = await createClient({ db, secretKey }, { name: 'ops', scopes: ['admin'] });
  // Eight minutes of activity spread over the hour; the rest of the hour is idle.
  for (const [minutesAgo, completed, failed] of [
    [50, 4, 0],
    [45, 6, 2],
    [40, 3, 3],
    [30, 10, 0],
    [20, 8, 2],
    [12, 5, 5],
    [6, 9, 1],
    [2, 12, 0],
  ] as const) {
    await finished(minutesAgo, completed, failed);
  }
  api = await startQuarry('api', quarryEnv({ database, redis, secretKey }));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  api?.child.kill('SIGKILL');
  await api?.exited;
  await db.end();
  await redis.cleanup();
  await database.drop();
});

describe('dashboard trend charts and icon', () => {
  it('draws the last hour per minute: job posts processed and success rate', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
    await page.goto(`${base()}/dashboard`);
    await page.fill('#secret', admin.secret);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard$/);

    const processedPoints = page.locator('[data-testid=chart-processed] circle.point');
    await processedPoints.first().waitFor();
    // One point per minute in which job posts finished, at a height that follows the count.
    expect(await processedPoints.count()).toBe(8);
    expect(await page.locator('[data-testid=processed-last-hour]').textContent()).toBe('70');
    const heights = await processedPoints.evaluateAll((circles) => circles.map((circle) => Number(circle.getAttribute('cy'))));
    // 12 job posts two minutes ago (the most) sit highest; 4 fifty minutes ago the lowest.
    expect(Math.min(...heights)).toBe(heights[7]);
    expect(Math.max(...heights)).toBe(heights[0]);
    expect(await page.locator('[data-testid=chart-processed] rect.bar').count()).toBe(8);
    expect(await page.locator('[data-testid=chart-success] polyline').count()).toBeGreaterThan(0);

    const successPoints = page.locator('[data-testid=chart-success] circle.point');
    expect(await successPoints.count()).toBe(8);
    await expect(successPoints.nth(2).locator('title').textContent()).resolves.toMatch(/^50%, \d+ min ago$/);
    await page.screenshot({ path: `${screenshots}dashboard-charts-laptop.png`, fullPage: true });
    await page.context().close();
  });

  it('links an SVG icon, served at /dashboard/favicon.svg and /favicon.ico', async () => {
    const login = await (await fetch(`${base()}/dashboard/login`)).text();
    expect(login).toContain('<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">');
    for (const path of ['/dashboard/favicon.svg', '/favicon.ico']) {
      const icon = await fetch(`${base()}${path}`);
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });
});
