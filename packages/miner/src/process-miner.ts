import type { ChromiumRunAs } from '@quarry/chromium';
import type { MiningSettings } from '@quarry/config';
import type { SafeFetch } from '@quarry/safe-fetch';
import { createMiner } from './ats-router.miner.ts';
import { createBrowserFormMiner } from './browser/browser-form.miner.ts';
import { createChromiumPool, type ChromiumPool, type RecycleEvent } from './browser/chromium-pool.ts';
import type { Miner } from './miner-port.ts';
import { createSignInMemory, type SignInMemory } from './browser/account-wall.ts';
import { createWorkdayMiner } from './browser/workday.miner.ts';

/**
 * The Chromium of a worker process, from its mining settings (`browser.enabled` is the caller's to
 * check). Started on the first job that needs it; one per process for mining and applying, which
 * render the pages clients submit. Checkouts never use it (`createCheckoutChromium`).
 */
export function createProcessChromium(settings: MiningSettings, runAs: ChromiumRunAs, onRecycle: (event: RecycleEvent) => void): ChromiumPool {
  return createChromiumPool({
    executablePath: settings.browser.chromiumPath,
    recycleAfterJobs: settings.browser.recycleAfterJobs,
    recycleAboveMb: settings.browser.recycleAboveMb,
    maxContexts: settings.browser.maxContexts,
    runAs,
    onRecycle,
  });
}

/**
 * The Chromium of a process's checkouts and booking-page price checks: a browser of its own, which
 * renders only the booking pages operators registered (never a URL a client submitted), every site
 * in a renderer of its own. Its contexts are limited by the bookings' lane.
 */
export function createCheckoutChromium(settings: MiningSettings, runAs: ChromiumRunAs, onRecycle: (event: RecycleEvent) => void): ChromiumPool {
  return createChromiumPool({
    executablePath: settings.browser.chromiumPath,
    recycleAfterJobs: settings.browser.recycleAfterJobs,
    recycleAboveMb: settings.browser.recycleAboveMb,
    siteIsolation: true,
    runAs,
    onRecycle,
  });
}

/**
 * The miner of a worker process: vendor adapters, then the HTML miner, then (with a browser)
 * Chromium; with a browser, Workday postings are read behind the client's tenant account.
 */
export function createProcessMiner(settings: MiningSettings, allowPrivate: string[], fetch: SafeFetch, chromium: ChromiumPool | null, signIns?: SignInMemory): Miner {
  const browser = chromium
    ? createBrowserFormMiner({ pool: chromium, allowPrivate, timeoutMs: settings.pageTimeoutMs, probeDepth: settings.browser.probeDepth, maxProbeChoices: 60 })
    : undefined;
  // A sign-in and four saved steps: twice a page's time.
  const workday = chromium ? createWorkdayMiner({ pool: chromium, allowPrivate, timeoutMs: 2 * settings.pageTimeoutMs, ...(signIns ? { signIns } : {}) }) : undefined;
  return createMiner({ fetch, timeoutMs: settings.pageTimeoutMs, browser, workday, endpoints: settings.atsEndpoints });
}

/**
 * The tenant sign-ins of a worker process, for every role of it that signs in (the miners, the
 * applier): a password a tenant refused is typed once per process, whichever role met it first.
 */
export function createProcessSignIns(): SignInMemory & { close(): Promise<void> } {
  return { ...createSignInMemory(), close: async () => {} };
}
