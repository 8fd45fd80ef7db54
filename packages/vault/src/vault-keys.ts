import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The keys of the vault, each derived from VAULT_KEY for one purpose (HKDF-SHA256), so a key that
 * leaks through one use (a MAC, say) says nothing about the others.
 */
export type VaultKeys = { card: Buffer; cvv: Buffer; token: Buffer };

export function deriveVaultKeys(vaultKey: Buffer): VaultKeys {
  if (vaultKey.length !== 32) throw new Error('VAULT_KEY must be 32 bytes');
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', vaultKey, 'quarry-vault', purpose, 32));
  return { card: derive('card aes-256-gcm'), cvv: derive('cvv aes-256-gcm'), token: derive('token mac') };
}

const ivLength = 12;
const tagLength = 16;

/**
 * AES-256-GCM with a fresh nonce per record; layout iv ‖ tag ‖ ciphertext. `boundTo` is the
 * additional data: a sealed card opens only for the row (card and client ids) it was sealed for,
 * so ciphertexts moved between rows do not open.
 */
export function seal(key: Buffer, plaintext: string, boundTo: string): Buffer {
  const iv = randomBytes(ivLength);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the record was sealed under another key or for another row, or was altered. */
export function open(key: Buffer, sealed: Buffer, boundTo: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivLength));
  decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  decipher.setAuthTag(sealed.subarray(ivLength, ivLength + tagLength));
  return Buffer.concat([decipher.update(sealed.subarray(ivLength + tagLength)), decipher.final()]).toString('utf8');
}
