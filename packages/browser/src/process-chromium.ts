import type { BrowserSettings } from '@quarry/config';
import { createChromiumPool, type ChromiumPool, type RecycleEvent } from './chromium-pool.ts';
import type { ChromiumRunAs } from './sandboxed-launch.ts';

/**
 * The Chromium of a worker process for the pages clients submit (mining, applying), from the
 * browser settings. Started on the first job that needs it; one per process, its contexts shared
 * by those roles. Checkouts never use it (`createCheckoutChromium`).
 */
export function createProcessChromium(
  settings: BrowserSettings,
  runAs: ChromiumRunAs,
  onRecycle: (event: RecycleEvent) => void,
): ChromiumPool {
  return createChromiumPool({
    executablePath: settings.chromiumPath,
    recycleAfterJobs: settings.recycleAfterJobs,
    recycleAboveMb: settings.recycleAboveMb,
    maxContexts: settings.maxContexts,
    runAs,
    onRecycle,
  });
}

/**
 * The Chromium of a process's checkouts and booking-page price checks: a browser of its own, which
 * renders only the booking pages operators registered (never a URL a client submitted), every site
 * in a renderer of its own. Its contexts are limited by the bookings' lane.
 */
export function createCheckoutChromium(
  settings: BrowserSettings,
  runAs: ChromiumRunAs,
  onRecycle: (event: RecycleEvent) => void,
): ChromiumPool {
  return createChromiumPool({
    executablePath: settings.chromiumPath,
    recycleAfterJobs: settings.recycleAfterJobs,
    recycleAboveMb: settings.recycleAboveMb,
    siteIsolation: true,
    runAs,
    onRecycle,
  });
}
