import { randomBytes } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardVault, type CardVaultService } from './card-vault.ts';
import { cardUuid, cardIdOf } from './pan-token.ts';
import { cardRowOf, createVaultKeys, legacyVaultKeys, sealLegacy, type VaultKeySettings } from './vault-keys.ts';
import { resealCards, resealCvvs, vaultKeysStatus } from './vault-rotation.ts';
import { PanTokenInvalidError } from './vault-port.ts';

/**
 * Vault keys with ids (ADR 0062): cards sealed before key ids, and under VAULT_KEY, are re-sealed
 * under a key of VAULT_KEYS, and then open with VAULT_KEY gone; the tokens handed out before keep
 * working; a sealed card copied to another row opens for none.
 */
const oldKey = randomBytes(32);
const newKey = { id: 'k2', material: randomBytes(32) };
const card = { pan: '4242 4242 4242 4242', expiryMonth: 12, expiryYear: 2031, name: 'Ada Lovelace', cvv: '737' };
// What openCard gives back: the number as digits.
const opened = { ...card, pan: '4242424242424242' };
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;

const vaultWith = (keys: VaultKeySettings): CardVaultService =>
  createCardVault({ db, redis, keys, prefix: testRedis.prefix, now: () => new Date('2026-03-10T12:00:00Z') });
const before = () => vaultWith({ vaultKey: oldKey });
const during = () => vaultWith({ vaultKey: oldKey, keys: [newKey], currentKeyId: 'k2' });
// VAULT_KEY out of the environment; the token MAC key is kept (VAULT_TOKEN_KEY, the old VAULT_KEY's value).
const after = () => vaultWith({ keys: [newKey], currentKeyId: 'k2', tokenKey: oldKey });

async function store(vault: CardVaultService, clientId = 'cl_a'): Promise<string> {
  const otp = await vault.issueOtp(clientId);
  return (await vault.storePan(clientId, { otp: otp.id, ...card })).panToken;
}

const cardIdOfToken = (token: string) => cardUuid(cardIdOf(createVaultKeys({ vaultKey: oldKey }).token, token)!.cardId);

/** Rewrites a stored card and its CVV to the layout of before key ids: what the vault stored until now. */
async function toLayoutBeforeKeyIds(token: string, clientId = 'cl_a'): Promise<void> {
  const cardId = cardIdOfToken(token);
  const legacy = legacyVaultKeys(oldKey);
  const { cvv, ...details } = opened;
  await db.query('UPDATE vault_cards SET card_sealed = $2 WHERE card_id = $1', [
    cardId,
    sealLegacy(legacy.card, JSON.stringify(details), cardRowOf(cardId, clientId)),
  ]);
  await redis.set(
    `${testRedis.prefix}:vault:cvv:${cardId}`,
    sealLegacy(legacy.cvv, cvv, cardRowOf(cardId, clientId)).toString('base64'),
    'PX',
    600_000,
  );
}

beforeAll(async () => {
  database = await createTestDatabase('vault-keys');
  testRedis = createTestRedis('vault-keys');
  db = createPool(database.url, 4);
  redis = new Redis(testRedis.url);
  for (const clientId of ['cl_a', 'cl_b']) {
    await db.query(
      `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, $1, '{booking}', $2, $3)`,
      [clientId, randomBytes(32), randomBytes(32)],
    );
  }
});

afterAll(async () => {
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('vault keys', () => {
  it('re-seals cards of before key ids and of VAULT_KEY under the current key; they open, CVV included, once VAULT_KEY is gone', async () => {
    const legacyToken = await store(before());
    await toLayoutBeforeKeyIds(legacyToken);
    const vaultKeyToken = await store(before());
    const keys = createVaultKeys({ vaultKey: oldKey, keys: [newKey], currentKeyId: 'k2' });
    expect(await vaultKeysStatus(db, keys)).toMatchObject({ currentKeyId: 'k2', notCurrent: 2, unused: [] });
    expect((await vaultKeysStatus(db, keys)).cardsByKey).toEqual({ legacy: 1, vault: 1 });
    // Before the rotation, with VAULT_KEY gone, neither opens: what the rotation is for.
    await expect(after().openCard(legacyToken, { bookingId: 'bk_0', clientId: 'cl_a' })).rejects.toThrow(PanTokenInvalidError);

    // Both keys held: the old cards open, a new one is sealed with k2.
    expect(await during().openCard(legacyToken, { bookingId: 'bk_1', clientId: 'cl_a' })).toEqual(opened);
    const newToken = await store(during());
    expect((await vaultKeysStatus(db, keys)).cardsByKey).toEqual({ legacy: 1, vault: 1, k2: 1 });

    expect(await resealCvvs(db, redis, keys, testRedis.prefix)).toEqual({ resealed: 2, unreadable: 0 });
    expect(await resealCards(db, keys, { batchSize: 1 })).toMatchObject({ resealed: 2, unreadable: 0 });
    expect(await vaultKeysStatus(db, keys)).toEqual({
      currentKeyId: 'k2',
      cardsByKey: { k2: 3 },
      notCurrent: 0,
      unused: ['vault', 'legacy'],
    });

    for (const [index, token] of [legacyToken, vaultKeyToken, newToken].entries()) {
      expect(await after().openCard(token, { bookingId: `bk_${10 + index}`, clientId: 'cl_a' })).toEqual(opened);
    }
    // Still the card of cl_a only.
    await expect(after().openCard(legacyToken, { bookingId: 'bk_20', clientId: 'cl_b' })).rejects.toThrow(PanTokenInvalidError);
  });

  it('keeps the CVV clock of a re-sealed CVV and never brings a spent one back', async () => {
    const token = await store(before());
    const spent = await store(before());
    const cardId = cardIdOfToken(token);
    await redis.pexpire(`${testRedis.prefix}:vault:cvv:${cardId}`, 123_000);
    await before().spendCvv(spent, { clientId: 'cl_a' });
    const keys = createVaultKeys({ vaultKey: oldKey, keys: [newKey], currentKeyId: 'k2' });
    await resealCvvs(db, redis, keys, testRedis.prefix);
    const ttl = await redis.pttl(`${testRedis.prefix}:vault:cvv:${cardId}`);
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(123_000);
    expect(await redis.exists(`${testRedis.prefix}:vault:cvv:${cardIdOfToken(spent)}`)).toBe(0);
    expect(keys.keyring.keyIdOf(Buffer.from((await redis.get(`${testRedis.prefix}:vault:cvv:${cardId}`))!, 'base64'))).toBe('k2');
  });

  it('opens a sealed card copied to another row for neither row of its new place', async () => {
    const vault = during();
    const source = await store(vault, 'cl_a');
    const sameClient = await store(vault, 'cl_a');
    const otherClient = await store(vault, 'cl_b');
    for (const target of [sameClient, otherClient]) {
      await db.query('UPDATE vault_cards SET card_sealed = (SELECT card_sealed FROM vault_cards WHERE card_id = $1) WHERE card_id = $2', [
        cardIdOfToken(source),
        cardIdOfToken(target),
      ]);
    }
    await expect(vault.openCard(sameClient, { bookingId: 'bk_30', clientId: 'cl_a' })).rejects.toThrow('cannot be opened');
    await expect(vault.openCard(otherClient, { bookingId: 'bk_31', clientId: 'cl_b' })).rejects.toThrow('cannot be opened');
    // The rotation leaves such a value as it is and counts it.
    const settings = { keys: [{ id: 'k3', material: randomBytes(32) }, newKey], currentKeyId: 'k3', tokenKey: oldKey };
    const result = await resealCards(db, createVaultKeys(settings));
    expect(result.unreadable).toBeGreaterThanOrEqual(2);
    await expect(vaultWith(settings).openCard(sameClient, { bookingId: 'bk_32', clientId: 'cl_a' })).rejects.toThrow('cannot be opened');
    expect(await vaultWith(settings).openCard(source, { bookingId: 'bk_33', clientId: 'cl_a' })).toEqual(opened);
  });

  it('keeps tokens verifying after a rotation only with the token key kept', async () => {
    const token = await store(before());
    await expect(
      vaultWith({ keys: [newKey], currentKeyId: 'k2', tokenKey: randomBytes(32) }).checkCard(token, { clientId: 'cl_a' }),
    ).rejects.toThrow('not issued by this vault');
    await expect(after().checkCard(token, { clientId: 'cl_a' })).resolves.toBeUndefined();
    expect(() => createVaultKeys({ keys: [newKey], currentKeyId: 'k2' })).toThrow(/VAULT_TOKEN_KEY/);
  });
});
