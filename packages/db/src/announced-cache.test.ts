import { describe, expect, it } from 'vitest';
import { createAnnouncedCache } from './announced-cache.ts';

const trustedCache = (keeps = true) => {
  const cache = createAnnouncedCache<string, string>(new Map(), { keeps });
  cache.resume();
  return cache;
};

describe('createAnnouncedCache', () => {
  it('serves and keeps nothing until announcements flow', () => {
    const cache = createAnnouncedCache<string, string>(new Map(), { keeps: true });
    expect(cache.reservation()).toBeNull();
    cache.keep(0, 'a', 'stale');
    cache.resume();
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps a read whose reservation no announcement overtook, and drops it on its announcement', () => {
    const cache = trustedCache();
    cache.keep(cache.reservation()!, 'a', 'first');
    expect(cache.get('a')).toBe('first');
    cache.invalidate('a');
    expect(cache.get('a')).toBeUndefined();
  });

  it('does not keep a read that raced an announcement, of any key', () => {
    const cache = trustedCache();
    const reservation = cache.reservation()!;
    cache.invalidate('other');
    cache.keep(reservation, 'a', 'read before the change');
    expect(cache.get('a')).toBeUndefined();
  });

  it('drops every key an announcement names', () => {
    const cache = trustedCache();
    cache.keep(cache.reservation()!, 'a:v1', '1');
    cache.keep(cache.reservation()!, 'a:v2', '2');
    cache.keep(cache.reservation()!, 'b:v1', '3');
    cache.invalidate('a:v1', 'a:v2');
    expect([cache.get('a:v1'), cache.get('a:v2'), cache.get('b:v1')]).toEqual([undefined, undefined, '3']);
  });

  it('drops everything and serves nothing while announcements may be missed, and starts empty when they flow again', () => {
    const cache = trustedCache();
    cache.keep(cache.reservation()!, 'a', 'kept');
    const reservation = cache.reservation()!;
    cache.suspend();
    expect(cache.get('a')).toBeUndefined();
    expect(cache.reservation()).toBeNull();
    cache.resume();
    cache.keep(reservation, 'a', 'read before the outage');
    expect(cache.get('a')).toBeUndefined();
  });

  it('keeps nothing when sized to keep nothing', () => {
    const cache = trustedCache(false);
    cache.keep(cache.reservation()!, 'a', 'value');
    expect(cache.get('a')).toBeUndefined();
  });
});
