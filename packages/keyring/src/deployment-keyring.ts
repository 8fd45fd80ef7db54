import { createHmac, hkdfSync } from 'node:crypto';
import { createKeyring, KeyringError, type Keyring, type KeyringKey } from './keyring.ts';
import type { SealedColumn } from './sealed-columns.ts';

/**
 * The keyring's settings as the environment gives them: QUARRY_KEYS, QUARRY_CURRENT_KEY_ID,
 * QUARRY_SECRET_KEY, QUARRY_OPEN_SECRET_KEY_SEALS (ADR 0059).
 */
export type KeyringSettings = {
  secretKey?: Buffer | undefined;
  keys?: readonly KeyringKey[] | undefined;
  currentKeyId?: string | undefined;
  /** Default true: the key derived from QUARRY_SECRET_KEY and the old layout under it stay readable. */
  openSecretKeySeals?: boolean | undefined;
};

/** The id of the key derived from QUARRY_SECRET_KEY: what a deployment without QUARRY_KEYS seals with. */
export const secretKeyId = 'secret';

/**
 * The deployment's keyring. With QUARRY_SECRET_KEY only, it seals with a key derived from it
 * (HKDF, id `secret`), and opens values sealed before the keyring (no key id) with it as the
 * legacy key. QUARRY_KEYS adds keys, QUARRY_CURRENT_KEY_ID names the one new values are sealed
 * with; once no row uses `secret` or the old layout any more, QUARRY_OPEN_SECRET_KEY_SEALS=false
 * drops both, so QUARRY_SECRET_KEY then only keys the lookup hashes.
 */
export function createDeploymentKeyring(settings: KeyringSettings): Keyring {
  const openSecretKeySeals = settings.openSecretKeySeals ?? true;
  const keys: KeyringKey[] = [...(settings.keys ?? [])];
  if (keys.some((key) => key.id === secretKeyId))
    throw new KeyringError(`key id "${secretKeyId}" is the key derived from QUARRY_SECRET_KEY: give another id`);
  if (settings.secretKey && openSecretKeySeals) {
    keys.push({
      id: secretKeyId,
      material: Buffer.from(hkdfSync('sha256', settings.secretKey, 'quarry-keyring-secret-key', 'keyring key', 32)),
    });
  }
  const currentKeyId = settings.currentKeyId ?? (settings.keys?.length ? undefined : secretKeyId);
  if (currentKeyId === undefined)
    throw new KeyringError('QUARRY_CURRENT_KEY_ID must name the key of QUARRY_KEYS new values are sealed with');
  if (keys.length === 0)
    throw new KeyringError('no key to seal with: set QUARRY_KEYS, or QUARRY_SECRET_KEY with QUARRY_OPEN_SECRET_KEY_SEALS not false');
  return createKeyring({ keys, currentKeyId, ...(settings.secretKey && openSecretKeySeals ? { legacyKey: settings.secretKey } : {}) });
}

/** Seals and opens the values of one sealed column, each bound to its row. */
export type ColumnSealer = {
  seal(column: SealedColumn, row: string, plaintext: string): Buffer;
  open(column: SealedColumn, row: string, sealed: Buffer): string;
};

/** A column sealer, and the keyed hash of an e-mail address that finds a candidate's rows. */
export type Sealer = ColumnSealer & { hashEmail(email: string): Buffer };

/**
 * The at-rest sealer of a deployment. `lookupKey` (QUARRY_SECRET_KEY) keys the e-mail hash, kept
 * as before the keyring so it still matches the stored hashes; the keyring defaults to the one a
 * deployment with only QUARRY_SECRET_KEY has.
 */
/** Where a value of `column` in `row` is bound to (`SealedFor` of the keyring). */
export const sealedForOf = (column: SealedColumn, row: string) => ({ table: column.table, column: column.boundTo ?? column.column, row });

export function createSealer(lookupKey: Buffer | undefined, keyring: Keyring = createDeploymentKeyring({ secretKey: lookupKey })): Sealer {
  return {
    seal: (column, row, plaintext) => keyring.seal(column.purpose, plaintext, sealedForOf(column, row)),
    open: (column, row, sealed) => keyring.open(column.purpose, sealed, sealedForOf(column, row)).toString('utf8'),
    hashEmail: (email) => {
      if (!lookupKey) throw new KeyringError('hashing an e-mail address needs QUARRY_SECRET_KEY');
      return createHmac('sha256', lookupKey).update(`email:${email.trim().toLowerCase()}`, 'utf8').digest();
    },
  };
}
