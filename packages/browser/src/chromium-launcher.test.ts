import { chromiumProcessesUnder } from '@quarry/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createChromiumLauncher } from './chromium-launcher.ts';

/** The booking-page searches' Chromium (the rates role's), seen from /proc while a page is open. */
const launcher = createChromiumLauncher(process.env.RATES_CHROMIUM_PATH ?? '/usr/bin/chromium', { uid: 65534, gid: 65534 });

afterAll(async () => {
  await launcher.close();
});

describe('createChromiumLauncher', () => {
  it('starts Chromium with its sandbox on and never as root', async () => {
    const before = new Set(chromiumProcessesUnder().map((process) => process.pid));
    const browser = await launcher.browser();
    const page = await (await browser.newContext()).newPage();
    await page.setContent('<p id="ready">search</p>');
    const processes = chromiumProcessesUnder().filter((process) => !before.has(process.pid));
    expect(processes.filter((process) => process.commandLine.includes('--no-sandbox')).map((process) => process.commandLine)).toEqual([]);
    expect(processes.filter((process) => process.uid === 0).map((process) => process.commandLine)).toEqual([]);
    const renderers = processes.filter((process) => process.type === 'renderer');
    expect(renderers.length).toBeGreaterThan(0);
    for (const renderer of renderers) expect(renderer.seccomp).toBe(2);
  });
});
