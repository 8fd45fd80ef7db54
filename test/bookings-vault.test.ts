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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

/**
 * A booking paid with a card of the real vault: `quarry start --role api` stores the card,
 * `quarry start --role bookings-worker` opens it for the order and purges it, both with the same
 * VAULT_KEY. No stand-in of the vault anywhere: this is the wiring a deployment runs.
 */
const secretKey = randomBytes(32);
const vaultKey = randomBytes(32);
// A Luhn-valid test number found nowhere else in this suite, so a hit below is this card.
const card = { pan: '4012888888881881', expiryMonth: 9, expiryYear: 2031, name: 'Katherine Johnson', cvv: '7314' };
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let hotel: OpenTravelHotel;
let env: Record<string, string>;
let api: QuarryProcess;
let worker: QuarryProcess;
let booker: { clientId: string; secret: string };

const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
const details = { mainGuest: { firstName: 'Ada', lastName: 'Lovelace' }, contact: { email: 'ada@example.com', phone: '+44 20 7946 0000' } };
type Status = {
  stage: string;
  state: string;
  error: { code: string } | null;
  finalPrice: unknown;
  confirmation: { reference: string } | null;
};

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

async function addHotel(code: string) {
  hotel.hotels.set(code, { price: '90.00' });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ($1, $1, 'opentravel', '1 Main St', 'us', NULL, '{2}', 'https://book.example.com', $2)`,
    [code, JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: code })],
  );
  await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [booker.clientId, code]);
}

/** POST /vault/otp, then POST /vault/pan: the token the client books with. */
async function storeCard(): Promise<string> {
  const otp = await call('POST', '/vault/otp');
  expect(otp.status, otp.text).toBe(200);
  const stored = await call('POST', '/vault/pan', { otp: otp.json?.id, ...card });
  expect(stored.status, stored.text).toBe(200);
  return stored.json?.panToken as string;
}

/** Creates a booking and waits for its confirmed price; resolves with its id. */
async function priceConfirmed(code: string): Promise<string> {
  const created = await call('POST', '/v1/bookings', { hotelId: code, checkIn, nights: 2, guests: 2, roomId: 'STD', rateId: 'STD:FLEX' });
  expect(created.status, created.text).toBe(201);
  const bookingId = created.json?.bookingId as string;
  await untilStage(bookingId, 'priceConfirmed');
  return bookingId;
}

/** Books with the token until the final price is shown. */
async function quoted(bookingId: string, panToken: string): Promise<Status> {
  const booked = await call('POST', `/book/${bookingId}`, { details, panToken });
  expect(booked.status, booked.text).toBe(200);
  const shown = await untilStage(bookingId, 'finalPriceConsent', 'failed');
  expect(shown.stage, JSON.stringify(shown.error)).toBe('finalPriceConsent');
  return shown;
}

/** Consents to the exact final price; resolves at the booking's last stage. */
async function consented(bookingId: string, shown: Status): Promise<Status> {
  const consent = await call('POST', `/book/${bookingId}/consent`, { finalPrice: shown.finalPrice });
  expect(consent.status, consent.text).toBe(200);
  return untilStage(bookingId, 'bookingConfirmed', 'failed');
}

/** Creates, books with the token and consents to the exact final price; resolves at the booking's last stage. */
async function bookWith(code: string, panToken: string): Promise<Status> {
  const bookingId = await priceConfirmed(code);
  return consented(bookingId, await quoted(bookingId, panToken));
}

/** One command on this file's Redis, as an operator's redis-cli would. */
async function redisDo<T>(work: (connection: ReturnType<typeof createRedis>) => Promise<T>): Promise<T> {
  const connection = createRedis(redis.url);
  try {
    return await work(connection);
  } finally {
    connection.disconnect();
  }
}

/** The vault's CVV keys in this file's Redis prefix. */
const cvvKeys = () => redisDo((connection) => connection.keys(`${redis.prefix}:vault:cvv:*`));

/** Every text, json and bytea value of every table, as text and as bytes. */
async function everyStoredValue(): Promise<Array<{ where: string; value: Buffer }>> {
  const columns = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')`,
  );
  const found: Array<{ where: string; value: Buffer }> = [];
  for (const column of columns.rows) {
    const expression = column.data_type === 'bytea' ? `"${column.column_name}"` : `"${column.column_name}"::text`;
    const rows = await db.query<{ value: Buffer | string | null }>(`SELECT ${expression} AS value FROM "${column.table_name}"`);
    for (const row of rows.rows) {
      if (row.value !== null)
        found.push({
          where: `${column.table_name}.${column.column_name}`,
          value: Buffer.isBuffer(row.value) ? row.value : Buffer.from(row.value),
        });
    }
  }
  return found;
}

/** Neither the card's number, its holder nor its token in any column; `scanned` proves the scan read those columns. */
async function expectInNoColumn(panToken: string, scanned: string[]): Promise<void> {
  const stored = await everyStoredValue();
  for (const where of scanned)
    expect(
      stored.some((value) => value.where === where),
      `${where} scanned`,
    ).toBe(true);
  for (const secret of [card.pan, card.name, panToken]) {
    expect(
      stored.filter((value) => value.value.includes(secret)).map((value) => value.where),
      `columns holding ${secret.slice(0, 6)}…`,
    ).toEqual([]);
  }
}

beforeAll(async () => {
  database = await createTestDatabase('bookings-vault');
  redis = createTestRedis('bookings-vault');
  db = createPool(database.url, 2);
  hotel = await startOpenTravelHotel();
  // A CVV waits a minute for its booking here: the booking must keep it far longer.
  env = {
    ...quarryEnv({ database, redis, secretKey }),
    VAULT_KEY: vaultKey.toString('base64'),
    VAULT_CVV_TTL_SECONDS: '60',
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    RATES_SOURCE_PER_SECOND: '0',
    AUTH_CACHE_MS: '0',
  };
  api = await startQuarry('api', env);
  booker = await createClient({ db, secretKey }, { name: 'agency', scopes: ['booking', 'hotels'] });
  worker = await startQuarry('bookings-worker', env);
}, 60_000);

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  api?.child.kill('SIGKILL');
  await hotel?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

describe('a booking paid with a card of the real vault', () => {
  it('the hotel receives the card once with its CVV; the card is purged; its number is in no output and no column', async () => {
    await addHotel('H-VAULT');
    const panToken = await storeCard();
    const done = await bookWith('H-VAULT', panToken);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ stage: 'bookingConfirmed', state: 'finished', confirmation: { reference: 'CNF-H-VAULT-1' } });
    const orders = hotel.orders.filter((order) => order.hotelCode === 'H-VAULT');
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({
      cardNumber: card.pan,
      expireDate: '0931',
      cardHolderName: card.name,
      cvv: card.cvv,
      guests: [{ firstName: 'Ada', lastName: 'Lovelace' }],
    });

    // Purged when the booking ended: the same token books nothing more. It is refused at POST /book,
    // naming panToken, and the booking waits for a good token.
    await addHotel('H-VAULT-AGAIN');
    const again = await priceConfirmed('H-VAULT-AGAIN');
    const refused = await call('POST', `/book/${again}`, { details, panToken });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('panToken: not usable (unknown, purged or expired card)');
    expect(((await call('GET', `/book/${again}`)).json as unknown as Status).stage).toBe('priceConfirmed');
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-VAULT-AGAIN')).toHaveLength(0);
    expect(hotel.orders.filter((order) => order.cvv !== null)).toHaveLength(1);
    expect((await db.query('SELECT count(*)::int AS cards FROM vault_cards')).rows[0]).toEqual({ cards: 0 });

    for (const [role, output] of [
      ['api', api.output()],
      ['bookings-worker', worker.output()],
    ] as const) {
      for (const secret of [card.pan, panToken, panToken.slice(3, 60), card.name])
        expect(output.includes(secret), `${role} output contains ${secret.slice(0, 6)}…`).toBe(false);
    }
    expect(worker.output()).toContain('vault: card opened');
    expect(worker.output()).toContain('vault: card purged');
    await expectInNoColumn(panToken, ['bookings.reference', 'vault_otps.otp_hash']);
  });

  it("the CVV's clock restarts at POST /book: kept as long as the booking may still order (BOOKING_JOB_TIMEOUT_MS), not the vault's minute", async () => {
    await addHotel('H-CVV-HOLD');
    const before = new Set(await cvvKeys());
    const panToken = await storeCard();
    const key = (await cvvKeys()).find((candidate) => !before.has(candidate));
    expect(key).toBeDefined();
    expect(await redisDo((connection) => connection.pttl(key as string))).toBeLessThanOrEqual(60_000);
    const bookingId = await priceConfirmed('H-CVV-HOLD');
    const shown = await quoted(bookingId, panToken);
    // An hour (the default job timeout) from POST /book, less the seconds the test took.
    expect(await redisDo((connection) => connection.pttl(key as string))).toBeGreaterThan(3_500_000);
    const done = await consented(bookingId, shown);
    expect(done).toMatchObject({ stage: 'bookingConfirmed' });
    expect(hotel.orders.find((order) => order.hotelCode === 'H-CVV-HOLD')?.cvv).toBe(card.cvv);
    // Spent by the order that carried it, then the card purged.
    expect(await redisDo((connection) => connection.exists(key as string))).toBe(0);
  });

  it('a CVV that Redis no longer holds fails the booking CvvUnavailable before anything is sent, never an order without it', async () => {
    await addHotel('H-CVV-GONE');
    const panToken = await storeCard();
    const bookingId = await priceConfirmed('H-CVV-GONE');
    const shown = await quoted(bookingId, panToken);
    // Redis forgot it (restarted empty, or its time ran out) while the client decided.
    await redisDo(async (connection) => {
      for (const key of await cvvKeys()) await connection.del(key);
    });
    const done = await consented(bookingId, shown);
    expect(done).toMatchObject({ stage: 'failed', error: { code: 'CvvUnavailable' } });
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-CVV-GONE')).toHaveLength(0);
    expect((await db.query('SELECT order_state FROM bookings WHERE booking_id = $1', [bookingId])).rows[0]).toEqual({ order_state: null });
  });

  it('a bookings-worker without VAULT_KEY opens no card: PanTokenInvalid, nothing sent to the hotel', async () => {
    worker.child.kill('SIGKILL');
    await worker.exited;
    const { VAULT_KEY: _unused, ...withoutVault } = env;
    worker = await startQuarry('bookings-worker', withoutVault);
    await addHotel('H-NO-VAULT');
    const panToken = await storeCard();
    const failed = await bookWith('H-NO-VAULT', panToken);
    expect(failed).toMatchObject({ stage: 'failed', error: { code: 'PanTokenInvalid' } });
    expect(hotel.orders.filter((order) => order.hotelCode === 'H-NO-VAULT')).toHaveLength(0);
    // This worker could not purge it: the card is still kept, sealed.
    await expectInNoColumn(panToken, ['vault_cards.card_sealed']);
  });
});
