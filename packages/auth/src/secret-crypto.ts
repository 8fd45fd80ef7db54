import { createHmac, randomBytes } from 'node:crypto';

/**
 * Client secrets are 256-bit random values, not passwords, so a keyed HMAC is as strong as a slow
 * password hash against guessing while staying cheap enough to run on every request (ADR 0002).
 */
export function hashSecret(key: Buffer, secret: string): Buffer {
  return createHmac('sha256', key).update(secret, 'utf8').digest();
}

export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
