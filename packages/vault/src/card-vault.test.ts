import { randomBytes } from 'node:crypto';
import type { AppError } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardVault, type CardVaultService } from './card-vault.ts';
import { CvvUnavailableError, PanTokenInvalidError } from './vault-port.ts';

const vaultKey = Buffer.alloc(32, 7);
const pan = '4242 4242 4242 4242';
const panDigits = '4242424242424242';
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let clock: Date;
let vault: CardVaultService;

const card = (extra: Record<string, unknown> = {}) => ({
  pan,
  expiryMonth: 12,
  expiryYear: 2031,
  name: 'Ada Lovelace',
  cvv: '737',
  ...extra,
});

async function insertClient(clientId: string): Promise<void> {
  await db.query(`INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, $1, '{booking}', $2, $3)`, [
    clientId,
    randomBytes(32),
    randomBytes(32),
  ]);
}

/** The 400's messages of a refused store. */
async function refusal(promise: Promise<unknown>): Promise<string[]> {
  const error = (await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  )) as AppError | null;
  expect(error?.code).toBe('RequestParametersValidationError');
  return error?.details.messages ?? [];
}

async function stored(clientId = 'cl_a', extra: Record<string, unknown> = {}): Promise<string> {
  const otp = await vault.issueOtp(clientId);
  return (await vault.storePan(clientId, { otp: otp.id, ...card(extra) })).panToken;
}

beforeAll(async () => {
  database = await createTestDatabase('vault');
  testRedis = createTestRedis('vault');
  db = createPool(database.url, 4);
  redis = new Redis(testRedis.url);
  clock = new Date('2026-03-10T12:00:00Z');
  vault = createCardVault({ db, redis, vaultKey, prefix: testRedis.prefix, now: () => clock });
  await insertClient('cl_a');
  await insertClient('cl_b');
});

afterAll(async () => {
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

describe('POST /vault/otp and /vault/pan use cases', () => {
  it('issues an OTP valid for one hour', async () => {
    const otp = await vault.issueOtp('cl_a');
    expect(otp).toEqual({ id: expect.stringMatching(/^otp_[A-Za-z0-9_-]{43}$/), object: 'otp', expiresAt: '2026-03-10T13:00:00.000Z' });
  });

  it('issues a v2 token of 299 characters by default, and a v1 token of 164 on request', async () => {
    const v2 = await stored();
    expect(v2).toMatch(/^v2:[A-Za-z0-9_-]{296}$/);
    expect(v2).toHaveLength(299);
    const v1 = await stored('cl_a', { tokenVersion: 'v1' });
    expect(v1).toMatch(/^[A-Za-z0-9_-]{164}$/);
    expect(vault.isPanTokenShaped(v1) && vault.isPanTokenShaped(v2)).toBe(true);
    expect((await vault.openCard(v1, { bookingId: 'bk_1', clientId: 'cl_a' })).pan).toBe(panDigits);
  });

  it.each([
    ['a PAN failing the Luhn check', { pan: '4242 4242 4242 4241' }, 'pan: is not a card number'],
    ['a PAN too short', { pan: '424242424242' }, 'pan: must be 13 to 19 digits'],
    ['a PAN with letters', { pan: '4242-4242-abcd-4242' }, 'pan: must be 13 to 19 digits'],
    ['a month out of range', { expiryMonth: 13 }, 'expiryMonth: must be a month'],
    ['a two-digit year', { expiryYear: 31 }, 'expiryYear: must be a four-digit year'],
    ['a card expired last year', { expiryMonth: 12, expiryYear: 2025 }, 'expiryYear: the card expired (12/2025'],
    ['a card expired last month', { expiryMonth: 2, expiryYear: 2026 }, 'expiryMonth: the card expired (02/2026'],
    ['no name', { name: '  ' }, 'name: is required'],
    ['a missing name', { name: undefined }, 'name: '],
    ['a CVV of 2 digits', { cvv: '12' }, 'cvv: must be 3 or 4 digits'],
  ])('refuses %s, naming the field, and leaves the OTP unspent', async (_label, change, message) => {
    const otp = await vault.issueOtp('cl_a');
    const messages = await refusal(vault.storePan('cl_a', { otp: otp.id, ...card(change) }));
    expect(messages.join('\n')).toContain(message);
    expect(messages.join('\n')).not.toContain(panDigits.slice(0, 12));
    expect((await vault.storePan('cl_a', { otp: otp.id, ...card() })).panToken).toHaveLength(299);
  });

  it('names every bad field in one refusal, an expired card beside the others', async () => {
    const otp = await vault.issueOtp('cl_a');
    const messages = await refusal(
      vault.storePan('cl_a', {
        otp: otp.id,
        ...card({ pan: '4242 4242 4242 4241', expiryMonth: 1, expiryYear: 2024, name: '', cvv: '1' }),
      }),
    );
    expect(messages).toEqual([
      expect.stringMatching(/^pan: is not a card number/),
      expect.stringMatching(/^name: is required/),
      expect.stringMatching(/^cvv: must be 3 or 4 digits/),
      'expiryYear: the card expired (01/2024 is before this month)',
    ]);
  });

  it('accepts a card expiring this month, and expiry given as digit strings', async () => {
    const otp = await vault.issueOtp('cl_a');
    const { panToken } = await vault.storePan('cl_a', { otp: otp.id, ...card({ expiryMonth: '03', expiryYear: '2026' }) });
    expect(await vault.openCard(panToken, { bookingId: 'bk_2', clientId: 'cl_a' })).toMatchObject({ expiryMonth: 3, expiryYear: 2026 });
  });

  it('refuses a used OTP, an expired one, an unknown one and another client’s', async () => {
    const otp = await vault.issueOtp('cl_a');
    await vault.storePan('cl_a', { otp: otp.id, ...card() });
    expect(await refusal(vault.storePan('cl_a', { otp: otp.id, ...card() }))).toEqual(['otp: already used (each OTP stores one card)']);

    const late = await vault.issueOtp('cl_a');
    const issuedAt = clock;
    clock = new Date(issuedAt.getTime() + 3600_000);
    try {
      expect(await refusal(vault.storePan('cl_a', { otp: late.id, ...card() }))).toEqual(['otp: expired (an OTP is valid for one hour)']);
    } finally {
      clock = issuedAt;
    }

    expect(await refusal(vault.storePan('cl_a', { otp: 'otp_never-issued', ...card() }))).toEqual([
      'otp: unknown (ask POST /vault/otp for one)',
    ]);
    const theirs = await vault.issueOtp('cl_b');
    expect(await refusal(vault.storePan('cl_a', { otp: theirs.id, ...card() }))).toEqual(['otp: unknown (ask POST /vault/otp for one)']);
    // Refused for cl_a, still good for cl_b.
    expect((await vault.storePan('cl_b', { otp: theirs.id, ...card() })).panToken).toHaveLength(299);
  });

  it('stores one card for one OTP when two requests race with it', async () => {
    const otp = await vault.issueOtp('cl_a');
    const results = await Promise.allSettled([
      vault.storePan('cl_a', { otp: otp.id, ...card() }),
      vault.storePan('cl_a', { otp: otp.id, ...card() }),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('openCard and purgeCard (the port bookings use)', () => {
  it('returns the card with its CVV until the order spends it; then the card no longer opens without it (CvvUnavailable)', async () => {
    const token = await stored();
    const withCvv = { pan: panDigits, expiryMonth: 12, expiryYear: 2031, name: 'Ada Lovelace', cvv: '737' };
    // Read, not removed: a run that stops before recording the order leaves it for the next holder.
    expect(await vault.openCard(token, { bookingId: 'bk_3', clientId: 'cl_a' })).toEqual(withCvv);
    expect(await vault.openCard(token, { bookingId: 'bk_3', clientId: 'cl_a' })).toEqual(withCvv);
    await vault.spendCvv(token, { clientId: 'cl_b' });
    expect(await vault.openCard(token, { bookingId: 'bk_3', clientId: 'cl_a' })).toEqual(withCvv);
    await vault.spendCvv(token, { clientId: 'cl_a' });
    await expect(vault.openCard(token, { bookingId: 'bk_3', clientId: 'cl_a' })).rejects.toThrow(CvvUnavailableError);
  });

  it('opens a card stored without a CVV as it is, and fails one whose CVV Redis no longer holds', async () => {
    const without = await stored('cl_a', { cvv: undefined });
    expect(await vault.openCard(without, { bookingId: 'bk_9', clientId: 'cl_a' })).toEqual({
      pan: panDigits,
      expiryMonth: 12,
      expiryYear: 2031,
      name: 'Ada Lovelace',
    });
    const token = await stored('cl_a', { cvv: '4321' });
    const keys = await redis.keys(`${testRedis.prefix}:vault:cvv:*`);
    for (const key of keys) await redis.del(key);
    await expect(vault.openCard(token, { bookingId: 'bk_9', clientId: 'cl_a' })).rejects.toThrow(CvvUnavailableError);
  });

  it('restarts the CVV clock when a booking takes the card (holdCvv), for the card owner only, and never brings a CVV back', async () => {
    const short = createCardVault({ db, redis, vaultKey, prefix: testRedis.prefix, now: () => clock, cvvTtlMs: 60_000 });
    const otp = await short.issueOtp('cl_a');
    const token = (await short.storePan('cl_a', { otp: otp.id, ...card({ cvv: '2468' }) })).panToken;
    const key = async () => {
      for (const candidate of await redis.keys(`${testRedis.prefix}:vault:cvv:*`)) {
        if ((await redis.pttl(candidate)) <= 60_000) return candidate;
      }
      throw new Error('no CVV stored with the short TTL');
    };
    const cvvKey = await key();
    await short.holdCvv(token, { clientId: 'cl_b' }, 3_600_000);
    expect(await redis.pttl(cvvKey)).toBeLessThanOrEqual(60_000);
    await short.holdCvv(token, { clientId: 'cl_a' }, 3_600_000);
    expect(await redis.pttl(cvvKey)).toBeGreaterThan(3_500_000);
    await redis.del(cvvKey);
    await short.holdCvv(token, { clientId: 'cl_a' }, 3_600_000);
    expect(await redis.exists(cvvKey)).toBe(0);
  });

  it('keeps the CVV in Redis only, sealed, with a TTL of at most 15 minutes', async () => {
    await stored('cl_a', { cvv: '9731' });
    const keys = await redis.keys(`${testRedis.prefix}:vault:cvv:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(15 * 60_000);
      expect(await redis.get(key)).not.toContain('9731');
    }
  });

  it('refuses a token of another client, and does not let that client purge it', async () => {
    const token = await stored('cl_a');
    await expect(vault.openCard(token, { bookingId: 'bk_4', clientId: 'cl_b' })).rejects.toThrow(PanTokenInvalidError);
    await vault.purgeCard(token, { clientId: 'cl_b' });
    expect(await vault.openCard(token, { bookingId: 'bk_4', clientId: 'cl_a' })).toMatchObject({ pan: panDigits, cvv: '737' });
  });

  it('refuses an altered token, a v1-shaped token it did not issue, and anything not token-shaped', async () => {
    const token = await stored();
    const altered = `${token.slice(0, 100)}${token[100] === 'A' ? 'B' : 'A'}${token.slice(101)}`;
    const foreignV1 = `${'Ab+/'.repeat(40)}AbCd`;
    expect(vault.isPanTokenShaped(foreignV1)).toBe(true);
    for (const bad of [altered, foreignV1, 'v2:short', `${token}A`]) {
      await expect(vault.openCard(bad, { bookingId: 'bk_5', clientId: 'cl_a' })).rejects.toThrow(PanTokenInvalidError);
    }
    expect(vault.isPanTokenShaped('v2:short')).toBe(false);
  });

  it('removes the card and its CVV on purge; a later open is PanTokenInvalid; purging again is a no-op', async () => {
    const token = await stored();
    const cvvKeysBefore = await redis.keys(`${testRedis.prefix}:vault:cvv:*`);
    await vault.purgeCard(token, { clientId: 'cl_a' });
    await expect(vault.openCard(token, { bookingId: 'bk_6', clientId: 'cl_a' })).rejects.toThrow(PanTokenInvalidError);
    expect((await redis.keys(`${testRedis.prefix}:vault:cvv:*`)).length).toBe(cvvKeysBefore.length - 1);
    await vault.purgeCard(token, { clientId: 'cl_a' });
    await vault.purgeCard('not a token', { clientId: 'cl_a' });
  });

  it('refuses a card past its retention', async () => {
    const token = await stored();
    const storedAt = clock;
    clock = new Date(storedAt.getTime() + 24 * 3600_000);
    try {
      await expect(vault.openCard(token, { bookingId: 'bk_7', clientId: 'cl_a' })).rejects.toThrow(PanTokenInvalidError);
    } finally {
      clock = storedAt;
    }
  });

  it('refuses every token under another VAULT_KEY', async () => {
    const token = await stored();
    const otherKey = createCardVault({ db, redis, vaultKey: Buffer.alloc(32, 8), prefix: testRedis.prefix, now: () => clock });
    await expect(otherKey.openCard(token, { bookingId: 'bk_8', clientId: 'cl_a' })).rejects.toThrow('not issued by this vault');
  });
});

describe('at rest', () => {
  it('keeps no PAN, name or token readable in any text or bytea column of the database', async () => {
    const tokens = [await stored(), await stored('cl_a', { tokenVersion: 'v1' })];
    const columns = await db.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('text', 'bytea', 'character varying', 'jsonb', 'json', 'ARRAY')`,
    );
    const everything: string[] = [];
    for (const { table_name: table, column_name: column } of columns.rows) {
      const rows = await db.query<{ value: string | null }>(`SELECT ${column}::text AS value FROM ${table}`);
      for (const row of rows.rows) if (row.value !== null) everything.push(row.value);
    }
    const dump = everything.join('\n');
    expect(dump.length).toBeGreaterThan(0);
    expect(dump).not.toContain(panDigits);
    expect(dump).not.toContain(Buffer.from(panDigits).toString('hex'));
    expect(dump).not.toContain('Ada Lovelace');
    for (const token of tokens) {
      expect(dump).not.toContain(token.replace(/^v2:/, '').slice(22, 80));
      expect(dump).not.toContain(Buffer.from(token.slice(30, 60)).toString('hex'));
    }
  });
});
