import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromiumProcessesUnder } from '@quarry/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxedLaunchOptions } from './sandboxed-launch.ts';

/** A real Chromium (Debian's headless shell) launched with these options, seen from /proc. */
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const runAs = { uid: 65534, gid: 65534 };
let server: Server;
let port: number;
let browser: Browser | undefined;

beforeAll(async () => {
  // A page on 127.0.0.1 framing a page on localhost: two sites, so two renderers with --site-per-process.
  server = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(
      request.url === '/frame'
        ? '<p id="inner">card frame</p>'
        : `<p id="outer">hotel</p><iframe src="http://localhost:${port}/frame"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe('sandboxedLaunchOptions', () => {
  it('never passes --no-sandbox, and as root starts Chromium as the unprivileged user', () => {
    const asRoot = sandboxedLaunchOptions({ executablePath, args: ['--disable-gpu'], runAs, uid: 0 });
    expect(asRoot).toMatchObject({
      chromiumSandbox: true,
      args: ['--disable-gpu'],
      env: { QUARRY_CHROMIUM_PATH: executablePath, QUARRY_CHROMIUM_UID: '65534', QUARRY_CHROMIUM_GID: '65534' },
    });
    expect(asRoot.executablePath).toMatch(/bin\/chromium-as-user\.sh$/);
    const asUser = sandboxedLaunchOptions({ executablePath, args: [], runAs, uid: 1000 });
    expect(asUser).toMatchObject({ chromiumSandbox: true, executablePath });
    expect(asUser.env).toBeUndefined();
  });

  it('runs every renderer sandboxed (namespaces of its own, seccomp-bpf), no process as root, one renderer per site', async () => {
    browser = await chromium.launch(
      sandboxedLaunchOptions({ executablePath, args: ['--disable-gpu', '--disable-dev-shm-usage', '--site-per-process'], runAs }),
    );
    const page = await (await browser.newContext()).newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.frameLocator('iframe').locator('#inner').waitFor();
    const processes = chromiumProcessesUnder();
    expect(processes.filter((process) => process.commandLine.includes('--no-sandbox'))).toEqual([]);
    expect(processes.filter((process) => process.uid === 0)).toEqual([]);
    const main = processes.find(
      (process) =>
        process.type === 'browser' && process.commandLine.includes('--remote-debugging-pipe') && !process.commandLine.startsWith('/bin/sh'),
    );
    expect(main?.commandLine).toContain('--site-per-process');
    const renderers = processes.filter((process) => process.type === 'renderer');
    // The hotel's page and the card frame of another site: never one renderer.
    expect(renderers.length).toBeGreaterThanOrEqual(2);
    for (const renderer of renderers) {
      expect(renderer.seccomp, `renderer ${renderer.pid}`).toBe(2);
      expect(renderer.userNamespace).not.toBe(main?.userNamespace);
      expect(renderer.pidNamespace).not.toBe(main?.pidNamespace);
    }
  });
});
