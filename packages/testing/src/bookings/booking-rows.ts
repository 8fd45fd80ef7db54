import { randomUUID } from 'node:crypto';
import type { Pool } from '@quarry/db';

/** A booking of `clientId` at its first stage, inserted directly: for tests of what Postgres announces about it. */
export async function insertBookingRow(db: Pool, clientId: string): Promise<string> {
  const bookingId = randomUUID();
  await db.query(
    `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference) VALUES ($1, $2, 'H1', '2027-01-10', 1, 2, 'STD', 'STD:FLEX', $3)`,
    [bookingId, clientId, `Q-${bookingId.slice(0, 8)}`],
  );
  return bookingId;
}

/** Cancels the booking in a transaction that is then rolled back: a change Postgres must never announce. */
export async function cancelAndRollBack(db: Pool, bookingId: string): Promise<void> {
  const connection = await db.connect();
  try {
    await connection.query('BEGIN');
    await connection.query(`UPDATE bookings SET stage = 'cancelled', state = 'finished' WHERE booking_id = $1`, [bookingId]);
    await connection.query('ROLLBACK');
  } finally {
    connection.release();
  }
}
