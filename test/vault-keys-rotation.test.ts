import { randomBytes } from 'node:crypto';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createRedis } from '@quarry/jobs';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startOpenTravelHotel,
  waitFor,
  type OpenTravelHotel,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { cardRowOf, legacyVaultKeys, sealLegacy } from '@quarry/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuarry, startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * A vault key rotation while the service runs (ADR 0062): cards stored under VAULT_KEY, some in the
 * layout of before key ids, are re-sealed by `quarry vault rotate`, a real process, while real
 * `api` and `bookings-worker` processes store cards and book with them; then VAULT_KEY leaves the
 * environment (VAULT_TOKEN_KEY keeps the tokens' MAC key) and a card stored before the rotation
 * still pays for a booking, CVV included.
 */
const secretKey = randomBytes(32);
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
// A Luhn-valid test number found nowhere else in this suite, so a hit below is this card.
const card = { pan: '5105105105105100', expiryMonth: 11, expiryYear: 2032, name: 'Dorothy Vaughan', cvv: '482' };
const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const details = { mainGuest: { firstName: 'Ada', lastName: 'Lovelace' }, contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' } };
type Status = { stage: string; state: string; error: { code: string } | null; finalPrice: unknown };
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let hotel: OpenTravelHotel;
let api: QuarryProcess;
let worker: QuarryProcess;
let booker: { clientId: string; secret: string };
let baseEnv: Record<string, string>;

// Before: VAULT_KEY alone. During: k2 added and current. After: VAULT_KEY gone, its value kept as the token MAC key only.
const beforeEnv = () => ({ ...baseEnv, VAULT_KEY: oldKey.toString('base64') });
const duringEnv = () => ({ ...beforeEnv(), VAULT_KEYS: `k2:${newKey.toString('base64')}`, VAULT_CURRENT_KEY_ID: 'k2' });
const afterEnv = () => ({
  ...baseEnv,
  VAULT_KEYS: `k2:${newKey.toString('base64')}`,
  VAULT_CURRENT_KEY_ID: 'k2',
  VAULT_TOKEN_KEY: oldKey.toString('base64'),
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${booker.secret}:`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: (text ? JSON.parse(text) : null) as Record<string, unknown> | null };
}

const untilStage = (bookingId: string, ...stages: string[]) =>
  waitFor(
    `booking ${bookingId} to reach ${stages.join(' or ')}`,
    async () => {
      const current = (await call('GET', `/book/${bookingId}`)).json as unknown as Status;
      return stages.includes(current.stage) ? current : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  );

async function storeCard(): Promise<string> {
  const otp = await call('POST', '/vault/otp');
  expect(otp.status, otp.text).toBe(200);
  const stored = await call('POST', '/vault/pan', { otp: otp.json?.id, ...card });
  expect(stored.status, stored.text).toBe(200);
  return stored.json?.panToken as string;
}

/** Creates a booking, books it with the token and consents to the final price; resolves at its last stage. */
async function bookWith(panToken: string): Promise<Status> {
  const created = await call('POST', '/v1/bookings', {
    hotelId: 'H-ROTATE',
    checkIn,
    nights: 2,
    guests: 2,
    roomId: 'STD',
    rateId: 'STD:FLEX',
  });
  expect(created.status, created.text).toBe(201);
  const bookingId = created.json?.bookingId as string;
  await untilStage(bookingId, 'priceConfirmed');
  const booked = await call('POST', `/book/${bookingId}`, { details, panToken });
  expect(booked.status, booked.text).toBe(200);
  const shown = await untilStage(bookingId, 'finalPriceConsent', 'failed');
  expect(shown.stage, JSON.stringify(shown.error)).toBe('finalPriceConsent');
  const consent = await call('POST', `/book/${bookingId}/consent`, { finalPrice: shown.finalPrice });
  expect(consent.status, consent.text).toBe(200);
  return untilStage(bookingId, 'bookingConfirmed', 'failed');
}

async function restartWith(env: Record<string, string>): Promise<void> {
  for (const process of [worker, api]) {
    process.child.kill('SIGKILL');
    await process.exited;
  }
  api = await startQuarry('api', env);
  worker = await startQuarry('bookings-worker', env);
}

/** The card id a v2 token names: its first 16 bytes (the rest is the MAC). */
function cardIdOfToken(token: string): string {
  const hex = Buffer.from(token.slice('v2:'.length), 'base64url').subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Rewrites every stored card, and its CVV, to the layout of before key ids (no key id), as the vault stored them until now. */
async function toLayoutBeforeKeyIds(cardIds: readonly string[]): Promise<void> {
  const keys = legacyVaultKeys(oldKey);
  const connection = createRedis(redis.url);
  try {
    for (const cardId of cardIds) {
      const row = cardRowOf(cardId, booker.clientId);
      const { cvv, ...sealed } = card;
      await db.query('UPDATE vault_cards SET card_sealed = $2 WHERE card_id = $1', [
        cardId,
        sealLegacy(keys.card, JSON.stringify(sealed), row),
      ]);
      await connection.set(`${redis.prefix}:vault:cvv:${cardId}`, sealLegacy(keys.cvv, cvv, row).toString('base64'), 'KEEPTTL', 'XX');
    }
  } finally {
    connection.disconnect();
  }
}

beforeAll(async () => {
  database = await createTestDatabase('vault-keys-rotation');
  redis = createTestRedis('vault-keys-rotation');
  db = createPool(database.url, 2);
  hotel = await startOpenTravelHotel();
  baseEnv = {
    ...quarryEnv({ database, redis, secretKey }),
    VAULT_CVV_TTL_SECONDS: '600',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    RATES_SOURCE_PER_SECOND: '0',
    AUTH_CACHE_MS: '0',
  };
  api = await startQuarry('api', beforeEnv());
  booker = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking', 'hotels'] });
  worker = await startQuarry('bookings-worker', beforeEnv());
  hotel.hotels.set('H-ROTATE', { price: '90.00' });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('H-ROTATE', 'H-ROTATE', 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: 'H-ROTATE' })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [booker.clientId, 'H-ROTATE']);
}, 60_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  api?.child.kill('SIGKILL');
  await hotel?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('quarry vault rotate', () => {
  it('re-seals the stored cards while cards are stored and booked with; with VAULT_KEY gone, a card stored before pays for a booking', async () => {
    const oldTokens: string[] = [];
    for (let index = 0; index < 30; index += 1) oldTokens.push(await storeCard());
    expect((await db.query('SELECT count(*)::int AS cards FROM vault_cards')).rows[0]).toEqual({ cards: 30 });
    // The first half as stored before key ids.
    await toLayoutBeforeKeyIds(oldTokens.slice(0, 15).map(cardIdOfToken));

    const status = async (env: Record<string, string>) => {
      const result = await runQuarry(['vault', 'status'], env);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as {
        currentKeyId: string;
        cardsByKey: Record<string, number>;
        notCurrent: number;
        unused: string[];
      };
    };
    expect(await status(duringEnv())).toEqual({ currentKeyId: 'k2', cardsByKey: { legacy: 15, vault: 15 }, notCurrent: 30, unused: [] });

    // Both keys held, k2 current: the service keeps storing and booking while the rotation runs.
    await restartWith(duringEnv());
    const rotation = runQuarry(['vault', 'rotate', '--batch-size', '3'], duringEnv());
    let rotating = true;
    void rotation.finally(() => (rotating = false));
    const booked: Status[] = [];
    const storedDuring: string[] = [];
    while (rotating || booked.length < 2) {
      storedDuring.push(await storeCard());
      booked.push(await bookWith(oldTokens[booked.length]!));
    }
    const rotated = await rotation;
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(/vault rotate: pass 1: \d+ cards re-sealed/);
    expect(rotated.stderr).toMatch(/vault rotate: CVVs: \d+ re-sealed/);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ currentKeyId: 'k2', notCurrent: 0, unused: ['vault', 'legacy'], unreadable: 0 });
    for (const output of [rotated.stdout, rotated.stderr])
      for (const secret of [card.pan, card.name, card.cvv + '"']) expect(output.includes(secret)).toBe(false);
    for (const done of booked) expect(done, JSON.stringify(done.error)).toMatchObject({ stage: 'bookingConfirmed' });

    // VAULT_KEY leaves the environment: only k2 opens cards, VAULT_TOKEN_KEY checks the tokens handed out.
    await restartWith(afterEnv());
    const after = await status(afterEnv());
    expect(after).toMatchObject({ currentKeyId: 'k2', notCurrent: 0, unused: [] });
    expect(Object.keys(after.cardsByKey)).toEqual(['k2']);
    const ordersBefore = hotel.orders.length;
    // A card stored (under VAULT_KEY, before key ids) ahead of the rotation, the last of them: never booked with meanwhile.
    const legacyToken = oldTokens[14]!;
    expect(booked.length).toBeLessThan(14);
    expect(await bookWith(legacyToken)).toMatchObject({ stage: 'bookingConfirmed', error: null });
    expect(await bookWith(oldTokens[29]!)).toMatchObject({ stage: 'bookingConfirmed', error: null });
    expect(await bookWith(storedDuring[0]!)).toMatchObject({ stage: 'bookingConfirmed', error: null });
    const orders = hotel.orders.slice(ordersBefore);
    expect(orders).toHaveLength(3);
    for (const order of orders) expect(order).toMatchObject({ cardNumber: card.pan, cardHolderName: card.name, cvv: card.cvv });
    for (const output of [api.output(), worker.output()])
      for (const secret of [card.pan, legacyToken, card.name]) expect(output.includes(secret)).toBe(false);
  }, 180_000);
});
