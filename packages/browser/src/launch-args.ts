/**
 * The switches every Chromium of Quarry starts with, written once here for the pool of mining and
 * applying, the checkouts' pool and the booking-page searches' browser. Without the
 * background-networking switches Chromium keeps trying Google's hosts (refused here, and noise
 * anywhere); --disable-dev-shm-usage because a container's /dev/shm is 64 MB unless sized, too
 * little for renderers. Chromium's sandbox stays on (`sandboxedLaunchOptions`, ADR 0056). No
 * --disable-features here: Playwright passes its own list (MediaRouter, PaintHolding, the redirect
 * fix its request interception needs, …) and Chromium honours only the last such switch.
 */
export const chromiumArgs: readonly string[] = [
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Pages clients submit: renderers capped (memory). */
export const cappedRendererArgs: readonly string[] = [...chromiumArgs, '--renderer-process-limit=4'];

/** Checkouts: every site in a renderer of its own, however many that takes (a hotel's page never shares one with its payment provider's card frame). */
export const siteIsolationArgs: readonly string[] = [...chromiumArgs, '--site-per-process'];
