import { chromium, type Browser, type BrowserContext } from 'playwright-core';

export type ChromiumPoolOptions = {
  executablePath: string;
  /** A fresh browser after this many jobs: Chromium's memory only grows over a long run. */
  recycleAfterJobs: number;
};

export type ChromiumPool = {
  /** Runs `work` in a new, isolated browser context; the context is closed afterwards whatever happens. */
  withContext<T>(work: (context: BrowserContext) => Promise<T>): Promise<T>;
  close(): Promise<void>;
};

// Without the background-networking switches Chromium keeps trying Google's hosts (refused here,
// and noise anywhere); --no-sandbox because containers and root seldom allow its sandbox.
const launchArgs = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-features=Translate,MediaRouter', '--renderer-process-limit=4'];

/**
 * One Chromium per worker process, one context per job, several jobs in parallel. The browser is
 * replaced after `recycleAfterJobs` jobs, once its running jobs finish, so no job is cut short.
 */
export function createChromiumPool(options: ChromiumPoolOptions): ChromiumPool {
  let current: { browser: Promise<Browser>; jobs: number; active: number } | null = null;
  const retired = new Set<Promise<Browser>>();
  let closed = false;

  const retire = (entry: { browser: Promise<Browser>; active: number }) => {
    retired.add(entry.browser);
    if (entry.active === 0) void entry.browser.then((browser) => browser.close()).catch(() => {}).finally(() => retired.delete(entry.browser));
  };

  return {
    async withContext(work) {
      if (closed) throw new Error('the browser pool is closed');
      if (!current || current.jobs >= options.recycleAfterJobs) {
        if (current) retire(current);
        current = { browser: chromium.launch({ executablePath: options.executablePath, args: launchArgs }), jobs: 0, active: 0 };
      }
      const entry = current;
      entry.jobs += 1;
      entry.active += 1;
      let context: BrowserContext | undefined;
      try {
        context = await (await entry.browser).newContext({ acceptDownloads: false, serviceWorkers: 'block', locale: 'en-GB' });
        return await work(context);
      } finally {
        await context?.close().catch(() => {});
        entry.active -= 1;
        if (entry !== current && entry.active === 0) retire(entry);
      }
    },
    async close() {
      closed = true;
      const browsers = [...retired, ...(current ? [current.browser] : [])];
      current = null;
      await Promise.all(browsers.map((browser) => browser.then((instance) => instance.close()).catch(() => {})));
    },
  };
}
