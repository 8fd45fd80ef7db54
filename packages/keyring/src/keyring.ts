import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A key of the keyring: its id (stored in every value it seals) and 32 random bytes. */
export type KeyringKey = { id: string; material: Buffer };

/** What a sealed value belongs to: it opens for that table, column and row only. */
export type SealedFor = { table: string; column: string; row: string };

export type Keyring = {
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;
  /** AES-256-GCM under the current key's key for `purpose`, bound to `sealedFor`, the key id in the value. */
  seal(purpose: string, plaintext: Buffer | string, sealedFor: SealedFor): Buffer;
  /** Opens a value of any key of the ring (or, when given, one sealed the old way with the legacy key). */
  open(purpose: string, sealed: Buffer, sealedFor: SealedFor): Buffer;
  /** The key id a value was sealed with; `null` for a value sealed the old way (no key id). */
  keyIdOf(sealed: Buffer): string | null;
};

export class KeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyringError';
  }
}

// "QK1": a keyring value, format 1. A value without it is the old layout (iv ‖ tag ‖ ciphertext).
const magic = Buffer.from('QK1', 'latin1');
const ivLength = 12;
const tagLength = 16;
const keyIdPattern = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * A key per purpose (`bookings.details`, `applications.candidate`, …) derived from each key with
 * HKDF-SHA256, so one key's use for one purpose says nothing of another. Values carry the id of
 * the key that sealed them, so several keys can be read at once while a rotation re-seals rows.
 * The additional data names the purpose, table, column and row, and the value's own header: a
 * value copied to another row, column or purpose, or given another key id, does not open.
 */
export function createKeyring(options: { keys: readonly KeyringKey[]; currentKeyId: string; legacyKey?: Buffer }): Keyring {
  const keys = new Map<string, Buffer>();
  for (const key of options.keys) {
    if (!keyIdPattern.test(key.id)) throw new KeyringError(`key id "${key.id}": use 1 to 32 lower-case letters, digits and dashes`);
    if (key.material.length !== 32) throw new KeyringError(`key ${key.id}: must be 32 bytes`);
    if (keys.has(key.id)) throw new KeyringError(`key ${key.id}: given twice`);
    keys.set(key.id, key.material);
  }
  if (!keys.has(options.currentKeyId)) throw new KeyringError(`the current key ${options.currentKeyId} is not in the keyring`);
  const derived = new Map<string, Buffer>();
  const keyFor = (keyId: string, purpose: string): Buffer => {
    const name = `${keyId}\0${purpose}`;
    let key = derived.get(name);
    if (!key) {
      const material = keys.get(keyId);
      if (!material) throw new KeyringError(`sealed with key ${keyId}, which the keyring no longer holds`);
      key = Buffer.from(hkdfSync('sha256', material, 'quarry-keyring', purpose, 32));
      derived.set(name, key);
    }
    return key;
  };
  const additionalData = (purpose: string, sealedFor: SealedFor, header: Buffer) =>
    Buffer.concat([header, Buffer.from([purpose, sealedFor.table, sealedFor.column, sealedFor.row].join('\0'), 'utf8')]);
  const headerOf = (keyId: string) => Buffer.concat([magic, Buffer.from([keyId.length]), Buffer.from(keyId, 'latin1')]);
  const parse = (sealed: Buffer): { keyId: string; header: Buffer } | null => {
    if (sealed.length < magic.length + 1 || !sealed.subarray(0, magic.length).equals(magic)) return null;
    const idLength = sealed[magic.length] ?? 0;
    const keyId = sealed.subarray(magic.length + 1, magic.length + 1 + idLength).toString('latin1');
    if (!keyIdPattern.test(keyId) || sealed.length < magic.length + 1 + idLength + ivLength + tagLength) return null;
    return { keyId, header: sealed.subarray(0, magic.length + 1 + idLength) };
  };
  const openLegacy = (sealed: Buffer): Buffer => {
    if (!options.legacyKey) throw new KeyringError('the value has no key id and no legacy key is given');
    const decipher = createDecipheriv('aes-256-gcm', options.legacyKey, sealed.subarray(0, ivLength));
    decipher.setAuthTag(sealed.subarray(ivLength, ivLength + tagLength));
    return Buffer.concat([decipher.update(sealed.subarray(ivLength + tagLength)), decipher.final()]);
  };
  return {
    currentKeyId: options.currentKeyId,
    seal(purpose, plaintext, sealedFor) {
      const header = headerOf(options.currentKeyId);
      const iv = randomBytes(ivLength);
      const cipher = createCipheriv('aes-256-gcm', keyFor(options.currentKeyId, purpose), iv);
      cipher.setAAD(additionalData(purpose, sealedFor, header));
      const ciphertext = Buffer.concat([
        cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext),
        cipher.final(),
      ]);
      return Buffer.concat([header, iv, cipher.getAuthTag(), ciphertext]);
    },
    open(purpose, sealed, sealedFor) {
      const parsed = parse(sealed);
      if (!parsed) return openLegacy(sealed);
      const body = sealed.subarray(parsed.header.length);
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(parsed.keyId, purpose), body.subarray(0, ivLength));
        decipher.setAAD(additionalData(purpose, sealedFor, parsed.header));
        decipher.setAuthTag(body.subarray(ivLength, ivLength + tagLength));
        return Buffer.concat([decipher.update(body.subarray(ivLength + tagLength)), decipher.final()]);
      } catch (error) {
        // An old-layout value whose random nonce happens to begin with the magic (one in 2^24).
        if (options.legacyKey) {
          try {
            return openLegacy(sealed);
          } catch {
            // Neither: report the keyring's failure.
          }
        }
        if (error instanceof KeyringError) throw error;
        throw new KeyringError(
          `the value does not open for ${purpose} ${sealedFor.table}.${sealedFor.column} ${sealedFor.row} (altered, or sealed for another row)`,
        );
      }
    },
    keyIdOf: (sealed) => parse(sealed)?.keyId ?? null,
  };
}
