import { describe, expect, it } from 'vitest';
import { createRetrievalCache } from './retrieval-cache.ts';

describe('retrieval cache', () => {
  const trusted = () => {
    const cache = createRetrievalCache({ maxBytes: 1024 * 1024, ttlMs: 60_000 });
    cache.resume();
    return cache;
  };

  it('keeps an answer per client, post and shape, and drops both shapes on an announcement', () => {
    const cache = trusted();
    const reservation = cache.reservation() ?? -1;
    cache.keep(reservation, 'c1', 'p1', 'v2', '{"v":2}');
    cache.keep(reservation, 'c1', 'p1', 'v1', '{"v":1}');
    expect(cache.get('c1', 'p1', 'v2')).toBe('{"v":2}');
    expect(cache.get('c2', 'p1', 'v2')).toBeUndefined();
    cache.invalidate('c1', 'p1');
    expect(cache.get('c1', 'p1', 'v2')).toBeUndefined();
    expect(cache.get('c1', 'p1', 'v1')).toBeUndefined();
  });

  it('does not keep a read that raced an announcement', () => {
    const cache = trusted();
    const reservation = cache.reservation() ?? -1;
    // The store was read before the worker committed; its announcement arrives before `keep`.
    cache.invalidate('c1', 'p1');
    cache.keep(reservation, 'c1', 'p1', 'v2', '{"old":true}');
    expect(cache.get('c1', 'p1', 'v2')).toBeUndefined();
  });

  it('serves and keeps nothing while announcements cannot arrive, and starts empty after', () => {
    const cache = trusted();
    cache.keep(cache.reservation() ?? -1, 'c1', 'p1', 'v2', '{}');
    cache.suspend();
    expect(cache.reservation()).toBeNull();
    expect(cache.get('c1', 'p1', 'v2')).toBeUndefined();
    cache.resume();
    expect(cache.get('c1', 'p1', 'v2')).toBeUndefined();
    const never = createRetrievalCache({ maxBytes: 1024, ttlMs: 60_000 });
    expect(never.reservation()).toBeNull();
  });

  it('forgets an answer after its time to live, a bound on an announcement lost to a crash', async () => {
    const cache = createRetrievalCache({ maxBytes: 1024, ttlMs: 1_000 });
    cache.resume();
    cache.keep(cache.reservation() ?? -1, 'c1', 'p1', 'v2', '{}');
    expect(cache.get('c1', 'p1', 'v2')).toBe('{}');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(cache.get('c1', 'p1', 'v2')).toBeUndefined();
  });
});
