import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Client secrets are 256-bit random values, not passwords, so a keyed HMAC is as strong as a slow
 * password hash against guessing while staying cheap enough to run on every request (ADR 0002).
 */
export function hashSecret(key: Buffer, secret: string): Buffer {
  return createHmac('sha256', key).update(secret, 'utf8').digest();
}

const ivLength = 12;
const tagLength = 16;

/** AES-256-GCM; layout iv ‖ tag ‖ ciphertext. For secrets that must be recoverable (JWT keys, API keys). */
export function encryptSecret(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(ivLength);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

export function decryptSecret(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivLength));
  decipher.setAuthTag(sealed.subarray(ivLength, ivLength + tagLength));
  return Buffer.concat([decipher.update(sealed.subarray(ivLength + tagLength)), decipher.final()]).toString('utf8');
}

export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/**
 * Seals personal data at rest with the deployment's secret key (AES-256-GCM), and hashes an email
 * address (keyed HMAC, lowercased) so records of one person are found without it being readable.
 */
export function createSealer(key: Buffer): { seal(plaintext: string): Buffer; open(sealed: Buffer): string; hashEmail(email: string): Buffer } {
  return {
    seal: (plaintext) => encryptSecret(key, plaintext),
    open: (sealed) => decryptSecret(key, sealed),
    hashEmail: (email) => hashSecret(key, `email:${email.trim().toLowerCase()}`),
  };
}
