import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createKeyring, KeyringError, type Keyring, type KeyringKey, type SealedColumn, type SealedFor } from '@quarry/keyring';

/**
 * The vault's keys as the environment gives them (ADR 0062): VAULT_KEY (the key of before key ids,
 * still a key of the vault under the id `vault`), VAULT_KEYS (`id:base64key`, comma separated),
 * VAULT_CURRENT_KEY_ID (the key new cards and CVVs are sealed with) and VAULT_TOKEN_KEY (the MAC
 * key of card tokens; defaults to VAULT_KEY).
 */
export type VaultKeySettings = {
  vaultKey?: Buffer | undefined;
  keys?: readonly KeyringKey[] | undefined;
  currentKeyId?: string | undefined;
  tokenKey?: Buffer | undefined;
};

/** The vault settings as the config gives them (VAULT_KEY, VAULT_KEYS, VAULT_CURRENT_KEY_ID, VAULT_TOKEN_KEY). */
type ConfiguredVaultKeys = {
  key: Buffer | undefined;
  keys: readonly KeyringKey[];
  currentKeyId: string | undefined;
  tokenKey: Buffer | undefined;
};

/** Whether the deployment has a vault: VAULT_KEY or VAULT_KEYS is set. */
export const hasVaultKeys = (vault: ConfiguredVaultKeys): boolean => vault.key !== undefined || vault.keys.length > 0;

export const vaultKeySettingsOf = (vault: ConfiguredVaultKeys): VaultKeySettings => ({
  vaultKey: vault.key,
  keys: vault.keys,
  currentKeyId: vault.currentKeyId,
  tokenKey: vault.tokenKey,
});

/** The id of the key derived from VAULT_KEY: what a vault without VAULT_KEYS seals with. */
export const vaultKeyId = 'vault';

/** The stored column of sealed cards, as the keyring's re-sealing walks it (never in `sealedColumns`: other keys). */
export const vaultCardColumn = {
  purpose: 'vault.card',
  table: 'vault_cards',
  column: 'card_sealed',
  // The card and client ids: a card opens for the row it was stored in, of the client that stored it.
  rowKey: "card_id::text || '|' || client_id",
} as const satisfies SealedColumn;

/** The row a sealed card or CVV belongs to (what `vaultCardColumn.rowKey` computes in SQL). */
export const cardRowOf = (cardId: string, clientId: string): string => `${cardId}|${clientId}`;

const cvvSealedFor = (row: string): SealedFor => ({ table: 'redis', column: 'vault:cvv', row });
const cardSealedFor = (row: string): SealedFor => ({ table: vaultCardColumn.table, column: vaultCardColumn.column, row });

/** What the vault seals and opens with, and the key its tokens are made and checked with. */
export type VaultKeys = {
  /** A keyring over the vault's keys; `open` also opens the values sealed before key ids (under VAULT_KEY). */
  keyring: Keyring;
  /** The ids of the keys the vault reads: `legacy` for the values of before key ids, when VAULT_KEY is given. */
  readableKeyIds: readonly string[];
  /** The MAC key of card tokens: fixed across rotations, so a token handed out keeps working. */
  token: Buffer;
  sealCard(cardId: string, clientId: string, card: string): Buffer;
  openCard(cardId: string, clientId: string, sealed: Buffer): string;
  sealCvv(cardId: string, clientId: string, cvv: string): Buffer;
  openCvv(cardId: string, clientId: string, sealed: Buffer): string;
};

const deriveFrom = (key: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', key, 'quarry-vault', purpose, 32));

/**
 * The vault's keys. Each key of the ring is used through keys derived for one purpose (card, CVV),
 * and sealed values carry the key id, so several keys open at once while a rotation re-seals the
 * cards. Values of before key ids were sealed under keys derived from VAULT_KEY, bound to the row
 * as `cardId|clientId`: they still open as long as VAULT_KEY is given. The token MAC key is derived
 * from VAULT_TOKEN_KEY, or VAULT_KEY when it is unset, exactly as before key ids.
 */
export function createVaultKeys(settings: VaultKeySettings): VaultKeys {
  const { vaultKey } = settings;
  if (vaultKey && vaultKey.length !== 32) throw new KeyringError('VAULT_KEY must be 32 bytes');
  if (settings.tokenKey && settings.tokenKey.length !== 32) throw new KeyringError('VAULT_TOKEN_KEY must be 32 bytes');
  const keys: KeyringKey[] = [...(settings.keys ?? [])];
  if (keys.some((key) => key.id === vaultKeyId))
    throw new KeyringError(`key id "${vaultKeyId}" is the key derived from VAULT_KEY: give another id`);
  if (vaultKey) keys.push({ id: vaultKeyId, material: deriveFrom(vaultKey, 'keyring key') });
  const currentKeyId = settings.currentKeyId ?? (settings.keys?.length ? undefined : vaultKeyId);
  if (currentKeyId === undefined) throw new KeyringError('VAULT_CURRENT_KEY_ID must name the key of VAULT_KEYS new cards are sealed with');
  if (keys.length === 0) throw new KeyringError('the vault has no key: set VAULT_KEY or VAULT_KEYS');
  const tokenKeyMaterial = settings.tokenKey ?? vaultKey;
  if (!tokenKeyMaterial)
    throw new KeyringError('VAULT_TOKEN_KEY is required when VAULT_KEY is not given: the key card tokens are made and checked with');
  const ring = createKeyring({ keys, currentKeyId });
  const legacy = vaultKey ? { card: deriveFrom(vaultKey, 'card aes-256-gcm'), cvv: deriveFrom(vaultKey, 'cvv aes-256-gcm') } : undefined;
  const legacyKeyOf = (purpose: string) =>
    purpose === vaultCardColumn.purpose ? legacy?.card : purpose === 'vault.cvv' ? legacy?.cvv : undefined;

  // A Keyring, so the keyring's re-sealing and counting walk the vault's column as they walk the others.
  const keyring: Keyring = {
    currentKeyId,
    seal: (purpose, plaintext, sealedFor) => ring.seal(purpose, plaintext, sealedFor),
    open(purpose, sealed, sealedFor) {
      const legacyKey = legacyKeyOf(purpose);
      if (ring.keyIdOf(sealed) === null) {
        if (!legacyKey) throw new KeyringError('the value was sealed before key ids, under VAULT_KEY, which is not given');
        return openLegacy(legacyKey, sealed, sealedFor.row);
      }
      try {
        return ring.open(purpose, sealed, sealedFor);
      } catch (error) {
        // A value of before key ids whose random nonce happens to begin like a key id (one in 2^24).
        if (legacyKey) {
          try {
            return openLegacy(legacyKey, sealed, sealedFor.row);
          } catch {
            // Neither: report the keyring's failure.
          }
        }
        throw error;
      }
    },
    keyIdOf: (sealed) => ring.keyIdOf(sealed),
  };
  return {
    keyring,
    readableKeyIds: [...keys.map((key) => key.id), ...(legacy ? ['legacy'] : [])],
    token: deriveFrom(tokenKeyMaterial, 'token mac'),
    sealCard: (cardId, clientId, card) => keyring.seal(vaultCardColumn.purpose, card, cardSealedFor(cardRowOf(cardId, clientId))),
    openCard: (cardId, clientId, sealed) =>
      keyring.open(vaultCardColumn.purpose, sealed, cardSealedFor(cardRowOf(cardId, clientId))).toString('utf8'),
    sealCvv: (cardId, clientId, cvv) => keyring.seal('vault.cvv', cvv, cvvSealedFor(cardRowOf(cardId, clientId))),
    openCvv: (cardId, clientId, sealed) => keyring.open('vault.cvv', sealed, cvvSealedFor(cardRowOf(cardId, clientId))).toString('utf8'),
  };
}

const ivLength = 12;
const tagLength = 16;

/**
 * The layout of before key ids: AES-256-GCM, iv ‖ tag ‖ ciphertext, the row (`cardId|clientId`) as
 * the additional data. Kept to seal test fixtures of that layout and to open such values.
 */
export function sealLegacy(key: Buffer, plaintext: string, boundTo: string): Buffer {
  const iv = randomBytes(ivLength);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the record was sealed under another key or for another row, or was altered. */
function openLegacy(key: Buffer, sealed: Buffer, boundTo: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, ivLength));
  decipher.setAAD(Buffer.from(boundTo, 'utf8'));
  decipher.setAuthTag(sealed.subarray(ivLength, ivLength + tagLength));
  return Buffer.concat([decipher.update(sealed.subarray(ivLength + tagLength)), decipher.final()]);
}

/** The card and CVV keys of before key ids, derived from VAULT_KEY (what `sealLegacy` seals with in tests). */
export const legacyVaultKeys = (vaultKey: Buffer) => ({
  card: deriveFrom(vaultKey, 'card aes-256-gcm'),
  cvv: deriveFrom(vaultKey, 'cvv aes-256-gcm'),
});
