import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/** The Feeds & mail page's pool mailboxes, in Chromium, over accounts in every state an operator meets. */

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const secretKey = Buffer.alloc(32, 19);

let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let base: string;
let admin: { clientId: string; secret: string };

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  database = await createTestDatabase('dashboard-mailboxes');
  redis = createTestRedis('dashboard-mailboxes');
  db = createPool(database.url, 3);
  admin = await createClient({ db, secretKey }, { name: 'operator', scopes: ['forwarding', 'admin'] });
  const account = (email: string, columns: string, values: unknown[]) =>
    db.query(
      `INSERT INTO mail_outlook_accounts (email, sealed_secret, imap_host, imap_port, imap_secure${columns}) VALUES ($1, '\\x00', 'imap.pool.test', 993, true${values.map((_, index) => `, $${index + 2}`).join('')})`,
      [email, ...values],
    );
  const handedOut = ', client_id, alias, forwards_to, keep_sender, assigned_at';
  const to = (name: string) => [admin.clientId, `${name}@fwd.test`, `${name}@dest.test`, false, new Date(Date.now() - 86_400_000)];
  await account('free@pool.test', '', []);
  await account('idle@pool.test', `${handedOut}, lease_owner, lease_expires_at, watch_mode, forwarded, last_message_at`, [
    ...to('idle'),
    'mail-host:41:ab12cd34',
    new Date(Date.now() + 60_000),
    'idle',
    3,
    new Date(Date.now() - 5 * 60_000),
  ]);
  await account('polled@pool.test', `${handedOut}, lease_owner, lease_expires_at, watch_mode, forwarded`, [
    ...to('polled'),
    'mail-host:41:ab12cd34',
    new Date(Date.now() + 60_000),
    'poll',
    0,
  ]);
  await account('broken@pool.test', `${handedOut}, state, login_failures, last_error, last_error_at, forwarded, last_message_at`, [
    ...to('broken'),
    'broken',
    5,
    'AUTHENTICATIONFAILED <b>Authentication failed.</b>',
    new Date(Date.now() - 2 * 3_600_000),
    7,
    new Date(Date.now() - 3 * 3_600_000),
  ]);
  api = await startQuarry('api', { ...quarryEnv({ database, redis, secretKey }), AUTH_CACHE_MS: '0', MAIL_DOMAINS: 'fwd.test' });
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

describe("the dashboard's pool mailboxes", () => {
  it('shows each account with its state, how it is read, its last message and last error, broken first', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await page.fill('#secret', admin.secret);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${base}/dashboard#/feeds`);
    await page.locator('[data-testid=pool-mailboxes]').waitFor();

    // Browser-side expressions are strings: this file is type-checked without the DOM library.
    const rows = (await page.evaluate(
      "Array.from(document.querySelectorAll('[data-testid=pool-mailboxes] tbody tr'), (row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent.trim()))",
    )) as string[][];
    expect(rows).toEqual([
      [
        'broken@pool.testbroken@fwd.test → broken@dest.test',
        'broken',
        'not watched',
        '7',
        '3 h ago',
        'AUTHENTICATIONFAILED <b>Authentication failed.</b> · 2 h ago',
      ],
      ['idle@pool.testidle@fwd.test → idle@dest.test', 'ok', 'IDLE', '3', '5 min ago', '—'],
      ['free@pool.test', 'ok', 'not handed out', '0', '—', '—'],
      ['polled@pool.testpolled@fwd.test → polled@dest.test', 'ok', 'polling', '0', '—', '—'],
    ]);
    // The server's answer is shown as text, never as markup.
    expect(await page.locator('[data-testid=pool-mailboxes] b').count()).toBe(0);
    const counts = (await page.locator('[data-testid=mailbox-counts]').innerText()).replace(/\s+/g, ' ');
    expect(counts).toContain('Available 1 Watched 2 Failing 0 Broken 1');
    await page.screenshot({ path: `${screenshots}feeds-pool-mailboxes-laptop.png`, fullPage: true });
    await context.close();
  });

  it('fits every line of the pool mailboxes on a 390 px phone: nothing cut, nothing scrolled sideways', async () => {
    // Addresses as long as real pool mailboxes and their forwarding have.
    await db.query(
      `INSERT INTO mail_outlook_accounts (email, sealed_secret, imap_host, imap_port, imap_secure, client_id, alias, forwards_to, keep_sender, assigned_at, state, last_error, last_error_at)
       VALUES ('recruiting-pool-mailbox-0042@outlook-accounts.example.com', '\\x00', 'imap.pool.test', 993, true, $1,
               'candidate-replies-7f3a9c21@fwd.test', 'talent.acquisition.team@destination-company.example.com', false, now(), 'failing',
               'IMAP connection to outlook.office365.com:993 timed out after 30000 ms while waiting for the greeting', now())`,
      [admin.clientId],
    );
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await page.fill('#secret', admin.secret);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard$/);
    await page.goto(`${base}/dashboard#/feeds`);
    await page.locator('[data-testid=pool-mailboxes]').waitFor();
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0);
    // Every cell's text lies inside the page and inside its cell (a cell clips what overflows it).
    const cut =
      (await page.evaluate(`Array.from(document.querySelectorAll('[data-testid=pool-mailboxes] td, [data-testid=pool-mailboxes] td *'), (element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      const box = range.getBoundingClientRect();
      const cell = element.closest('td').getBoundingClientRect();
      return box.width > 0 && (box.right > window.innerWidth + 0.5 || box.left < -0.5 || box.right > cell.right + 0.5) ? element.textContent.trim() : null;
    }).filter(Boolean)`)) as string[];
    expect(cut).toEqual([]);
    await page.screenshot({ path: `${screenshots}feeds-pool-mailboxes-phone.png`, fullPage: true });
    await context.close();
  });
});
