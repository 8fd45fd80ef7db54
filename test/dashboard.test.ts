import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@quarry/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvOf, startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

const screenshots = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const viewports = { laptop: { width: 1366, height: 768 }, phone: { width: 390, height: 844 } } as const;

let stack: RecruitmentStack;
let browser: Browser;
let runningBatch: string;
let failingBatch: string;

async function submit(csv: string): Promise<string> {
  const response = await stack.submitCsv(csv);
  expect(response.status).toBe(200);
  return ((await response.json()) as { batchId: string }).batchId;
}

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(`${stack.base}/dashboard`);
  await page.fill('#secret', stack.tenant.secret);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/dashboard$/);
  return page;
}

async function batchState(batchId: string): Promise<{ state: string; processedCount: number }> {
  return (await (await stack.call(`/v1/admin/batches/${batchId}`)).json()) as { state: string; processedCount: number };
}

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  stack = await startRecruitmentStack('dashboard', { MINING_BATCH_CONCURRENCY: '2' });
  const rows = (prefix: string, count: number, path: (n: number) => string) =>
    Array.from({ length: count }, (_, index) => ({
      jobPostId: `${prefix}-${index + 1}`,
      url: `${stack.web.origin}${path(index + 1)}`,
      employer: 'Acme Robotics',
    }));
  failingBatch = await submit(csvOf(rows('mixed', 10, (n) => (n % 2 === 0 ? `/error/${n}` : `/jobs/${n}`))));
  await stack.waitForBatch(failingBatch, 'finished');
  runningBatch = await submit(csvOf(rows('live', 300, (n) => `/slow/${n}?ms=150`)));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('operator dashboard', () => {
  it('refuses visitors without a session, and API changes without the CSRF token', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${stack.base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    expect((await fetch(`${stack.base}/v1/admin/batches`)).status).toBe(401);
    expect((await fetch(`${stack.base}/dashboard/queues/raw`, { redirect: 'manual' })).status).toBe(303);
    await page.fill('#secret', 'qs_not-a-secret');
    await page.click('button[type=submit]');
    await expect(page.locator('.error').textContent()).resolves.toMatch(/admin scope/);
    await context.close();

    const signed = await signedIn(viewports.laptop);
    const withoutToken = await signed.evaluate(
      async (path) => (await fetch(path, { method: 'POST' })).status,
      `/v1/admin/batches/${runningBatch}/pause`,
    );
    expect(withoutToken).toBe(403);
    const wrongToken = await signed.evaluate(
      async (path) => (await fetch(path, { method: 'POST', headers: { 'x-csrf-token': 'forged' } })).status,
      `/v1/admin/batches/${runningBatch}/pause`,
    );
    expect(wrongToken).toBe(403);
    expect((await batchState(runningBatch)).state).not.toBe('paused');
    await signed.context().close();
  });

  it('shows a batch progressing live, pauses it and resumes it', async () => {
    const page = await signedIn(viewports.laptop);
    // Browser-side expressions are strings: this file is type-checked without the DOM library.
    await page.evaluate('window.notReloaded = true');
    const row = page.locator(`tr[data-batch="${runningBatch}"]`);
    const processed = async () => Number(await row.locator('[data-testid=processed]').textContent());
    const first = await waitFor('a first count', async () => ((await processed()) > 0 ? processed() : undefined));
    const later = await waitFor(
      'the count to move on screen',
      async () => {
        const value = await processed();
        return value > first ? value : undefined;
      },
      { timeoutMs: 20_000 },
    );
    expect(later).toBeGreaterThan(first);
    expect(await page.evaluate('window.notReloaded === true')).toBe(true);
    await page.screenshot({ path: `${screenshots}batches-laptop.png`, fullPage: true });

    await row.locator('button[data-action=pause]').click();
    await waitFor('paused on screen', async () => (await row.locator('[data-testid=state]').textContent()) === 'paused');
    expect((await batchState(runningBatch)).state).toBe('paused');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const settled = (await batchState(runningBatch)).processedCount;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await batchState(runningBatch)).processedCount).toBe(settled);

    await row.locator('button[data-action=resume]').click();
    await waitFor('resumed', async () => (await batchState(runningBatch)).state === 'resumed');
    await waitFor('advancing again', async () => (await batchState(runningBatch)).processedCount > settled);
    await page.context().close();
  });

  it('shows the page asked for last, even when the page left answers late', async () => {
    const page = await signedIn(viewports.laptop);
    // The batch page's data arrives a second late; the operator has moved to the queues by then.
    await page.route(`**/v1/admin/batches/${failingBatch}`, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await route.continue();
    });
    await page.goto(`${stack.base}/dashboard#/batches/${failingBatch}`);
    await page.goto(`${stack.base}/dashboard#/queues`);
    await page.locator('td[data-label=Queue]').first().waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await expect(page.locator('main h1').first().textContent()).resolves.toBe('Queues');
    await page.context().close();
  });

  it('opens the error breakdown of a batch with failures', async () => {
    const page = await signedIn(viewports.laptop);
    await page.goto(`${stack.base}/dashboard#/batches/${failingBatch}`);
    const breakdown = page.locator('[data-testid=error-breakdown]');
    await breakdown.waitFor();
    await expect(breakdown.textContent()).resolves.toMatch(/GenericWebsiteError\s*5/);
    await expect(page.locator('main').textContent()).resolves.toContain(`${stack.web.origin}/error/2`);
    await page.screenshot({ path: `${screenshots}batch-detail-laptop.png`, fullPage: true });

    // Re-submitting the failed rows makes a new batch of the same client with exactly those rows.
    await page.click('button[data-action=resubmit]');
    await page.waitForURL((url) => url.hash.startsWith('#/batches/') && !url.hash.endsWith(failingBatch));
    const resubmitted = new URL(page.url()).hash.split('/')[2] ?? '';
    const detail = (await (await stack.call(`/v1/admin/batches/${resubmitted}`)).json()) as { jobsCount: number; clientId: string };
    expect(detail).toMatchObject({ jobsCount: 5, clientId: stack.tenant.clientId });

    await page.goto(`${stack.base}/dashboard#/queues`);
    await page.locator('td[data-label=Queue]').first().waitFor();
    await expect(page.locator('main').textContent()).resolves.toContain('mining.single');
    const queueState = async () =>
      ((await (await stack.call('/v1/admin/queues')).json()) as Array<{ name: string; paused: boolean; workers: number }>).find(
        (queue) => queue.name === 'mining.single',
      );
    expect(await queueState()).toMatchObject({ paused: false });
    expect((await queueState())?.workers).toBeGreaterThan(0);
    await page.click('button[data-action=queue-pause][data-queue="mining.single"]');
    await waitFor('queue paused', async () => (await queueState())?.paused === true);
    await page.screenshot({ path: `${screenshots}queues-laptop.png`, fullPage: true });
    await page.locator('button[data-action=queue-resume][data-queue="mining.single"]').click();
    await waitFor('queue resumed', async () => (await queueState())?.paused === false);
    await page.goto(`${stack.base}/dashboard#/feeds`);
    await page.locator('[data-testid=mail-summary]').waitFor();
    await expect(page.locator('[data-testid=mail-summary]').textContent()).resolves.toMatch(/Deferred\s*0/);
    await expect(page.locator('[data-testid=push-subscriptions]').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${screenshots}feeds-laptop.png`, fullPage: true });
    await page.context().close();
  });

  it('lays out the main pages on a phone', async () => {
    const page = await signedIn(viewports.phone);
    await page.locator(`tr[data-batch="${runningBatch}"]`).waitFor();
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${screenshots}batches-phone.png`, fullPage: true });
    await page.goto(`${stack.base}/dashboard#/batches/${failingBatch}`);
    await page.locator('[data-testid=error-breakdown]').waitFor();
    await page.screenshot({ path: `${screenshots}batch-detail-phone.png`, fullPage: true });
    await page.context().close();
  });
});
