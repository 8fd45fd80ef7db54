import { createSignInMemory, type ChromiumPool, type SignInMemory } from '@quarry/browser';
import type { MiningSettings } from '@quarry/config';
import type { SafeFetch } from '@quarry/safe-fetch';
import { createMiner } from './ats-router.miner.ts';
import { createBrowserFormMiner } from './browser/browser-form.miner.ts';
import type { Miner } from './miner-port.ts';
import { createWorkdayMiner } from './browser/workday.miner.ts';

/**
 * The miner of a worker process: vendor adapters, then the HTML miner, then (with a browser)
 * Chromium; with a browser, Workday postings are read behind the client's tenant account.
 */
export function createProcessMiner(
  settings: MiningSettings,
  allowPrivate: string[],
  fetch: SafeFetch,
  chromium: ChromiumPool | null,
  signIns?: SignInMemory,
): Miner {
  const browser = chromium
    ? createBrowserFormMiner({
        pool: chromium,
        allowPrivate,
        timeoutMs: settings.pageTimeoutMs,
        probeDepth: settings.browser.probeDepth,
        maxProbeChoices: 60,
      })
    : undefined;
  // A sign-in and four saved steps: twice a page's time.
  const workday = chromium
    ? createWorkdayMiner({ pool: chromium, allowPrivate, timeoutMs: 2 * settings.pageTimeoutMs, ...(signIns ? { signIns } : {}) })
    : undefined;
  return createMiner({ fetch, timeoutMs: settings.pageTimeoutMs, browser, workday, endpoints: settings.atsEndpoints });
}

/**
 * The tenant sign-ins of a worker process, for every role of it that signs in (the miners, the
 * applier): a password a tenant refused is typed once per process, whichever role met it first.
 */
export function createProcessSignIns(): SignInMemory & { close(): Promise<void> } {
  return { ...createSignInMemory(), close: async () => {} };
}
