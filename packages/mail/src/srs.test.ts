import { describe, expect, it } from 'vitest';
import { createSrs } from './srs.ts';

const secret = Buffer.alloc(32, 7);
const at = (iso: string) => () => new Date(iso);

describe('SRS', () => {
  it('rewrites a sender onto our domain and reverses it, whatever the case on the way back', () => {
    const srs = createSrs({ secret, domain: 'relay.test', now: at('2026-11-22T00:00:00Z') });
    const rewritten = srs.forward('Alice.Smith@Sender.test');
    expect(rewritten).toMatch(/^SRS0=[a-z2-7]{6}=[a-z2-7]{2}=sender\.test=Alice\.Smith@relay\.test$/);
    expect(srs.isSrsAddress(rewritten)).toBe(true);
    expect(srs.reverse(rewritten)).toBe('Alice.Smith@sender.test');
    expect(srs.reverse(rewritten.toUpperCase().replace('@RELAY.TEST', '@relay.test'))?.toLowerCase()).toBe('alice.smith@sender.test');
  });

  it('keeps the null sender null', () => {
    expect(createSrs({ secret, domain: 'relay.test' }).forward('')).toBe('');
  });

  it('refuses forged hashes, other secrets, other domains and addresses older than the limit', () => {
    const srs = createSrs({ secret, domain: 'relay.test', now: at('2026-11-22T00:00:00Z') });
    const rewritten = srs.forward('alice@sender.test');
    expect(srs.reverse(rewritten.replace(/^SRS0=[a-z2-7]{6}=/, 'SRS0=aaaaaa='))).toBeNull();
    expect(createSrs({ secret: Buffer.alloc(32, 8), domain: 'relay.test' }).reverse(rewritten)).toBeNull();
    expect(srs.reverse(rewritten.replace('@relay.test', '@other.test'))).toBeNull();
    expect(createSrs({ secret, domain: 'relay.test', now: at('2026-12-10T00:00:00Z') }).reverse(rewritten)).toBe('alice@sender.test');
    expect(createSrs({ secret, domain: 'relay.test', now: at('2026-12-20T00:00:00Z') }).reverse(rewritten)).toBeNull();
  });
});
