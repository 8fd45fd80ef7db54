import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserSettings } from '@quarry/config';
import { chromiumProcessesUnder, type ChromiumProcess } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChromiumPool } from './chromium-pool.ts';
import { createCheckoutChromium, createProcessChromium } from './process-chromium.ts';

/**
 * The process's browsers as the kernel sees them while a page is open (/proc): the checkouts' own
 * Chromium and mining's, each with Chromium's sandbox on, neither running as root.
 */
const settings: BrowserSettings = {
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
  recycleAfterJobs: 50,
  recycleAboveMb: 2048,
  maxContexts: 2,
};
const runAs = { uid: 65534, gid: 65534 };
let server: Server;
let port: number;
const pools: ChromiumPool[] = [];

beforeAll(async () => {
  // A hotel's page on 127.0.0.1 with its payment provider's card frame on localhost: two sites.
  server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(
      request.url === '/card'
        ? '<input id="pan" autocomplete="cc-number">'
        : `<p>checkout</p><iframe src="http://localhost:${port}/card"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const pool of pools) await pool.close();
  server?.close();
});

/** The processes of the browser `pool` runs while a checkout page (with its card frame) is open. */
async function processesDuringPage(pool: ChromiumPool): Promise<{ processes: ChromiumProcess[]; main: ChromiumProcess | undefined }> {
  pools.push(pool);
  const before = new Set(chromiumProcessesUnder().map((process) => process.pid));
  return pool.withContext(async (context) => {
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.frameLocator('iframe').locator('#pan').waitFor();
    const processes = chromiumProcessesUnder().filter((process) => !before.has(process.pid));
    const main = processes.find(
      (process) => process.commandLine.includes('--remote-debugging-pipe') && !process.commandLine.startsWith('/bin/sh'),
    );
    return { processes, main };
  });
}

function expectSandboxed(processes: ChromiumProcess[], main: ChromiumProcess | undefined): void {
  expect(main).toBeDefined();
  expect(processes.filter((process) => process.commandLine.includes('--no-sandbox')).map((process) => process.commandLine)).toEqual([]);
  expect(processes.filter((process) => process.uid === 0).map((process) => process.commandLine)).toEqual([]);
  const renderers = processes.filter((process) => process.type === 'renderer');
  expect(renderers.length).toBeGreaterThan(0);
  for (const renderer of renderers) {
    expect(renderer.seccomp, `renderer ${renderer.pid} under seccomp-bpf`).toBe(2);
    expect(renderer.userNamespace, `renderer ${renderer.pid} in a user namespace of its own`).not.toBe(main?.userNamespace);
  }
}

describe('the browsers of a worker process', () => {
  it('checkouts: a Chromium with its sandbox on, not as root, the hotel page and the card frame in renderers of their own', async () => {
    const { processes, main } = await processesDuringPage(createCheckoutChromium(settings, runAs, () => {}));
    expectSandboxed(processes, main);
    expect(main?.commandLine).toContain('--site-per-process');
    expect(main?.commandLine).not.toContain('--renderer-process-limit');
    expect(processes.filter((process) => process.type === 'renderer').length).toBeGreaterThanOrEqual(2);
  });

  it('mining and applying: a Chromium of their own, with its sandbox on too', async () => {
    const checkout = createCheckoutChromium(settings, runAs, () => {});
    const mining = createProcessChromium(settings, runAs, () => {});
    const checkoutBrowser = await processesDuringPage(checkout);
    const miningBrowser = await processesDuringPage(mining);
    expectSandboxed(miningBrowser.processes, miningBrowser.main);
    expect(miningBrowser.main?.pid).not.toBe(checkoutBrowser.main?.pid);
  });
});
