import { createTestRedis, startPrivateRedis, waitFor } from '@quarry/testing';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createClusterLimiter } from './cluster-limiter.ts';

const testRedis = createTestRedis('cluster-limits');
// Two connections stand for two processes of one deployment.
const redisA = new Redis(testRedis.url);
const redisB = new Redis(testRedis.url);

afterAll(async () => {
  redisA.disconnect();
  redisB.disconnect();
  await testRedis.cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const forever = () => new AbortController().signal;

describe('cluster limiter', () => {
  it('holds the concurrency of a key across processes, and keys apart', async () => {
    const options = { prefix: `${testRedis.prefix}:c`, concurrency: 2, perSecond: 0, leaseMs: 5_000, retryMs: 10 };
    const limiters = [createClusterLimiter({ ...options, redis: redisA }), createClusterLimiter({ ...options, redis: redisB })];
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const work = (key: string) => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      peak.set(key, Math.max(peak.get(key) ?? 0, running.get(key) ?? 0));
      await sleep(40);
      running.set(key, (running.get(key) ?? 0) - 1);
      return key;
    };
    const runs = Array.from({ length: 12 }, (_, index) =>
      (limiters[index % 2] ?? limiters[0])!(
        index < 8 ? 'engine.example' : 'other.example',
        work(index < 8 ? 'engine.example' : 'other.example'),
        forever(),
      ),
    );
    expect(await Promise.all(runs)).toHaveLength(12);
    expect(peak.get('engine.example')).toBe(2);
    expect(peak.get('other.example')).toBe(2);
  });

  it("returns the work's result when Redis is gone by the time the slot is given back (the slot's lease runs out by itself)", async () => {
    const server = await startPrivateRedis();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => 250 });
    redis.on('error', () => {});
    await waitFor('connected', async () => (redis.status === 'ready' ? true : undefined), { timeoutMs: 5_000 });
    const lost: string[] = [];
    try {
      const limiter = createClusterLimiter({
        redis,
        prefix: 'gone',
        concurrency: 1,
        perSecond: 0,
        leaseMs: 5_000,
        retryMs: 10,
        onLeaseLost: (key) => lost.push(key),
      });
      // The work read an answer nobody else knows (a site's confirmation) while Redis went away.
      const answer = await limiter(
        'careers.example',
        async () => {
          await server.kill();
          return 'Thank you for applying';
        },
        forever(),
      );
      expect(answer).toBe('Thank you for applying');
      expect(lost).toContain('careers.example');
    } finally {
      redis.disconnect();
      await server.remove();
    }
  });

  it("does not hold the work's result while Redis is silent (a worker cut off from it), and gives the slot back once it answers", async () => {
    const server = await startPrivateRedis();
    // As the workers' connections: commands wait for Redis rather than fail.
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    redis.on('error', () => {});
    try {
      const limiter = createClusterLimiter({ redis, prefix: 'silent', concurrency: 1, perSecond: 0, leaseMs: 60_000, retryMs: 10 });
      const began = Date.now();
      const answer = await limiter(
        'careers.example',
        async () => {
          server.pause();
          return 'Thank you for applying';
        },
        forever(),
      );
      expect(answer).toBe('Thank you for applying');
      expect(Date.now() - began).toBeLessThan(3_000);
      server.resume();
      // The release went on by itself: the slot (concurrency 1, a lease of a minute) is free again.
      expect(await limiter('careers.example', async () => 'next', AbortSignal.timeout(5_000))).toBe('next');
    } finally {
      server.resume();
      redis.disconnect();
      await server.remove();
    }
  });

  it('frees the slot when the work fails', async () => {
    const limiter = createClusterLimiter({
      redis: redisA,
      prefix: `${testRedis.prefix}:f`,
      concurrency: 1,
      perSecond: 0,
      leaseMs: 5_000,
      retryMs: 10,
    });
    await expect(limiter('k', async () => Promise.reject(new Error('source down')), forever())).rejects.toThrow('source down');
    expect(await limiter('k', async () => 'next', AbortSignal.timeout(1_000))).toBe('next');
  });

  it('spaces starts by the per-second budget across processes', async () => {
    const options = { prefix: `${testRedis.prefix}:r`, concurrency: 100, perSecond: 5, leaseMs: 5_000, retryMs: 10 };
    const limiters = [createClusterLimiter({ ...options, redis: redisA }), createClusterLimiter({ ...options, redis: redisB })];
    const starts: number[] = [];
    const began = Date.now();
    await Promise.all(
      Array.from({ length: 12 }, (_, index) => limiters[index % 2]!('rated', async () => void starts.push(Date.now() - began), forever())),
    );
    // 5 per one-second window: 12 starts need three windows, so the last is at least a second in.
    expect(starts).toHaveLength(12);
    expect(Math.max(...starts)).toBeGreaterThanOrEqual(1_000);
    const firstWindow = starts.filter((at) => at < Math.min(...starts) + 900).length;
    expect(firstWindow).toBeLessThanOrEqual(5);
  });

  it('gives up waiting when the caller’s signal aborts', async () => {
    const limiter = createClusterLimiter({
      redis: redisA,
      prefix: `${testRedis.prefix}:a`,
      concurrency: 1,
      perSecond: 0,
      leaseMs: 5_000,
      retryMs: 10,
    });
    let release = () => {};
    const holder = limiter('busy', () => new Promise<void>((resolve) => (release = resolve)), forever());
    await sleep(50);
    await expect(limiter('busy', async () => 'never', AbortSignal.timeout(200))).rejects.toThrow();
    release();
    await holder;
  });

  describe('live calls before background ones', () => {
    const background = { urgent: () => false };
    /** Works that run until released, recording the order they started in. */
    function gatedWorks() {
      const started: string[] = [];
      const releases = new Map<string, () => void>();
      const work = (name: string) => () =>
        new Promise<string>((resolve) => {
          started.push(name);
          releases.set(name, () => resolve(name));
        });
      const release = (name: string) => releases.get(name)?.();
      return { started, work, release };
    }

    it('leaves the last slot of a key to live calls: a first pass of background work never makes a live call wait for it', async () => {
      const options = { prefix: `${testRedis.prefix}:p`, concurrency: 3, perSecond: 0, leaseMs: 5_000, retryMs: 10 };
      const [limiterA, limiterB] = [
        createClusterLimiter({ ...options, redis: redisA }),
        createClusterLimiter({ ...options, redis: redisB }),
      ];
      const { started, work, release } = gatedWorks();
      const queued = Array.from({ length: 8 }, (_, index) =>
        (index % 2 ? limiterA : limiterB)('host', work(`background-${index}`), forever(), background),
      );
      await waitFor('two background works running', () => started.length === 2);
      const live = limiterA('host', work('live'), forever());
      // Nothing is released: the live call starts beside the background works, in the slot they may not take.
      await waitFor('the live call running', () => started.includes('live'));
      expect(started.filter((name) => name.startsWith('background'))).toHaveLength(2);
      release('live');
      expect(await live).toBe('live');
      for (let index = 0; index < 8; index += 1) {
        await waitFor(`background work ${index} running`, () => started.length >= Math.min(2 + index + 1, 9));
        for (const name of started) release(name);
      }
      expect(await Promise.all(queued)).toHaveLength(8);
    });

    it('keeps background work waiting while live calls wait, and a waiting background call a pull joins becomes live and goes first', async () => {
      const options = { prefix: `${testRedis.prefix}:w`, concurrency: 2, perSecond: 0, leaseMs: 5_000, retryMs: 10 };
      const [limiterA, limiterB] = [
        createClusterLimiter({ ...options, redis: redisA }),
        createClusterLimiter({ ...options, redis: redisB }),
      ];
      const { started, work, release } = gatedWorks();
      const first = limiterA('host', work('background-first'), forever(), background);
      await waitFor('the background work running', () => started.length === 1);
      const live1 = limiterB('host', work('live-1'), forever());
      await waitFor('both slots taken', () => started.length === 2);
      const live2 = limiterB('host', work('live-2'), forever());
      let urgent = false;
      const joined = limiterA('host', work('background-joined-by-a-pull'), forever(), { urgent: () => urgent });
      const later = limiterA('host', work('background-later'), forever(), background);
      release('background-first');
      await waitFor('live-2 running', () => started.includes('live-2'));
      urgent = true;
      release('live-1');
      await waitFor('the urgent one running', () => started.includes('background-joined-by-a-pull'));
      release('live-2');
      release('background-joined-by-a-pull');
      await waitFor('the last one running', () => started.includes('background-later'));
      release('background-later');
      await Promise.all([first, live1, live2, joined, later]);
      expect(started).toEqual(['background-first', 'live-1', 'live-2', 'background-joined-by-a-pull', 'background-later']);
    });
  });
});
