import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Semaphore } from 'redis-semaphore';

export type ClusterLimits = {
  /** Works running at once per key, across every process sharing the Redis. */
  concurrency: number;
  /** Works started per second per key, across every process; 0 means no rate limit. */
  perSecond: number;
};

/**
 * Who is waiting. `live`: someone is waiting for the answer now (a client's pull); it may take every
 * slot and goes before any `background` waiter (scheduled work), which may take at most all slots
 * but one and does not start while a live waiter of the key exists. A background call may become
 * live while it waits (`urgent()` turns true: a pull now waits for that very work).
 */
export type LimiterPriority = { urgent: () => boolean };

/** Runs `work` once the key has a free slot and a start left in the current second. */
export type ClusterLimiter = <T>(key: string, work: () => Promise<T>, signal: AbortSignal, priority?: LimiterPriority) => Promise<T>;

export type ClusterLimiterOptions = ClusterLimits & {
  redis: Redis;
  /** Namespace of the limiter's Redis keys (the deployment's queue prefix plus a purpose). */
  prefix: string;
  /**
   * How long a slot outlives a holder that stopped refreshing it (a crashed process). Live holders
   * refresh it, so a long work keeps its slot; a crash frees it after this at most.
   */
  leaseMs: number;
  /** How often a waiter asks again for a slot. */
  retryMs?: number;
  onLeaseLost?: (key: string, error: Error) => void;
};

/**
 * Per-key concurrency and start-rate limits shared by every process of a deployment: a source's
 * politeness budget holds whether one worker or twenty call it, and the API's live fetches count
 * too. Concurrency is a Redis semaphore (redis-semaphore: a sorted set of leases, refreshed while
 * held, so a crashed holder's slot expires); the rate is rate-limiter-flexible's atomic Redis
 * counter per one-second window. A waiter gives up when `signal` aborts.
 *
 * Priority: waiters poll, so nothing is queued in order; instead background calls take slots
 * through a semaphore of the same key with a limit one lower (the last slot is always left for a
 * live call, which therefore never waits for a background work to finish when the key has two
 * slots or more), and neither take a slot nor start while a live waiter is registered for the key
 * (a sorted set of waiters whose scores are expiry times, renewed while they wait, so a crashed
 * waiter stops counting). A first pass of scheduled refreshes over new hotels thus never keeps a
 * pull's fetch from its deadline.
 */
export function createClusterLimiter(options: ClusterLimiterOptions): ClusterLimiter {
  const retryMs = options.retryMs ?? 50;
  // Long enough to survive a slow poll, short enough that a crashed waiter is forgotten quickly.
  const waiterTtlMs = Math.max(2_000, retryMs * 20);
  const rate =
    options.perSecond > 0
      ? new RateLimiterRedis({ storeClient: options.redis, keyPrefix: `${options.prefix}:rate`, points: options.perSecond, duration: 1 })
      : null;
  const backgroundLimit = options.concurrency > 1 ? options.concurrency - 1 : options.concurrency;
  const semaphore = (key: string, limit: number) =>
    new Semaphore(options.redis, `${options.prefix}:active:${key}`, limit, {
      lockTimeout: options.leaseMs,
      // One attempt (then a pause of retryMs) per call: the loops below decide what comes next.
      acquireAttemptsLimit: 1,
      acquireTimeout: 24 * 3_600_000,
      retryInterval: retryMs,
      onLockLost: (error) => options.onLeaseLost?.(key, error),
    });
  const waitersKey = (key: string) => `${options.prefix}:live-waiters:${key}`;
  const liveWaiting = async (key: string) => (await options.redis.zcount(waitersKey(key), Date.now(), '+inf')) > 0;
  const renewWaiter = async (key: string, id: string) => {
    await options.redis
      .multi()
      .zadd(waitersKey(key), Date.now() + waiterTtlMs, id)
      .pexpire(waitersKey(key), waiterTtlMs)
      .exec();
  };

  return async (key, work, signal, priority) => {
    const urgent = () => priority === undefined || priority.urgent();
    const waiterId = randomUUID();
    let registered = false;
    let held: Semaphore | undefined;
    try {
      // The slot.
      while (!held) {
        signal.throwIfAborted();
        if (urgent()) {
          await renewWaiter(key, waiterId);
          registered = true;
          const live = semaphore(key, options.concurrency);
          if (await live.tryAcquire(signal)) held = live;
        } else if (await liveWaiting(key)) {
          await sleep(retryMs, signal);
        } else {
          const background = semaphore(key, backgroundLimit);
          if (await background.tryAcquire(signal)) held = background;
        }
      }
      // The start, within the key's rate; a live waiter stays registered until its work starts.
      if (rate) {
        for (;;) {
          signal.throwIfAborted();
          if (urgent()) {
            await renewWaiter(key, waiterId);
            registered = true;
          } else if (await liveWaiting(key)) {
            await sleep(retryMs, signal);
            continue;
          }
          const wait = await takeStart(rate, key);
          if (wait === 0) break;
          await sleep(Math.min(wait, retryMs * 4), signal);
        }
      }
      if (registered) {
        registered = false;
        await options.redis.zrem(waitersKey(key), waiterId);
      }
      return await work();
    } finally {
      if (registered) await options.redis.zrem(waitersKey(key), waiterId).catch(() => 0);
      // Redis gone by now must neither cost nor hold up the work's result (a site's answer that
      // exists nowhere else): a worker cut off from Redis would otherwise wait, after the heal, for
      // its connection's TCP retransmission backoff before the result could be recorded. The
      // release is waited for a moment (so a caller's next call finds the slot free), then left
      // to finish on its own; if it never does, the slot's lease (`leaseMs`) runs out by itself.
      if (held) {
        const released = held
          .release()
          .catch((error: unknown) => options.onLeaseLost?.(key, error instanceof Error ? error : new Error(String(error))));
        await Promise.race([released, delay(releaseWaitMs)]);
      }
    }
  };
}

/** How long the work's result waits for its slot's release before going on without it. */
const releaseWaitMs = 1_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Takes one start of the key's current second: 0 when taken, else how long until the next second. */
async function takeStart(rate: RateLimiterRedis, key: string): Promise<number> {
  try {
    await rate.consume(key);
    return 0;
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    return Math.max(1, refusal.msBeforeNext);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
