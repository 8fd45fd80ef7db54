import { createHash } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDelayMs, stateBytesOf, streamSubscriptionState } from './push-delivery.ts';
import { copyBodies, pageSubscriptionHashes, subscriptionStateBytes } from './rate-results.queries.ts';
import type { SubscriptionRow } from './push.queries.ts';
import { createBodyCache, type BodyCache } from './body-cache.ts';

let database: TestDatabase;
let db: Pool;
const today = new Date();
const day = (offset: number) => new Date(today.getTime() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  database = await createTestDatabase('rates_stream');
  db = createPool(database.url, 2);
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('c1', 'c', '{hotels}', '\\x01', '\\x01'), ('c2', 'd', '{hotels}', '\\x02', '\\x02')`,
  );
  for (const hotelId of ['H1', 'H2', 'H3']) {
    await db.query(
      `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, guests, booking_page_url, source) VALUES ($1, $1, 'x', '', 'gb', '{2}', 'https://x/', '{}')`,
      [hotelId],
    );
  }
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ('c1', 'H1'), ('c1', 'H2'), ('c2', 'H3')`);
  for (const hotelId of ['H1', 'H2', 'H3']) {
    for (const offset of [0, 1, 2, 3, 5]) {
      const body = JSON.stringify({ hotelId, checkIn: day(offset), nights: 1, guests: 2, rooms: [] });
      await db.query(
        `INSERT INTO rate_results (hotel_id, check_in, nights, guests, body, body_sha256, fetched_at, expires_at, changed_at)
         VALUES ($1, $2, 1, 2, $3, $4, now(), now() + $5::interval, now())`,
        [hotelId, day(offset), body, createHash('sha256').update(body).digest(), offset === 3 ? '-1 minute' : '1 hour'],
      );
    }
  }
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

const subscription = (hotelIds: string[]): SubscriptionRow => ({
  subscriptionId: '00000000-0000-4000-8000-000000000000',
  clientId: 'c1',
  pushUrl: '',
  apiKeyCiphertext: Buffer.alloc(0),
  hotelIds,
  searches: { daysAhead: 5, nights: [1], guests: [2] },
  stateVersion: 1,
  deliveredVersion: 0,
  failures: 0,
  failingSince: null,
  nextAttemptAt: null,
  suspendedAt: null,
  createdAt: new Date(),
});

async function collect(
  hotelIds: string[],
  pageSize: number,
  cache?: BodyCache,
  groupBytes?: number,
): Promise<{ text: string; chunks: number }> {
  const chunks: Buffer[] = [];
  const options = { keysPerQuery: pageSize, ...(cache ? { cache } : {}), ...(groupBytes !== undefined ? { groupBytes } : {}) };
  for await (const chunk of streamSubscriptionState(db, subscription(hotelIds), today, options)) chunks.push(...[chunk].flat());
  return { text: Buffer.concat(chunks).toString(), chunks: chunks.length };
}

describe('streamed push body', () => {
  it('is a JSON array of the stored bytes, page by page, in the grid and the client’s grants only, fresh only', async () => {
    const { text } = await collect(['H1', 'H2', 'H3'], 2);
    const hotels = JSON.parse(text) as Array<{ hotelId: string; checkIn: string }>;
    // H3 is not granted to c1; day 3 is expired; day 5 is beyond daysAhead 5 (days 0..4).
    expect(hotels.map((hotel) => `${hotel.hotelId}@${hotel.checkIn}`)).toEqual(
      ['H1', 'H2'].flatMap((hotelId) => [0, 1, 2].map((offset) => `${hotelId}@${day(offset)}`)),
    );
    const stored = await db.query<{ body: string }>(`SELECT body FROM rate_results WHERE hotel_id = 'H1' AND check_in = $1`, [day(0)]);
    expect(text.startsWith(`[${stored.rows[0]?.body},`)).toBe(true);
    expect((await collect(['H1', 'H2'], 1)).text).toBe(text);
    // Bodies read one group per body, and the cached bodies of a second pass: the same bytes.
    const cache = createBodyCache(10 * 1024 * 1024);
    expect((await collect(['H1', 'H2'], 100, cache, 1)).text).toBe(text);
    expect((await collect(['H1', 'H2'], 100, cache, 1)).text).toBe(text);
  });

  it('reuses cached bytes only while the stored hash matches', async () => {
    const cache = createBodyCache(10 * 1024 * 1024);
    const before = (await collect(['H1'], 10, cache)).text;
    const changed = JSON.stringify({ hotelId: 'H1', checkIn: day(0), nights: 1, guests: 2, rooms: [], changed: true });
    await db.query(`UPDATE rate_results SET body = $1, body_sha256 = $2 WHERE hotel_id = 'H1' AND check_in = $3`, [
      changed,
      createHash('sha256').update(changed).digest(),
      day(0),
    ]);
    const after = (await collect(['H1'], 10, cache)).text;
    expect(after).not.toBe(before);
    expect(after.startsWith(`[${changed},`)).toBe(true);
  });

  it('knows its exact size from the keys alone, as the SQL sum does, before sending anything', async () => {
    for (const hotelIds of [['H1', 'H2'], ['H1'], ['NONE']]) {
      const { text } = await collect(hotelIds, 100);
      const grid = { clientId: 'c1', hotelIds, fromDate: today.toISOString().slice(0, 10), toDate: day(4), nights: [1], guests: [2] };
      const keys = await pageSubscriptionHashes(db, { ...grid, after: null, limit: 100 });
      expect(stateBytesOf(keys)).toBe(Buffer.byteLength(text));
      expect(await subscriptionStateBytes(db, grid)).toBe(Buffer.byteLength(text));
    }
  });

  it('is an empty array when nothing is stored', async () => {
    expect((await collect(['NONE'], 10)).text).toBe('[]');
  });
});

describe('bodies by binary COPY', () => {
  it('are the stored bytes, in the order asked, multi-byte text and bodies larger than a socket read included; a missing search is absent', async () => {
    const large = JSON.stringify({
      hotelId: 'H2',
      checkIn: day(9),
      name: 'Hôtel 日本 Zürich',
      rooms: [{ description: 'é'.repeat(200_000) }],
    });
    await db.query(
      `INSERT INTO rate_results (hotel_id, check_in, nights, guests, body, body_sha256, fetched_at, expires_at, changed_at)
       VALUES ('H2', $1, 1, 2, $2, $3, now(), now() + interval '1 hour', now())`,
      [day(9), large, createHash('sha256').update(large).digest()],
    );
    const keys = [
      { hotelId: 'H2', checkIn: day(9), nights: 1, guests: 2 },
      { hotelId: "H1' OR true --", checkIn: day(0), nights: 1, guests: 2 },
      { hotelId: 'H1', checkIn: day(0), nights: 1, guests: 2 },
    ];
    const rows = await copyBodies(db, keys);
    expect(rows.map((row) => row.hotelId)).toEqual(['H2', 'H1']);
    expect(Buffer.concat(rows[0]?.parts ?? []).equals(Buffer.from(large))).toBe(true);
    expect(rows[0]?.bytes).toBe(Buffer.byteLength(large));
    expect(rows[0]?.sha256.equals(createHash('sha256').update(large).digest())).toBe(true);
    const stored = await db.query<{ body: string }>(`SELECT body FROM rate_results WHERE hotel_id = 'H1' AND check_in = $1`, [day(0)]);
    expect(Buffer.concat(rows[1]?.parts ?? []).toString()).toBe(stored.rows[0]?.body);
    await expect(copyBodies(db, [{ hotelId: 'H1', checkIn: "2026-01-01'; --", nights: 1, guests: 2 }])).rejects.toThrow(
      /not a yyyy-MM-dd date/,
    );
    expect((await db.query('SELECT 1')).rowCount).toBe(1);
  });
});

describe('retry delay', () => {
  const policy = { timeoutMs: 1, backoffBaseMs: 1_000, backoffMaxMs: 60_000, suspendAfterMs: 1 };
  it('grows exponentially, is capped, and is jittered within [half, full]', () => {
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(policy, failures, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(policy, 30, () => 1)).toBe(60_000);
    expect(retryDelayMs(policy, 3, () => 0)).toBe(2_000);
  });
  it('stays at most 10 s apart during the first 5 minutes of failing, so a receiver back from a short outage gets the state within seconds', () => {
    expect(retryDelayMs(policy, 30, () => 1, 60_000)).toBe(10_000);
    expect(retryDelayMs(policy, 30, () => 0, 4 * 60_000)).toBe(5_000);
    expect(retryDelayMs(policy, 2, () => 1, 60_000)).toBe(2_000);
    expect(retryDelayMs(policy, 30, () => 1, 5 * 60_000)).toBe(60_000);
  });
});
