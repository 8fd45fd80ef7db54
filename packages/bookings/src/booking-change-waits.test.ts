import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createTestDatabase, waitFor, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelAndRollBack, insertBookingRow } from '@quarry/testing';
import { followBookingChangesForWaits, type BookingChangeWaits } from './booking-change-waits.ts';

/**
 * A held checkout's wait for its booking's next change, against a real Postgres: the trigger's
 * announcement of a committed change wakes the wait of that booking only, a rolled-back change wakes
 * nothing, and a lost listening connection wakes every wait (which then reads its row) and says so
 * until it listens again.
 */
let database: TestDatabase;
let db: Pool;
let waits: BookingChangeWaits;
let lost = 0;

const insertBooking = () => insertBookingRow(db, 'cl_owner');
const consent = (bookingId: string) =>
  db.query(`UPDATE bookings SET stage = 'processingBooking', state = 'pending' WHERE booking_id = $1`, [bookingId]);
/** Whether `promise` settled within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

beforeAll(async () => {
  database = await createTestDatabase('booking-change-waits');
  await migrateToLatest(database.url);
  db = createPool(database.url, 3);
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_owner', 'owner', '{booking}', $1, '\\x00')`,
    [Buffer.from('owner')],
  );
  waits = followBookingChangesForWaits(database.url, () => (lost += 1));
  await waitFor('the waits to be listening', async () => waits.listening() || undefined);
}, 30_000);

afterAll(async () => {
  await waits?.stop();
  await db?.end();
  await database?.drop();
});

describe('waits for a booking change', () => {
  it('wakes at the commit of a change of its booking, not of another one', async () => {
    const [mine, other] = [await insertBooking(), await insertBooking()];
    const change = waits.next(mine);
    await consent(other);
    expect(await settlesWithin(change.changed, 300)).toBe(false);
    await consent(mine);
    expect(await settlesWithin(change.changed, 5_000)).toBe(true);
  });

  it('is not woken by a change that was rolled back, nor after it was cancelled', async () => {
    const bookingId = await insertBooking();
    const change = waits.next(bookingId);
    await cancelAndRollBack(db, bookingId);
    expect(await settlesWithin(change.changed, 300)).toBe(false);
    change.cancel();
    const later = waits.next(bookingId);
    await consent(bookingId);
    expect(await settlesWithin(later.changed, 5_000)).toBe(true);
    expect(await settlesWithin(change.changed, 100)).toBe(false);
  });

  it('wakes every wait when its connection is lost, is not listening until it is back, and listens again', async () => {
    const bookingId = await insertBooking();
    const change = waits.next(bookingId);
    const lostBefore = lost;
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`);
    expect(await settlesWithin(change.changed, 5_000)).toBe(true);
    expect(lost).toBe(lostBefore + 1);
    expect(waits.listening()).toBe(false);
    await waitFor('listening again', async () => waits.listening() || undefined, { timeoutMs: 10_000, intervalMs: 50 });
    const next = waits.next(bookingId);
    await consent(bookingId);
    expect(await settlesWithin(next.changed, 5_000)).toBe(true);
  });
});
