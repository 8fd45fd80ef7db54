import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runApplication, submitApplication, type RunPorts } from '@quarry/applications';
import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createPool, type Pool } from '@quarry/db';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createTestDatabase, createTestRedis, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import { createFakeApplier } from '@quarry/testing/hosted-form-apply';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/** The Queues page's Applications section, in Chromium, over applications that ended every way. */

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const secretKey = Buffer.alloc(32, 17);
// A 1×1 PNG: what an operator's browser must get back from the failure's screenshot link.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let base: string;
let admin: { clientId: string; secret: string };
let withScreenshot: string;

const questions = [
  { id: 'first_name', question: 'First name', inputType: 'Text' as const, label: 'Apply', mandatory: true, category: 'firstName' as const },
];

/** One application run to its end through the use cases, the engine's outcome scripted (our own port). */
async function applicationEnding(outcome: SubmitOutcome | null, jobPostId: string): Promise<string> {
  const ports = {
    pool: db,
    sealer: createSealer(secretKey),
    findMinedPost: async () => ({
      url: `https://careers.acme.example/jobs/${jobPostId}`,
      employer: 'Acme',
      jobTitle: 'Engineer',
      country: 'gb',
      questions,
    }),
    enqueueApply: async () => 'job',
  };
  const { applicationId } = await submitApplication(ports, admin.clientId, {
    jobPostId,
    candidate: { email: `${jobPostId}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
    files: { cv: { type: 'File', url: 'https://files.example/cv.pdf', filename: 'cv.pdf' } },
  });
  if (!outcome) return applicationId;
  const runPorts: RunPorts = {
    ...ports,
    applier: createFakeApplier([outcome]),
    miner: async () => {
      throw new Error('mined already');
    },
    recordMining: async () => {
      throw new Error('mined already');
    },
    fetchFile: createSafeFetch({ allowPrivate: [] }),
    limitHost: (_host, work) => work(),
    maxFileBytes: 1024,
  };
  await runApplication(runPorts, applicationId, { signal: new AbortController().signal, finalAttempt: true });
  return applicationId;
}

async function signedIn(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.goto(`${base}/dashboard`);
  await page.fill('#secret', admin.secret);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/dashboard$/);
  return page;
}

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  database = await createTestDatabase('dashboard-applications');
  redis = createTestRedis('dashboard-applications');
  db = createPool(database.url, 3);
  admin = await createClient({ db, secretKey }, { name: 'operator', scopes: ['recruitment', 'admin'] });
  const success: SubmitOutcome = { status: 'success', confirmation: { reference: 'APP-1', text: 'Thank you for applying' } };
  await applicationEnding(success, 'post-1');
  await applicationEnding(success, 'post-2');
  withScreenshot = await applicationEnding(
    {
      status: 'failed',
      errorCode: 'MandatoryQuestionsNotAnswered',
      message: 'Phone number is required. <b>now</b>',
      submitted: true,
      screenshot: png,
    },
    'post-3',
  );
  await applicationEnding(
    { status: 'failed', errorCode: 'BotDetection', message: 'Please verify you are a human', submitted: true },
    'post-4',
  );
  await applicationEnding(null, 'post-5');
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

// Browser-side expressions are strings: this file is type-checked without the DOM library.
const rowsOf = async (page: Page, testId: string) =>
  (await page.evaluate(
    `Array.from(document.querySelectorAll('[data-testid=${testId}] tbody tr'), (row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent.trim()))`,
  )) as string[][];

describe("the dashboard's applications", () => {
  it('shows applications by status and error code, and the recent failures with their messages and a screenshot link', async () => {
    const page = await signedIn();
    await page.goto(`${base}/dashboard#/queues`);
    await page.locator('[data-testid=application-counts]').waitFor();
    expect(await rowsOf(page, 'application-counts')).toEqual([
      ['failed', 'BotDetection', '1'],
      ['failed', 'MandatoryQuestionsNotAnswered', '1'],
      ['queued', '—', '1'],
      ['success', '—', '2'],
    ]);

    const failures = await rowsOf(page, 'application-failures');
    expect(failures).toHaveLength(2);
    const failure = failures.find((row) => row[2] === 'post-3');
    // The page's own message, shown as text (never as markup); the client by its name.
    expect(failure?.slice(0, 7)).toEqual([
      withScreenshot.slice(0, 8),
      'operator',
      'post-3',
      'careers.acme.example',
      'MandatoryQuestionsNotAnswered',
      'Phone number is required. <b>now</b>',
      expect.stringMatching(/ago$/),
    ]);
    expect(await page.locator('[data-testid=application-failures] b').count()).toBe(0);
    expect(failures.find((row) => row[2] === 'post-4')?.[7]).toBe('');
    await page.screenshot({ path: `${screenshots}queues-applications-laptop.png`, fullPage: true });

    // The link opens the failure's screenshot in a new tab with the operator's session.
    const link = page.locator('[data-testid=application-failures] a', { hasText: 'Screenshot' });
    expect(await link.count()).toBe(1);
    expect(await link.getAttribute('href')).toBe(`/v1/admin/applications/${withScreenshot}/screenshot`);
    const [tab, image] = await Promise.all([
      page.context().waitForEvent('page'),
      page.context().waitForEvent('response', (response) => response.url().endsWith('/screenshot')),
      link.click(),
    ]);
    expect(tab.url()).toBe(`${base}/v1/admin/applications/${withScreenshot}/screenshot`);
    expect(image.status()).toBe(200);
    expect(image.headers()['content-type']).toBe('image/png');
    expect(Buffer.from(await image.body()).equals(png)).toBe(true);
    // Without the session, no screenshot.
    expect((await fetch(`${base}/v1/admin/applications/${withScreenshot}/screenshot`)).status).toBe(401);
    await page.context().close();
  });
});
