import { cappedRendererArgs, siteIsolationArgs } from './launch-args.ts';
import { sandboxedLaunchOptions, type ChromiumRunAs } from './sandboxed-launch.ts';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { browserMemoryMb } from './browser-memory.ts';

export type ChromiumPoolOptions = {
  executablePath: string;
  /** A fresh browser after this many jobs: Chromium's memory only grows over a long run. */
  recycleAfterJobs: number;
  /** A fresh browser once all its processes together hold more than this (PSS, MB), checked between jobs. */
  recycleAboveMb?: number;
  /**
   * Contexts open at once; more jobs wait for a slot. The worker may run more jobs than this (most
   * are JSON/HTML adapters), but each context is a renderer's worth of memory.
   */
  maxContexts?: number;
  /** Told when a browser is replaced, and why (logs). */
  onRecycle?: (event: RecycleEvent) => void;
  /**
   * Chromium's own name resolution rules (`--host-resolver-rules`, e.g. `MAP acme.example 127.0.0.1:8080`):
   * tests reach a vendor's double under the vendor's host name. Requests still pass the SSRF guard.
   */
  hostResolverRules?: string;
  /** The unprivileged user Chromium runs as when this process is root (its sandbox refuses root; ADR 0056). */
  runAs?: ChromiumRunAs | undefined;
  /**
   * Every site in a renderer of its own (`--site-per-process`), with no cap on renderers: a
   * checkout's hotel page and its payment provider's card frame never share one.
   */
  siteIsolation?: boolean;
  /** How long closing a context or a browser may take before it is taken as wedged: the context's browser is retired, the browser counted as gone (default 10 s). */
  closeLimitMs?: number;
};

export type RecycleEvent = { reason: 'jobs' | 'memory'; jobs: number; memoryMb?: number };

// Reading every process's smaps_rollup costs a few milliseconds; once a second is often enough.
const memoryCheckEveryMs = 1_000;

export type ChromiumPool = {
  /** Runs `work` in a new, isolated browser context; the context is closed afterwards whatever happens. */
  withContext<T>(work: (context: BrowserContext) => Promise<T>): Promise<T>;
  /**
   * Contexts of the same browser under a limit of their own, not counted against `maxContexts`
   * (bookings hold theirs for minutes). A recycle never closes a browser with a context open. Up to
   * `keepIdle` kept contexts (`withKeptContext`) wait idle beside the limit.
   */
  lane(maxContexts: number, keepIdle?: number): ChromiumLane;
  close(): Promise<void>;
};

/** How long a kept context lives: closed after `uses` uses, or once idle for `idleMs`. */
type KeptContextLimits = { uses: number; idleMs: number };

type ChromiumLane = {
  /** Runs `work` in a new, isolated browser context; the context is closed afterwards whatever happens. */
  withContext<T>(work: (context: BrowserContext) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in a context kept between uses under `key` (a use at a time): an idle one of that
   * key, else a new one. In use it holds a slot of the lane; idle it holds none, and at most the
   * lane's `keepIdle` contexts are idle (none by default: each is closed after its use). It is
   * closed after a use that failed, after `limits.uses` uses, after `limits.idleMs` idle, and as
   * soon as its browser is retired (a recycle waits for no kept context).
   */
  withKeptContext<T>(key: string, limits: KeptContextLimits, work: (context: BrowserContext) => Promise<T>): Promise<T>;
};

/** How long a replacement browser waits for the retired one's jobs before starting anyway (a stuck job). */
const drainLimitMs = 30_000;

/**
 * One Chromium per worker process, one context per job, several jobs in parallel. The browser is
 * replaced after `recycleAfterJobs` jobs or once it holds more than `recycleAboveMb`. The retired
 * browser closes when its running jobs finish, so no job is cut short, and its replacement starts
 * only then: two browsers side by side were the worker's peak memory (bench mining-throughput).
 */
/** How long closing a page or context may take before it is given up on. */
const closeLimitMs = 10_000;

/**
 * Closes a page or a context, giving up after `timeoutMs`: a browser that was paused (a frozen VM,
 * a stopped process) can leave a close unanswered for good, and a job must not hold its slot
 * waiting for it. Resolves whether it closed.
 */
export async function closeWithin(target: { close(): Promise<unknown> }, timeoutMs = closeLimitMs): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([
      target.close().then(
        () => true,
        () => true,
      ),
      gaveUp,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createChromiumPool(options: ChromiumPoolOptions): ChromiumPool {
  type Entry = {
    browser: Promise<Browser>;
    jobs: number;
    active: number;
    memoryCheckedAt: number;
    closed: Promise<void>;
    markClosed: () => void;
    retiring: AbortController;
  };
  let current: Entry | null = null;
  const retired = new Set<Entry>();
  let closed = false;

  /** Closes an entry's browser; a replacement waiting for it may then start. */
  // A paused browser may never answer its close: after the limit it counts as closed (its close
  // stays asked, and it goes once the process runs again), so no replacement waits on it.
  const closeBrowser = (entry: Entry): Promise<void> =>
    entry.browser
      .then(async (browser) => void (await closeWithin(browser, options.closeLimitMs)))
      .catch(() => {})
      .finally(() => {
        retired.delete(entry);
        entry.markClosed();
      });
  const retire = (entry: Entry) => {
    retired.add(entry);
    entry.retiring.abort();
    if (entry.active === 0) void closeBrowser(entry);
  };
  const launch = (): Entry => {
    const draining = Promise.race([
      Promise.all([...retired].map((entry) => entry.closed)),
      new Promise((resolve) => setTimeout(resolve, drainLimitMs).unref()),
    ]);
    const { promise: closedPromise, resolve } = Promise.withResolvers<undefined>();
    return {
      browser: draining.then(() => {
        // Closed while waiting for the old browser: nothing to start.
        if (closed) throw new Error('the browser pool is closed');
        const launchArgs = options.siteIsolation ? siteIsolationArgs : cappedRendererArgs;
        const args = options.hostResolverRules ? [...launchArgs, `--host-resolver-rules=${options.hostResolverRules}`] : launchArgs;
        // Playwright's own signal handlers would close every browser at the first SIGTERM, under the
        // checkouts and jobs the process's graceful shutdown lets finish: the process closes the pool itself.
        return chromium.launch(sandboxedLaunchOptions({ executablePath: options.executablePath, args, runAs: options.runAs }));
      }),
      jobs: 0,
      active: 0,
      memoryCheckedAt: Date.now(),
      closed: closedPromise,
      markClosed: () => resolve(undefined),
      retiring: new AbortController(),
    };
  };

  /**
   * Chromium's memory grows with the pages it has seen, not only with their number: between jobs,
   * a browser above `recycleAboveMb` is retired like one that reached its job count.
   */
  const recycleIfTooBig = async (entry: Entry): Promise<void> => {
    if (options.recycleAboveMb === undefined || Date.now() - entry.memoryCheckedAt < memoryCheckEveryMs) return;
    entry.memoryCheckedAt = Date.now();
    const memoryMb = await entry.browser.then(browserMemoryMb).catch(() => 0);
    if (memoryMb <= options.recycleAboveMb || entry !== current) return;
    current = null;
    retire(entry);
    options.onRecycle?.({ reason: 'memory', jobs: entry.jobs, memoryMb: Math.round(memoryMb) });
  };

  const slots = createSlots(options.maxContexts ?? Number.POSITIVE_INFINITY);
  const limited =
    (laneSlots: Slots) =>
    async <T>(work: InBrowserWork<T>): Promise<T> => {
      if (closed) throw new Error('the browser pool is closed');
      await laneSlots.acquire();
      try {
        return await inBrowser(work);
      } finally {
        laneSlots.release();
      }
    };

  const lane = (maxContexts: number, keepIdle = 0): ChromiumLane => {
    const laneSlots = createSlots(maxContexts);
    return { withContext: limited(laneSlots), withKeptContext: createKeptContexts(laneSlots, keepIdle, inBrowser) };
  };

  return {
    withContext: limited(slots),
    lane,
    async close() {
      closed = true;
      const entries = [...retired, ...(current ? [current] : [])];
      current = null;
      // Each closed browser releases a replacement waiting for it, which then starts nothing.
      await Promise.all(entries.map(closeBrowser));
    },
  };

  async function inBrowser<T>(work: InBrowserWork<T>): Promise<T> {
    // Again: the pool may have closed while this job waited for a slot.
    if (closed) throw new Error('the browser pool is closed');
    if (!current || current.jobs >= options.recycleAfterJobs) {
      if (current) {
        retire(current);
        options.onRecycle?.({ reason: 'jobs', jobs: current.jobs });
      }
      current = launch();
    }
    const entry = current;
    entry.jobs += 1;
    entry.active += 1;
    let context: BrowserContext | undefined;
    try {
      context = await (await entry.browser).newContext({ acceptDownloads: false, serviceWorkers: 'block', locale: 'en-GB' });
      return await work(context, entry.retiring.signal);
    } finally {
      // A context that will not close belongs to a browser that stopped answering: retire it.
      if (context && !(await closeWithin(context, options.closeLimitMs)) && !retired.has(entry)) {
        retire(entry);
        if (current === entry) current = null;
      }
      entry.active -= 1;
      if (retired.has(entry)) {
        if (entry.active === 0) void closeBrowser(entry);
      } else {
        await recycleIfTooBig(entry);
      }
    }
  }
}

/** A job's work: its context, and a signal that fires when the context's browser is retired. */
type InBrowserWork<T> = (context: BrowserContext, retired: AbortSignal) => Promise<T>;

type KeptContext = {
  key: string;
  context: BrowserContext;
  uses: number;
  idleTimer?: NodeJS.Timeout;
  ended: boolean;
  close: () => void;
  retired: AbortSignal;
};

/**
 * A lane's kept contexts. One in use holds a slot of the lane like any context; an idle one holds
 * none (at most `keepIdle` of them, the oldest closed first), so it never keeps a checkout waiting.
 */
function createKeptContexts(
  laneSlots: Slots,
  keepIdle: number,
  inBrowser: <T>(work: InBrowserWork<T>) => Promise<T>,
): ChromiumLane['withKeptContext'] {
  const idle: KeptContext[] = [];
  const forget = (kept: KeptContext) => {
    clearTimeout(kept.idleTimer);
    kept.idleTimer = undefined;
    const at = idle.indexOf(kept);
    if (at >= 0) idle.splice(at, 1);
  };

  /**
   * A kept context is a job of the browser that lasts until the context is to close: it keeps its
   * browser open like any job, and ends (the context closed) when `close` is called, its browser is
   * retired while it is idle, or the context closes under it.
   */
  const open = (key: string): Promise<KeptContext> => {
    const { promise: opened, resolve, reject } = Promise.withResolvers<KeptContext>();
    inBrowser(async (context, retired) => {
      const { promise: closed, resolve: markClosed } = Promise.withResolvers<undefined>();
      const end = () => {
        kept.ended = true;
        forget(kept);
        markClosed(undefined);
      };
      const kept: KeptContext = { key, context, uses: 0, ended: false, close: end, retired };
      // An idle context goes with its retired browser at once; one in use goes after its use (`park`).
      const onRetired = () => {
        if (kept.idleTimer) end();
      };
      retired.addEventListener('abort', onRetired, { once: true });
      context.once('close', end);
      resolve(kept);
      await closed;
      retired.removeEventListener('abort', onRetired);
    }).catch(reject);
    return opened;
  };

  const park = (kept: KeptContext, limits: KeptContextLimits) => {
    if (kept.ended || kept.uses >= limits.uses || kept.retired.aborted || keepIdle === 0) return kept.close();
    if (idle.length >= keepIdle) idle[0]?.close();
    kept.idleTimer = setTimeout(() => kept.close(), limits.idleMs).unref();
    idle.push(kept);
  };

  return async (key, limits, work) => {
    await laneSlots.acquire();
    try {
      const ready = idle.find((kept) => kept.key === key);
      if (ready) forget(ready);
      const kept = ready ?? (await open(key));
      try {
        const result = await work(kept.context);
        kept.uses += 1;
        park(kept, limits);
        return result;
      } catch (error) {
        // What the failed use left in the context is not known: the next use starts afresh.
        kept.close();
        throw error;
      }
    } finally {
      laneSlots.release();
    }
  };
}

type Slots = ReturnType<typeof createSlots>;

/** A counting semaphore: `acquire` waits while `limit` holders are in. */
function createSlots(limit: number) {
  let held = 0;
  const waiting: (() => void)[] = [];
  return {
    async acquire(): Promise<void> {
      if (held < limit) {
        held += 1;
        return;
      }
      // The releasing holder hands its slot over directly: `held` stays as it is.
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else held -= 1;
    },
  };
}
