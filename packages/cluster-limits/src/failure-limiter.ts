import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export type FailureLimits = {
  /** Failures allowed per key within `windowSeconds`; the next ones wait for the window to pass. */
  perAddress: number;
  perClient: number;
  windowSeconds: number;
};

export type FailureLimiter = {
  /** Counts one failure against each key given; the seconds to wait when one went over its limit, else null. */
  record(keys: { address?: string | undefined; clientId?: string | undefined }): Promise<number | null>;
};

/** How long a Redis answer is awaited before this process counts on its own (a store outage). */
const storeTimeoutMs = 250;

class StoreTimeout extends Error {}

function pairOf(redis: Redis, keyPrefix: string, points: number, duration: number) {
  return {
    shared: new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration }),
    // While Redis does not answer, failures still count, per process: an outage never lifts the limit.
    local: new RateLimiterMemory({ keyPrefix, points, duration }),
  };
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw rejection;
  }
}

async function consumeShared(pair: ReturnType<typeof pairOf>, key: string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      consume(pair.shared, key),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StoreTimeout()), storeTimeoutMs))),
    ]);
  } catch {
    return consume(pair.local, key);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Failed-authentication limits shared by every process through Redis (rate-limiter-flexible's
 * atomic counter per fixed window): a flood of wrong secrets from one address, or of forged
 * tokens naming one client, gets 429 whichever API process it reaches.
 */
export function createFailureLimiter(options: FailureLimits & { redis: Redis; prefix: string }): FailureLimiter {
  const byAddress = pairOf(options.redis, `${options.prefix}:auth-failures:address`, options.perAddress, options.windowSeconds);
  const byClient = pairOf(options.redis, `${options.prefix}:auth-failures:client`, options.perClient, options.windowSeconds);
  return {
    async record(keys) {
      const waits = await Promise.all([
        keys.address ? consumeShared(byAddress, keys.address) : null,
        keys.clientId ? consumeShared(byClient, keys.clientId) : null,
      ]);
      const over = waits.filter((wait): wait is number => wait !== null);
      return over.length > 0 ? Math.max(...over) : null;
    },
  };
}
