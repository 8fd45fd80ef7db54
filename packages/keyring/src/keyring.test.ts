import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring, KeyringError } from './keyring.ts';

const k1 = { id: 'k1', material: Buffer.alloc(32, 1) };
const k2 = { id: 'k2', material: Buffer.alloc(32, 2) };
const row = { table: 'bookings', column: 'details_sealed', row: '6f1c2f44-0000-4000-8000-000000000001' };

/** A value as `encryptSecret` sealed it before the keyring: iv ‖ tag ‖ ciphertext under the raw key, no additional data. */
function sealedTheOldWay(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

describe('createKeyring', () => {
  it('seals with the current key, names it in the value, and opens it for the same purpose, table, column and row', () => {
    const keyring = createKeyring({ keys: [k1], currentKeyId: 'k1' });
    const sealed = keyring.seal('bookings.details', 'Ada Lovelace', row);
    expect(keyring.keyIdOf(sealed)).toBe('k1');
    expect(sealed.includes(Buffer.from('Ada'))).toBe(false);
    expect(keyring.open('bookings.details', sealed, row).toString()).toBe('Ada Lovelace');
  });

  it('does not open a value moved to another row, column, table or purpose, or given another key id', () => {
    const keyring = createKeyring({ keys: [k1, k2], currentKeyId: 'k1' });
    const sealed = keyring.seal('bookings.details', 'Ada Lovelace', row);
    expect(() => keyring.open('bookings.details', sealed, { ...row, row: 'another' })).toThrow(KeyringError);
    expect(() => keyring.open('bookings.details', sealed, { ...row, column: 'pan_token_sealed' })).toThrow(KeyringError);
    expect(() => keyring.open('bookings.details', sealed, { ...row, table: 'applications' })).toThrow(KeyringError);
    expect(() => keyring.open('applications.candidate', sealed, row)).toThrow(KeyringError);
    const relabelled = Buffer.from(sealed);
    relabelled.write('k2', 4, 'latin1');
    expect(() => keyring.open('bookings.details', relabelled, row)).toThrow(KeyringError);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] = (altered[altered.length - 1] ?? 0) ^ 1;
    expect(() => keyring.open('bookings.details', altered, row)).toThrow(KeyringError);
  });

  it('derives a key per purpose: the same plaintext under two purposes shares nothing', () => {
    const keyring = createKeyring({ keys: [k1], currentKeyId: 'k1' });
    const a = keyring.seal('a', 'same', row);
    const b = keyring.seal('b', 'same', row);
    expect(a.subarray(6)).not.toEqual(b.subarray(6));
    expect(keyring.open('b', b, row).toString()).toBe('same');
  });

  it('reads every key it holds while sealing with the current one: a rotation re-seals, then the old key goes', () => {
    const before = createKeyring({ keys: [k1], currentKeyId: 'k1' });
    const old = before.seal('bookings.details', 'kept', row);
    const during = createKeyring({ keys: [k1, k2], currentKeyId: 'k2' });
    expect(during.open('bookings.details', old, row).toString()).toBe('kept');
    const resealed = during.seal('bookings.details', during.open('bookings.details', old, row), row);
    expect(during.keyIdOf(resealed)).toBe('k2');
    const after = createKeyring({ keys: [k2], currentKeyId: 'k2' });
    expect(after.open('bookings.details', resealed, row).toString()).toBe('kept');
    expect(() => after.open('bookings.details', old, row)).toThrow(/sealed with key k1, which the keyring no longer holds/);
  });

  it('opens values sealed the old way (no key id) with the legacy key, so they can be re-sealed', () => {
    const legacyKey = Buffer.alloc(32, 9);
    const keyring = createKeyring({ keys: [k1], currentKeyId: 'k1', legacyKey });
    const old = sealedTheOldWay(legacyKey, 'from before');
    expect(keyring.keyIdOf(old)).toBeNull();
    expect(keyring.open('bookings.details', old, row).toString()).toBe('from before');
    expect(() => createKeyring({ keys: [k1], currentKeyId: 'k1' }).open('bookings.details', old, row)).toThrow(
      /no key id and no legacy key/,
    );
  });

  it('refuses a keyring it cannot use, naming the key', () => {
    expect(() => createKeyring({ keys: [k1], currentKeyId: 'k2' })).toThrow(/current key k2 is not in the keyring/);
    expect(() => createKeyring({ keys: [{ id: 'K 1', material: k1.material }], currentKeyId: 'K 1' })).toThrow(/key id "K 1"/);
    expect(() => createKeyring({ keys: [{ id: 'k1', material: Buffer.alloc(16) }], currentKeyId: 'k1' })).toThrow(/k1: must be 32 bytes/);
    expect(() => createKeyring({ keys: [k1, k1], currentKeyId: 'k1' })).toThrow(/k1: given twice/);
  });
});
