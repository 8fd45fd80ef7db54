import { createHmac, timingSafeEqual } from 'node:crypto';
import { isPanTokenShaped } from '@quarry/contracts';

/**
 * A card token is the card's id and a MAC of it under the vault's token key, base64url, at the
 * length of its format: v2 is "v2:" + 296 characters (222 bytes), v1 is 164 characters (123
 * bytes). It carries no card data; only the vault's key makes or checks one, so a guessed or
 * altered token is refused before any database read, and the vault never stores the token itself.
 */
export type TokenVersion = 1 | 2;

const cardIdBytes = 16;
const formats = { 1: { prefix: '', bytes: 123 }, 2: { prefix: 'v2:', bytes: 222 } } as const satisfies Record<
  TokenVersion,
  { prefix: string; bytes: number }
>;

/** HKDF-Expand (RFC 5869) with the token key as PRK: a MAC of any length, bound to the version and card. */
function macOf(tokenKey: Buffer, version: TokenVersion, cardId: Buffer, length: number): Buffer {
  const info = Buffer.concat([Buffer.from(`quarry-vault-token:v${version}:`, 'utf8'), cardId]);
  const blocks: Buffer[] = [];
  let previous = Buffer.alloc(0);
  for (let counter = 1; blocks.length * 32 < length; counter += 1) {
    previous = createHmac('sha256', tokenKey)
      .update(previous)
      .update(info)
      .update(Buffer.from([counter]))
      .digest();
    blocks.push(previous);
  }
  return Buffer.concat(blocks).subarray(0, length);
}

export function makeToken(tokenKey: Buffer, version: TokenVersion, cardId: Buffer): string {
  const format = formats[version];
  const mac = macOf(tokenKey, version, cardId, format.bytes - cardIdBytes);
  return `${format.prefix}${Buffer.concat([cardId, mac]).toString('base64url')}`;
}

/** The card id a token names, when the token is one this vault made; null for anything else. */
export function cardIdOf(tokenKey: Buffer, token: string): { cardId: Buffer; version: TokenVersion } | null {
  if (!isPanTokenShaped(token)) return null;
  const version: TokenVersion = token.startsWith('v2:') ? 2 : 1;
  const body = token.slice(formats[version].prefix.length);
  const bytes = Buffer.from(body, 'base64url');
  // Only the canonical base64url spelling is ours (a v1 token of the base64 alphabet is not).
  if (bytes.length !== formats[version].bytes || bytes.toString('base64url') !== body) return null;
  const cardId = bytes.subarray(0, cardIdBytes);
  const expected = macOf(tokenKey, version, cardId, formats[version].bytes - cardIdBytes);
  return timingSafeEqual(expected, bytes.subarray(cardIdBytes)) ? { cardId: Buffer.from(cardId), version } : null;
}

/** A card id as Postgres stores it (uuid) and as Redis keys name it. */
export const cardUuid = (cardId: Buffer): string => {
  const hex = cardId.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
