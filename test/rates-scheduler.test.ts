import { createHash } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import {
  refreshSearch,
  removeHotel,
  scheduleRefreshes,
  upsertHotel,
  type RateSource,
  type SourceOutcome,
  type SourceRegistry,
} from '@quarry/rates';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The refresh scheduler and the store's change detection, on the real Postgres; queues are our own ports. */
let database: TestDatabase;
let db: Pool;
const now = new Date('2026-11-22T12:00:00Z');
const tiers = [
  { untilDaysAhead: 7, everyMs: 15 * 60_000 },
  { untilDaysAhead: 30, everyMs: 60 * 60_000 },
  { untilDaysAhead: Number.MAX_SAFE_INTEGER, everyMs: 6 * 3600_000 },
];

const hotel = (hotelId: string, guests: [2] | [1, 2]) => ({
  hotelId,
  name: hotelId,
  ibe: 'ota',
  address: '',
  countryCode: 'gb',
  guests,
  bookingPageUrl: 'https://example.com/',
  source: { kind: 'opentravel', endpointUrl: 'https://ota.example.com/', hotelCode: hotelId },
});

beforeAll(async () => {
  database = await createTestDatabase('rates_scheduler');
  db = createPool(database.url, 2);
  await upsertHotel({ db }, hotel('A', [2]));
  await upsertHotel({ db }, hotel('B', [1, 2]));
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

async function tick(at: Date) {
  const enqueued: Array<{ key: { hotelId: string; checkIn: string; nights: number; guests: number }; jobId: string }> = [];
  const result = await scheduleRefreshes({
    db,
    enqueueRefreshes: async (items) => void enqueued.push(...items),
    enqueuePush: async () => {},
    now: () => at,
    horizonDays: 40,
    nights: [1, 3],
    tiers,
  });
  return { ...result, enqueued };
}

const store = (hotelId: string, checkIn: string, fetchedAt: Date) =>
  db.query(
    `INSERT INTO rate_results (hotel_id, check_in, nights, guests, body, body_sha256, fetched_at, expires_at, changed_at)
     VALUES ($1, $2, 1, 2, '{}', $3, $4, $4, $4)
     ON CONFLICT (hotel_id, check_in, nights, guests) DO UPDATE SET fetched_at = EXCLUDED.fetched_at`,
    [hotelId, checkIn, createHash('sha256').update('{}').digest(), fetchedAt],
  );

describe('refresh scheduler', () => {
  it('covers the whole grid: every date to the horizon, every length of stay, every guest count of each hotel', async () => {
    const { considered, enqueued } = await tick(now);
    expect(considered).toBe(40 * 2 * 1 + 40 * 2 * 2);
    expect(enqueued).toHaveLength(considered);
    expect(enqueued.filter((item) => item.key.hotelId === 'A').every((item) => item.key.guests === 2)).toBe(true);
    expect(new Set(enqueued.map((item) => item.key.checkIn)).size).toBe(40);
    expect(enqueued[0]?.key).toEqual({ hotelId: 'A', checkIn: '2026-11-22', nights: 1, guests: 2 });
    // Same period, same job ids: overlapping ticks (several processes) enqueue each search once.
    const again = await tick(new Date(now.getTime() + 60_000));
    expect(again.enqueued.map((item) => item.jobId)).toEqual(enqueued.map((item) => item.jobId));
  });

  it('refreshes near dates more often than far ones', async () => {
    const twentyMinutesAgo = new Date(now.getTime() - 20 * 60_000);
    await store('A', '2026-11-23', twentyMinutesAgo); // 1 day ahead: every 15 min → due
    await store('A', '2026-12-02', twentyMinutesAgo); // 10 days ahead: every hour → not due
    await store('A', '2026-12-27', new Date(now.getTime() - 2 * 3600_000)); // 35 days ahead: every 6 h → not due
    const due = (await tick(now)).enqueued
      .filter((item) => item.key.hotelId === 'A' && item.key.nights === 1)
      .map((item) => item.key.checkIn);
    expect(due).toContain('2026-11-23');
    expect(due).not.toContain('2026-12-02');
    expect(due).not.toContain('2026-12-27');
    expect(due).toHaveLength(38);
  });
});

describe('stored results', () => {
  it('reports a change only when the content differs, and a late older fetch never overwrites a newer one', async () => {
    let price = 10_000;
    const adapter: RateSource = {
      search: async () => ({
        ok: true,
        rooms: [
          { id: 'R', name: 'Room', rates: [{ id: 'R:1', name: 'Rate', baseRate: { currencyCode: 'eur', value: price }, taxes: [] }] },
        ],
      }),
    };
    const sources: SourceRegistry = { search: (row, key, signal) => adapter.search(row, key, signal) };
    let clock = now;
    const ports = { db, sources, enqueuePush: async () => {}, now: () => clock, freshnessMs: 3_600_000 };
    const key = { hotelId: 'B', checkIn: '2026-12-01', nights: 2, guests: 1 };
    expect(await refreshSearch(ports, key, new AbortController().signal)).toMatchObject({ status: 'stored', changed: true });
    clock = new Date(now.getTime() + 1_000);
    expect(await refreshSearch(ports, key, new AbortController().signal)).toMatchObject({ status: 'stored', changed: false });
    price = 12_000;
    clock = new Date(now.getTime() - 60_000); // a fetch that started before the stored one
    expect(await refreshSearch(ports, key, new AbortController().signal)).toMatchObject({ status: 'stored', changed: false });
    const stored = await db.query<{ body: string }>(`SELECT body FROM rate_results WHERE hotel_id = 'B' AND nights = 2`);
    expect(JSON.parse(stored.rows[0]?.body ?? '{}').rooms[0].rates[0].baseRate.value).toBe(10_000);
    clock = new Date(now.getTime() + 2_000);
    expect(await refreshSearch(ports, key, new AbortController().signal)).toMatchObject({ status: 'stored', changed: true });
  });
});

describe('a hotel removed while its searches run', () => {
  it('ends them quietly: what they found, rooms or a failure, is dropped, not a foreign-key error', async () => {
    await upsertHotel({ db }, hotel('GONE-ROOMS', [2]));
    await upsertHotel({ db }, hotel('GONE-FAILED', [2]));
    const rooms = [
      { id: 'R', name: 'Room', rates: [{ id: 'R:1', name: 'Rate', baseRate: { currencyCode: 'eur' as const, value: 9_000 }, taxes: [] }] },
    ];
    // The source answers after the operator removed the hotel (the search waited for its turn, or the source was slow).
    const sources: SourceRegistry = {
      search: async (row): Promise<SourceOutcome> => {
        await removeHotel({ db }, row.hotelId);
        return row.hotelId === 'GONE-ROOMS' ? { ok: true, rooms } : { ok: false, kind: 'SourceDown', reason: 'maintenance' };
      },
    };
    const ports = { db, sources, enqueuePush: async () => {}, now: () => now, freshnessMs: 3_600_000 };
    for (const hotelId of ['GONE-ROOMS', 'GONE-FAILED']) {
      const outcome = await refreshSearch(ports, { hotelId, checkIn: '2026-12-01', nights: 1, guests: 2 }, new AbortController().signal);
      expect(outcome).toEqual({ status: 'no-coverage', reason: 'hotel was removed from the registry' });
    }
    expect(
      (
        await db.query(
          `SELECT 1 FROM rate_results WHERE hotel_id LIKE 'GONE-%' UNION ALL SELECT 1 FROM rate_source_failures WHERE hotel_id LIKE 'GONE-%'`,
        )
      ).rowCount,
    ).toBe(0);
    // Refreshes still queued for it start after the removal: no coverage, as before.
    expect(
      await refreshSearch(ports, { hotelId: 'GONE-ROOMS', checkIn: '2026-12-02', nights: 1, guests: 2 }, new AbortController().signal),
    ).toEqual({
      status: 'no-coverage',
      reason: 'hotel not in the registry',
    });
  });
});
