import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * The at-rest sealing of candidates' data as `createSealer` in packages/auth builds it (AES-256-GCM,
 * iv and tag in front; a keyed hash for e-mails), for tests of packages that take a sealer as a
 * port and do not depend on auth.
 */
export function createTestSealer(key: Buffer): { seal(text: string): Buffer; open(sealed: Buffer): string; hashEmail(email: string): Buffer } {
  return {
    seal: (text) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    open: (sealed) => {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    },
    hashEmail: (email) => createHmac('sha256', key).update(email.toLowerCase()).digest(),
  };
}
