import type { Browser, BrowserContext } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createChromiumPool, type ChromiumPool, type ChromiumPoolOptions, type RecycleEvent } from './chromium-pool.ts';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Runs two jobs one after the other and says which browser each ran in; the first outlives the 1 s between memory checks. */
async function twoJobs(options: Omit<ChromiumPoolOptions, 'executablePath' | 'onRecycle'>) {
  const events: RecycleEvent[] = [];
  const pool = createChromiumPool({ executablePath, ...options, onRecycle: (event) => events.push(event) });
  try {
    const inBrowser = (waitMs: number) =>
      pool.withContext(async (context) => {
        const page = await context.newPage();
        await page.setContent('<form><label>Name <input name="name"></label></form>');
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        return context.browser() as Browser;
      });
    const first = await inBrowser(1_100);
    const second = await inBrowser(0);
    return { events, first, second };
  } finally {
    await pool.close();
  }
}

describe('chromium pool', () => {
  it('keeps the features Playwright turns off turned off (third-party storage is not partitioned)', async () => {
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100 });
    try {
      const seen = await pool.withContext(async (context) => {
        const pages: Record<string, string> = {
          'http://pay.test/set': '<script>localStorage.setItem("card", "kept")</script>',
          'http://shop.test/':
            '<script>window.card = new Promise((resolve) => addEventListener("message", (event) => resolve(event.data)))</script><iframe src="http://pay.test/get"></iframe>',
          'http://pay.test/get': '<script>parent.postMessage(localStorage.getItem("card"), "*")</script>',
        };
        await context.route(/\.test\//, (route) => route.fulfill({ contentType: 'text/html', body: pages[route.request().url()] ?? '' }));
        const page = await context.newPage();
        await page.goto('http://pay.test/set');
        await page.goto('http://shop.test/');
        return page.evaluate('window.card');
      });
      // Partitioned (Chromium's default, and ours while a --disable-features of our own replaced Playwright's), the frame would read null.
      expect(seen).toBe('kept');
    } finally {
      await pool.close();
    }
  });

  it('replaces a browser whose processes hold more than recycleAboveMb, between jobs', async () => {
    const { events, first, second } = await twoJobs({ recycleAfterJobs: 100, recycleAboveMb: 1 });
    // The first browser goes after its one job. (On a loaded machine the second job can outlive a
    // memory check too, and its browser then goes as well: only the first event is certain.)
    expect(events[0]).toEqual({ reason: 'memory', jobs: 1, memoryMb: expect.any(Number) });
    expect(events.every((event) => event.reason === 'memory')).toBe(true);
    // A browser with a page open holds tens of MB at least: the figure is real, not a default.
    expect(events[0]?.memoryMb).toBeGreaterThan(20);
    expect(second).not.toBe(first);
    await expect.poll(() => first.isConnected()).toBe(false);
  });

  it('keeps a browser under the memory limit and its job count', async () => {
    const { events, first, second } = await twoJobs({ recycleAfterJobs: 100, recycleAboveMb: 100_000 });
    expect(events).toEqual([]);
    expect(second).toBe(first);
  });

  it('starts a replacement only once the retired browser has finished its jobs and closed', async () => {
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 2 });
    try {
      const job = (waitMs: number) =>
        pool.withContext(async (context) => {
          const browser = context.browser() as Browser;
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          return browser;
        });
      // Two jobs fill the first browser; the third, started while they run, needs a new one.
      const first = job(500);
      const second = job(500);
      const third = pool.withContext(async (context) => ({ oldConnected: (await first).isConnected(), browser: context.browser() }));
      const { oldConnected, browser } = await third;
      expect(browser).not.toBe(await first);
      // Two browsers side by side were the peak of memory: by the time the third job runs, the old one is gone.
      expect(oldConnected).toBe(false);
      expect(await second).toBe(await first);
    } finally {
      await pool.close();
    }
  });

  it('closes at once while a replacement waits for the old browser, starting no new one', async () => {
    let recycled!: () => void;
    const replacing = new Promise<void>((resolve) => (recycled = resolve));
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 1, onRecycle: () => recycled() });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finishFirst!: () => void;
    const first = pool.withContext(async () => {
      started();
      await new Promise<void>((resolve) => (finishFirst = resolve));
    });
    await running;
    // Needs a new browser, which waits for the first one's job (up to 30 s).
    const second = pool
      .withContext(async (context) => context.browser())
      .then(
        () => 'ran',
        (error: Error) => error.message,
      );
    await replacing;
    await pool.close();
    expect(await second).toBe('the browser pool is closed');
    finishFirst();
    await first.catch(() => {});
  }, 15_000);

  it('opens at most maxContexts contexts at once; the other jobs wait for a slot', async () => {
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100, maxContexts: 2 });
    let open = 0;
    let mostOpen = 0;
    try {
      const job = () =>
        pool.withContext(async () => {
          open += 1;
          mostOpen = Math.max(mostOpen, open);
          await new Promise((resolve) => setTimeout(resolve, 200));
          open -= 1;
        });
      await Promise.all([job(), job(), job(), job(), job()]);
      expect(mostOpen).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('replaces a browser after recycleAfterJobs jobs', async () => {
    const { events, first, second } = await twoJobs({ recycleAfterJobs: 1 });
    expect(events).toEqual([{ reason: 'jobs', jobs: 1 }]);
    expect(second).not.toBe(first);
    await expect.poll(() => first.isConnected()).toBe(false);
  });

  it('a lane has its own limit: its contexts take no slot of maxContexts, and its jobs wait for its own slots', async () => {
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100, maxContexts: 1 });
    const bookings = pool.lane(1);
    try {
      const { promise: holdReleased, resolve: release } = Promise.withResolvers<undefined>();
      const held = bookings.withContext(async () => holdReleased);
      // The lane's one context is open: a job of the pool's own still runs at once…
      const started = performance.now();
      await pool.withContext(async () => {});
      expect(performance.now() - started).toBeLessThan(5_000);
      // …while a second lane job waits for the first to end.
      let secondRan = false;
      const second = bookings.withContext(async () => {
        secondRan = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(secondRan).toBe(false);
      release(undefined);
      await Promise.all([held, second]);
      expect(secondRan).toBe(true);
    } finally {
      await pool.close();
    }
  }, 20_000);

  it('a recycle never closes the browser of a lane context still open (a checkout in flight)', async () => {
    const events: RecycleEvent[] = [];
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 1, onRecycle: (event) => events.push(event) });
    try {
      const { promise: recycled, resolve: recycleSeen } = Promise.withResolvers<undefined>();
      const checkout = pool.lane(1).withContext(async (context) => {
        const page = await context.newPage();
        await page.setContent('<p id="step">final price</p>');
        await recycled;
        // The browser was retired while this page was open: the page still answers.
        return { text: await page.textContent('#step'), browser: context.browser() as Browser };
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The next job finds the browser at its job count: it is retired and a replacement waits for it.
      const mining = pool.withContext(async (context) => context.browser() as Browser);
      await expect.poll(() => events.length).toBe(1);
      recycleSeen(undefined);
      const { text, browser } = await checkout;
      expect(text).toBe('final price');
      expect(await mining).not.toBe(browser);
      await expect.poll(() => browser.isConnected()).toBe(false);
    } finally {
      await pool.close();
    }
  }, 40_000);

  describe('kept contexts of a lane', () => {
    const limits = { uses: 3, idleMs: 60_000 };
    /** One use of a kept context of `key`, which answers the context it ran in. */
    const contextOf = (lane: ReturnType<ChromiumPool['lane']>, key: string, keptLimits = limits) =>
      lane.withKeptContext(key, keptLimits, async (context) => context);

    it('are used again under their key, one use at a time, and closed after their uses', async () => {
      const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100 });
      const searches = pool.lane(3, 2);
      try {
        const use = (key: string) => contextOf(searches, key);
        const first = await use('a');
        const firstClosed = new Promise((resolve) => first.once('close', resolve));
        expect(await use('a')).toBe(first);
        // Two uses at once of one key: the second gets a context of its own.
        const [both, other] = await Promise.all([use('a'), use('a')]);
        expect(both).toBe(first);
        expect(other).not.toBe(first);
        expect(await use('b')).not.toBe(first);
        // Its third use was the last: the next use of `a` gets another context (`other`, kept too).
        await firstClosed;
        expect(await use('a')).toBe(other);
      } finally {
        await pool.close();
      }
    }, 20_000);

    it('are closed after a use that failed, and after their idle time', async () => {
      const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100 });
      const searches = pool.lane(2, 2);
      try {
        const failed = await searches
          .withKeptContext('a', limits, async (context) => Promise.reject(Object.assign(new Error('timeout'), { context })))
          .catch((error: { context: BrowserContext }) => error.context);
        expect(await contextOf(searches, 'a')).not.toBe(failed);
        const briefly = await contextOf(searches, 'b', { uses: 10, idleMs: 100 });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await contextOf(searches, 'b')).not.toBe(briefly);
      } finally {
        await pool.close();
      }
    }, 20_000);

    it('hold no slot while idle, and are at most keepIdle idle, the oldest closed first', async () => {
      const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100 });
      const bookings = pool.lane(1, 2);
      try {
        const use = (key: string) => contextOf(bookings, key);
        const [a, b] = [await use('a'), await use('b')];
        // Both idle and the lane's one slot free: a checkout starts at once.
        const { promise: checkoutHeld, resolve: releaseCheckout } = Promise.withResolvers<undefined>();
        let checkoutStarted = false;
        const checkout = bookings.withContext(async () => {
          checkoutStarted = true;
          await checkoutHeld;
        });
        await expect.poll(() => checkoutStarted, { timeout: 5_000 }).toBe(true);
        // A use waits for the slot like any context.
        let usedWhileHeld = false;
        const waiting = bookings.withKeptContext('a', limits, async (context) => ((usedWhileHeld = true), context));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(usedWhileHeld).toBe(false);
        releaseCheckout(undefined);
        await checkout;
        expect(await waiting).toBe(a);
        // A third key: `b`, idle longest, is closed to keep two idle.
        const bClosed = new Promise((resolve) => b.once('close', resolve));
        expect(await use('c')).not.toBe(b);
        await bClosed;
        expect(await use('a')).toBe(a);
      } finally {
        await pool.close();
      }
    }, 20_000);

    it('are closed after each use in a lane that keeps none idle', async () => {
      const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100 });
      const bookings = pool.lane(1);
      try {
        const first = await contextOf(bookings, 'a');
        expect(await contextOf(bookings, 'a')).not.toBe(first);
      } finally {
        await pool.close();
      }
    }, 20_000);

    it('never hold back a recycle: an idle one closes with its retired browser', async () => {
      const events: RecycleEvent[] = [];
      const pool = createChromiumPool({ executablePath, recycleAfterJobs: 1, onRecycle: (event) => events.push(event) });
      try {
        const kept = await pool
          .lane(1, 1)
          .withKeptContext('search', { uses: 10, idleMs: 60_000 }, async (context) => context.browser() as Browser);
        // The next job finds the browser at its job count; the replacement would wait up to 30 s for a context still open.
        const started = performance.now();
        const next = await pool.withContext(async (context) => context.browser() as Browser);
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(events).toEqual([{ reason: 'jobs', jobs: 1 }]);
        expect(next).not.toBe(kept);
        await expect.poll(() => kept.isConnected()).toBe(false);
      } finally {
        await pool.close();
      }
    }, 40_000);
  });

  it('a browser paused mid-job (SIGSTOP) cannot hold the job: its context close is given up on, the browser retired, the next job gets a new one', async () => {
    const pool = createChromiumPool({ executablePath, recycleAfterJobs: 100, closeLimitMs: 500 });
    const stopped: number[] = [];
    try {
      const first = await pool.withContext(async (context) => {
        const page = await context.newPage();
        await page.setContent('<p>about to be paused</p>');
        // Every process this test process started, to any depth: the launcher script, the browser and its renderers.
        const childrenOf = (pid: number): number[] => {
          // ps exits 1 when a process has no children.
          const found = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout.trim();
          return found
            ? found
                .split(/\s+/)
                .map(Number)
                .flatMap((child) => [child, ...childrenOf(child)])
            : [];
        };
        for (const pid of childrenOf(process.pid)) {
          try {
            process.kill(pid, 'SIGSTOP');
            stopped.push(pid);
          } catch {
            // the listing's own ps, gone already
          }
        }
        return context.browser() as Browser;
      });
      const second = await pool.withContext(async (context) => context.browser() as Browser);
      expect(second).not.toBe(first);
    } finally {
      for (const pid of stopped) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await pool.close();
    }
  }, 30_000);
});
