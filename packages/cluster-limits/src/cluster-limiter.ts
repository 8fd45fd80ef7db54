import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Semaphore } from 'redis-semaphore';

export type ClusterLimits = {
  /** Works running at once per key, across every process sharing the Redis. */
  concurrency: number;
  /** Works started per second per key, across every process; 0 means no rate limit. */
  perSecond: number;
};

/** Runs `work` once the key has a free slot and a start left in the current second. */
export type ClusterLimiter = <T>(key: string, work: () => Promise<T>, signal: AbortSignal) => Promise<T>;

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
 */
export function createClusterLimiter(options: ClusterLimiterOptions): ClusterLimiter {
  const retryMs = options.retryMs ?? 50;
  const rate =
    options.perSecond > 0
      ? new RateLimiterRedis({ storeClient: options.redis, keyPrefix: `${options.prefix}:rate`, points: options.perSecond, duration: 1 })
      : null;
  return async (key, work, signal) => {
    const semaphore = new Semaphore(options.redis, `${options.prefix}:active:${key}`, options.concurrency, {
      lockTimeout: options.leaseMs,
      // Waiting is bounded by the caller's signal, not by a second clock of the library's.
      acquireTimeout: 24 * 3_600_000,
      retryInterval: retryMs,
      onLockLost: (error) => options.onLeaseLost?.(key, error),
    });
    await semaphore.acquire(signal);
    try {
      if (rate) await takeStart(rate, key, signal);
      return await work();
    } finally {
      await semaphore.release();
    }
  };
}

async function takeStart(rate: RateLimiterRedis, key: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    try {
      await rate.consume(key);
      return;
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      await sleep(Math.max(1, refusal.msBeforeNext), signal);
    }
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
