import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDeploymentKeyring, createSealer, secretKeyId } from './deployment-keyring.ts';
import { KeyringError } from './keyring.ts';
import { sealedColumns } from './sealed-columns.ts';

const secretKey = Buffer.alloc(32, 4);
const k2 = { id: 'k2', material: Buffer.alloc(32, 2) };
const bookingId = '6f1c2f44-0000-4000-8000-000000000001';

/** A value as the deployment sealed it before the keyring: AES-256-GCM under QUARRY_SECRET_KEY itself, iv ‖ tag ‖ ciphertext. */
function sealedBeforeTheKeyring(plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

describe('createDeploymentKeyring', () => {
  it('with QUARRY_SECRET_KEY alone, seals with the key derived from it (not the raw key) and still opens the old layout', () => {
    const sealer = createSealer(secretKey);
    const sealed = sealer.seal(sealedColumns.bookingDetails, bookingId, '{"guest":"Ada"}');
    expect(createDeploymentKeyring({ secretKey }).keyIdOf(sealed)).toBe(secretKeyId);
    expect(sealer.open(sealedColumns.bookingDetails, bookingId, sealed)).toBe('{"guest":"Ada"}');
    expect(sealer.open(sealedColumns.bookingDetails, bookingId, sealedBeforeTheKeyring('from before'))).toBe('from before');
  });

  it('adds QUARRY_KEYS: seals with the current one, opens values of the secret key until QUARRY_OPEN_SECRET_KEY_SEALS=false', () => {
    const before = createSealer(secretKey);
    const old = before.seal(sealedColumns.bookingPanToken, bookingId, 'v2:token');
    const legacy = sealedBeforeTheKeyring('v2:older');
    const keyring = createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: 'k2' });
    const during = createSealer(secretKey, keyring);
    expect(during.open(sealedColumns.bookingPanToken, bookingId, old)).toBe('v2:token');
    expect(during.open(sealedColumns.bookingPanToken, bookingId, legacy)).toBe('v2:older');
    const resealed = during.seal(sealedColumns.bookingPanToken, bookingId, 'v2:token');
    expect(keyring.keyIdOf(resealed)).toBe('k2');
    const after = createSealer(
      secretKey,
      createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: 'k2', openSecretKeySeals: false }),
    );
    expect(after.open(sealedColumns.bookingPanToken, bookingId, resealed)).toBe('v2:token');
    expect(() => after.open(sealedColumns.bookingPanToken, bookingId, old)).toThrow(/key secret, which the keyring no longer holds/);
    expect(() => after.open(sealedColumns.bookingPanToken, bookingId, legacy)).toThrow(/no legacy key/);
  });

  it('stages a key before it seals: QUARRY_CURRENT_KEY_ID=secret with QUARRY_KEYS reads both and seals as before', () => {
    const staged = createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: secretKeyId });
    expect(staged.currentKeyId).toBe(secretKeyId);
    const next = createSealer(secretKey, createDeploymentKeyring({ secretKey, keys: [k2], currentKeyId: 'k2' }));
    const sealed = next.seal(sealedColumns.callbackSecret, 'cl_1', 'whsec_x');
    expect(createSealer(secretKey, staged).open(sealedColumns.callbackSecret, 'cl_1', sealed)).toBe('whsec_x');
  });

  it('refuses what it cannot seal with', () => {
    expect(() => createDeploymentKeyring({})).toThrow(KeyringError);
    expect(() => createDeploymentKeyring({ keys: [k2] })).toThrow(/QUARRY_CURRENT_KEY_ID/);
    expect(() => createDeploymentKeyring({ secretKey, keys: [{ id: 'secret', material: k2.material }], currentKeyId: 'secret' })).toThrow(
      /derived from QUARRY_SECRET_KEY/,
    );
  });
});

describe('createSealer', () => {
  it('keeps the e-mail hash of before the keyring, so stored hashes still match', () => {
    const expected = createHmac('sha256', secretKey).update('email:ada@example.com', 'utf8').digest();
    expect(createSealer(secretKey).hashEmail(' Ada@Example.com ').equals(expected)).toBe(true);
  });

  it('binds a value to its row and column: copied to another booking or column it does not open', () => {
    const sealer = createSealer(secretKey);
    const sealed = sealer.seal(sealedColumns.bookingPanToken, bookingId, 'v2:token');
    expect(() => sealer.open(sealedColumns.bookingPanToken, '6f1c2f44-0000-4000-8000-000000000002', sealed)).toThrow(KeyringError);
    expect(() => sealer.open(sealedColumns.bookingDetails, bookingId, sealed)).toThrow(KeyringError);
  });

  it('opens a previous callback secret, moved from secret_sealed by SQL, as the value of secret_sealed it was', () => {
    const sealer = createSealer(secretKey);
    const sealed = sealer.seal(sealedColumns.callbackSecret, 'cl_1', 'whsec_old');
    expect(sealer.open(sealedColumns.callbackPreviousSecret, 'cl_1', sealed)).toBe('whsec_old');
  });
});
