import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createTestDatabase, waitFor, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelAndRollBack, insertBookingRow } from '@quarry/testing';
import { createBookingStatusCache, followBookingChanges, type BookingStatusCache } from './booking-status-cache.ts';
import { findBookingStatusText } from './find-booking.ts';

/**
 * The status cache against a real Postgres: the trigger's announcement of a change made by any
 * connection drops the copy, and a lost listening connection stops the cache from serving.
 */
let database: TestDatabase;
let db: Pool;
let cache: BookingStatusCache;
let listener: { stop: () => Promise<void> };
let lost = 0;
/** An announcement arrives within milliseconds; the waits allow for a 2-core machine running the whole suite. */
const announcementWaitMs = 10_000;

const insertBooking = (clientId: string) => insertBookingRow(db, clientId);
const stageOf = async (clientId: string, bookingId: string) =>
  (JSON.parse(await findBookingStatusText({ pool: db, statusCache: cache }, clientId, bookingId)) as { stage: string }).stage;

beforeAll(async () => {
  database = await createTestDatabase('booking-status-cache');
  await migrateToLatest(database.url);
  db = createPool(database.url, 3);
  for (const clientId of ['cl_owner', 'cl_other']) {
    await db.query(
      `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, $1, '{booking}', $2, '\\x00')`,
      [clientId, Buffer.from(clientId)],
    );
  }
  cache = createBookingStatusCache({ maxBytes: 1024 * 1024, ttlMs: 600_000 });
  listener = followBookingChanges(database.url, cache, () => (lost += 1));
  await waitFor('the cache to be listening', async () => cache.reservation() !== null || undefined);
}, 30_000);

afterAll(async () => {
  await listener?.stop();
  await db?.end();
  await database?.drop();
});

describe('booking status cache', { timeout: 2 * announcementWaitMs }, () => {
  it('keeps a read, and drops it when any connection commits a change of the booking', async () => {
    const bookingId = await insertBooking('cl_owner');
    expect(await stageOf('cl_owner', bookingId)).toBe('priceCheck');
    expect(cache.get('cl_owner', bookingId)).toContain('"priceCheck"');
    // A change made outside this process's code (another API replica, the worker, an operator).
    await db.query(`UPDATE bookings SET stage = 'priceConfirmed', state = 'pending' WHERE booking_id = $1`, [bookingId]);
    await waitFor('the announcement', async () => cache.get('cl_owner', bookingId) === undefined || undefined, {
      timeoutMs: announcementWaitMs,
      intervalMs: 10,
    });
    expect(await stageOf('cl_owner', bookingId)).toBe('priceConfirmed');
  });

  it('announces nothing for a change that was rolled back', async () => {
    const bookingId = await insertBooking('cl_owner');
    await stageOf('cl_owner', bookingId);
    await cancelAndRollBack(db, bookingId);
    // A committed change of another booking after it: once its announcement arrived, the rolled
    // back one's would have too.
    const marker = await insertBooking('cl_owner');
    // Read before the marker's change: its announcement may be handled before the UPDATE's reply.
    const before = cache.reservation();
    await db.query(`UPDATE bookings SET seq = seq + 1 WHERE booking_id = $1`, [marker]);
    await waitFor('the marker announcement', async () => cache.reservation() !== before || undefined, {
      timeoutMs: announcementWaitMs,
      intervalMs: 10,
    });
    expect(cache.get('cl_owner', bookingId)).toContain('"priceCheck"');
  });

  it("serves a copy only to the booking's client", async () => {
    const bookingId = await insertBooking('cl_owner');
    await stageOf('cl_owner', bookingId);
    expect(cache.get('cl_owner', bookingId)).toBeDefined();
    await expect(findBookingStatusText({ pool: db, statusCache: cache }, 'cl_other', bookingId)).rejects.toMatchObject({
      code: 'NotFound',
    });
  });

  it('stops serving while its connection is lost, and listens again when Postgres lets it', async () => {
    const bookingId = await insertBooking('cl_owner');
    await stageOf('cl_owner', bookingId);
    const lostBefore = lost;
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`);
    await waitFor('the loss to be seen', async () => lost > lostBefore || undefined, { timeoutMs: announcementWaitMs, intervalMs: 10 });
    expect(cache.get('cl_owner', bookingId)).toBeUndefined();
    expect(cache.reservation()).toBeNull();
    // Meanwhile reads go to Postgres and see every change.
    await db.query(`UPDATE bookings SET stage = 'priceConfirmed', state = 'pending' WHERE booking_id = $1`, [bookingId]);
    expect(await stageOf('cl_owner', bookingId)).toBe('priceConfirmed');
    await waitFor('listening again', async () => cache.reservation() !== null || undefined, { timeoutMs: 10_000, intervalMs: 50 });
    await stageOf('cl_owner', bookingId);
    await db.query(`UPDATE bookings SET stage = 'cancelled', state = 'finished' WHERE booking_id = $1`, [bookingId]);
    await waitFor('the announcement after the reconnection', async () => cache.get('cl_owner', bookingId) === undefined || undefined, {
      timeoutMs: announcementWaitMs,
      intervalMs: 10,
    });
    expect(await stageOf('cl_owner', bookingId)).toBe('cancelled');
  });
});
