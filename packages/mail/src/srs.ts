import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { domainOf, localPartOf } from './addresses.ts';

/**
 * Sender Rewriting Scheme (SRS0, as postsrsd writes it): `SRS0=HHHHHH=TT=orig-domain=orig-local@our-domain`.
 * The envelope sender of keepSender mail becomes an address on our domain so SPF passes at the
 * destination, and a bounce sent back to it can be reversed to the original sender. The hash is
 * an HMAC over timestamp and address so nobody can use our domain as a bounce relay, and it is
 * compared case-insensitively because MTAs may change the case of a local part.
 * No npm SRS package is maintained enough to depend on (ADR 0012); this is the whole scheme.
 */
const base32 = 'abcdefghijklmnopqrstuvwxyz234567';
const DAY_MS = 86_400_000;
const hashLength = 6;

export type Srs = {
  /** Rewrites a non-empty envelope sender; `''` (the null sender) stays null. */
  forward(sender: string): string;
  /** The original sender of an SRS address, or null when it is not ours, forged or too old. */
  reverse(address: string): string | null;
  isSrsAddress(address: string): boolean;
};

export function createSrs(options: { secret: Buffer; domain: string; maxAgeDays?: number; now?: () => Date }): Srs {
  const maxAgeDays = options.maxAgeDays ?? 21;
  const now = options.now ?? (() => new Date());
  const domain = options.domain.toLowerCase();

  // One KeyObject for the process: from a Buffer, createHmac makes a new one per forwarded message.
  const key = createSecretKey(options.secret);
  const hash = (...parts: string[]) => {
    const digest = createHmac('sha256', key).update(parts.join('=').toLowerCase()).digest();
    let out = '';
    for (let index = 0; index < hashLength; index += 1) out += base32[(digest[index] ?? 0) & 31];
    return out;
  };
  const today = () => Math.floor(now().getTime() / DAY_MS) % 1024;
  const stamp = (day: number) => `${base32[day >> 5]}${base32[day & 31]}`;

  return {
    forward(sender) {
      if (!sender) return '';
      const local = localPartOf(sender);
      const senderDomain = domainOf(sender);
      if (senderDomain === domain) return sender;
      const timestamp = stamp(today());
      return `SRS0=${hash(timestamp, senderDomain, local)}=${timestamp}=${senderDomain}=${local}@${domain}`;
    },
    reverse(address) {
      if (domainOf(address) !== domain) return null;
      const match = /^srs0=([a-z2-7]+)=([a-z2-7]{2})=([^=]+)=(.+)$/i.exec(localPartOf(address));
      if (!match) return null;
      const [, givenHash = '', timestamp = '', senderDomain = '', local = ''] = match;
      const expected = Buffer.from(hash(timestamp.toLowerCase(), senderDomain, local));
      const given = Buffer.from(givenHash.toLowerCase());
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const day = base32.indexOf(timestamp.charAt(0).toLowerCase()) * 32 + base32.indexOf(timestamp.charAt(1).toLowerCase());
      const age = (today() - day + 1024) % 1024;
      if (age > maxAgeDays) return null;
      return `${local}@${senderDomain}`;
    },
    isSrsAddress(address) {
      return /^srs[01][=+-]/i.test(localPartOf(address));
    },
  };
}
