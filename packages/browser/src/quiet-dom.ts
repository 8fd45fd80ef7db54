import type { Page } from 'playwright-core';

// The slice of the DOM the page-side wait touches (the workspace compiles without the DOM library).
type QuietGlobals = {
  document: unknown;
  performance: { now(): number };
  MutationObserver: new (callback: () => void) => { observe(target: unknown, options: Record<string, boolean>): void; disconnect(): void };
  setTimeout(callback: () => void, ms: number): number;
};

/** Runs in the page: resolves once its DOM has had no change for `quietMs`, or after `maxMs`. Kept free of closures (it is serialized). */
function quietDom([quietMs, maxMs]: readonly [number, number]): Promise<boolean> {
  const page = globalThis as unknown as QuietGlobals;
  return new Promise((resolve) => {
    const started = page.performance.now();
    let lastChange = started;
    const observer = new page.MutationObserver(() => (lastChange = page.performance.now()));
    observer.observe(page.document, { subtree: true, childList: true, attributes: true, characterData: true });
    // Wakes when the quiet period could end: a long wait costs a wake-up or two, not fifty.
    const check = () => {
      const now = page.performance.now();
      if (now - started >= maxMs || now - lastChange >= quietMs) {
        observer.disconnect();
        resolve(true);
        return;
      }
      page.setTimeout(check, Math.max(1, Math.min(lastChange + quietMs - now, started + maxMs - now)));
    };
    page.setTimeout(check, Math.min(5, quietMs));
  });
}

/**
 * Waits until the page's DOM has been quiet for `quietMs` (scripts rendering a form, a sign-in
 * answered), at most `maxMs`. Cheaper than network idle, which costs 500 ms of silence on every
 * page. A page that navigates meanwhile is given the same time as a plain wait.
 */
export async function waitForQuietDom(page: Page, quietMs: number, maxMs: number): Promise<void> {
  await page.evaluate(quietDom, [quietMs, maxMs] as const).catch(() => page.waitForTimeout(Math.min(quietMs * 3, maxMs)));
}
