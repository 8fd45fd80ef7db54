import { createHash } from 'node:crypto';
import type { BookingStage, BookingState } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import type { BookingWork } from './booking-stages.ts';

export type BookingRow = {
  bookingId: string;
  clientId: string;
  hotelId: string;
  checkIn: string;
  nights: number;
  guests: number;
  roomId: string;
  rateId: string;
  state: BookingState;
  stage: BookingStage;
  work: BookingWork | null;
  seq: number;
  reference: string;
  orderState: 'placing' | 'placed' | null;
  priceConfirmedUntil: Date | null;
  availableRooms: unknown;
  priceBreakdown: unknown;
  finalPrice: unknown;
  confirmation: unknown;
  tdsChallenge: unknown;
  tdsExpiresAt: Date | null;
  errorCode: string | null;
  errorMessage: string | null;
  detailsSealed: Buffer | null;
  panTokenSealed: Buffer | null;
  skipConfirmation: boolean;
  callbackUrl: string | null;
  webhookSecretSealed: Buffer | null;
  awaitingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
  succeededAt: Date | null;
  failedAt: Date | null;
  /** A worker holds the booking's checkout open in its browser (its lease not lapsed). */
  checkoutHeld: boolean;
};

const columns = `booking_id, client_id, hotel_id, to_char(check_in, 'YYYY-MM-DD') AS check_in, nights, guests, room_id, rate_id, state, stage, work, seq,
  reference, order_state, price_confirmed_until, available_rooms, price_breakdown, final_price, confirmation, tds_challenge, tds_expires_at,
  error_code, error_message, details_sealed, pan_token_sealed, skip_confirmation, callback_url, webhook_secret_sealed, awaiting_since,
  created_at, updated_at, succeeded_at, failed_at, (checkout_until IS NOT NULL AND checkout_until > now()) AS checkout_held`;

const movedColumns = columns.replace(/\b(booking_id|pan_token_sealed|checkout_until)\b/g, 'b.$1');

/**
 * A booking's hot statements run as named ones: Postgres parses and plans each once per connection
 * instead of at every call (a stage change's UPDATE cost the server twice as much unnamed). A
 * statement built from a transition's fields is named by its text: the variants are few, as the
 * fields come from a fixed list.
 */
const statementName = (prefix: string, text: string) => `${prefix}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;

type RawRow = Record<string, unknown>;

const toRow = (row: RawRow): BookingRow => ({
  bookingId: row.booking_id as string,
  clientId: row.client_id as string,
  hotelId: row.hotel_id as string,
  checkIn: row.check_in as string,
  nights: row.nights as number,
  guests: row.guests as number,
  roomId: row.room_id as string,
  rateId: row.rate_id as string,
  state: row.state as BookingState,
  stage: row.stage as BookingStage,
  work: row.work as BookingWork | null,
  seq: row.seq as number,
  reference: row.reference as string,
  orderState: row.order_state as BookingRow['orderState'],
  priceConfirmedUntil: row.price_confirmed_until as Date | null,
  availableRooms: row.available_rooms,
  priceBreakdown: row.price_breakdown,
  finalPrice: row.final_price,
  confirmation: row.confirmation,
  tdsChallenge: row.tds_challenge,
  tdsExpiresAt: row.tds_expires_at as Date | null,
  errorCode: row.error_code as string | null,
  errorMessage: row.error_message as string | null,
  detailsSealed: row.details_sealed as Buffer | null,
  panTokenSealed: row.pan_token_sealed as Buffer | null,
  skipConfirmation: row.skip_confirmation as boolean,
  callbackUrl: row.callback_url as string | null,
  webhookSecretSealed: row.webhook_secret_sealed as Buffer | null,
  awaitingSince: row.awaiting_since as Date | null,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
  succeededAt: row.succeeded_at as Date | null,
  failedAt: row.failed_at as Date | null,
  checkoutHeld: row.checkout_held === true,
});

export type NewBooking = {
  bookingId: string;
  clientId: string;
  hotelId: string;
  checkIn: string;
  nights: number;
  guests: number;
  roomId: string;
  rateId: string;
  reference: string;
  callbackUrl: string | null;
  webhookSecretSealed: Buffer | null;
};

/** A new booking in `priceCheck`, its first work the price check. */
export async function insertBooking(db: Queryable, booking: NewBooking): Promise<BookingRow> {
  const result = await db.query<RawRow>({
    name: 'insert-booking',
    text: `INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference, callback_url, webhook_secret_sealed, work)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'reprice') RETURNING ${columns}`,
    values: [booking.bookingId, booking.clientId, booking.hotelId, booking.checkIn, booking.nights, booking.guests, booking.roomId, booking.rateId, booking.reference, booking.callbackUrl, booking.webhookSecretSealed],
  });
  return toRow(result.rows[0] as RawRow);
}

/** Tenant-scoped: another client's booking is the same as a missing one. */
export async function findClientBooking(db: Queryable, clientId: string, bookingId: string): Promise<BookingRow | null> {
  const result = await db.query<RawRow>({ name: 'find-client-booking', text: `SELECT ${columns} FROM bookings WHERE booking_id = $1 AND client_id = $2`, values: [bookingId, clientId] });
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/** What the client's view of a booking shows (`renderBooking`): no sealed data. */
export type BookingViewRow = Pick<
  BookingRow,
  'bookingId' | 'clientId' | 'state' | 'stage' | 'createdAt' | 'succeededAt' | 'failedAt' | 'errorCode' | 'errorMessage' | 'priceConfirmedUntil' | 'availableRooms' | 'priceBreakdown' | 'finalPrice' | 'confirmation' | 'tdsChallenge'
>;

/**
 * Tenant-scoped, the view's columns only: `GET /book/{id}` is the hottest read (clients poll it), so
 * it reads no sealed blobs and runs as a named statement, planned once per connection.
 */
export async function findClientBookingView(db: Queryable, clientId: string, bookingId: string): Promise<BookingViewRow | null> {
  const result = await db.query<RawRow>({
    name: 'find-client-booking-view',
    text: `SELECT booking_id, client_id, state, stage, created_at, succeeded_at, failed_at, error_code, error_message, price_confirmed_until,
             available_rooms, price_breakdown, final_price, confirmation, tds_challenge
           FROM bookings WHERE booking_id = $1 AND client_id = $2`,
    values: [bookingId, clientId],
  });
  const row = result.rows[0];
  if (!row) return null;
  return {
    bookingId: row.booking_id as string,
    clientId: row.client_id as string,
    state: row.state as BookingState,
    stage: row.stage as BookingStage,
    createdAt: row.created_at as Date,
    succeededAt: row.succeeded_at as Date | null,
    failedAt: row.failed_at as Date | null,
    errorCode: row.error_code as string | null,
    errorMessage: row.error_message as string | null,
    priceConfirmedUntil: row.price_confirmed_until as Date | null,
    availableRooms: row.available_rooms,
    priceBreakdown: row.price_breakdown,
    finalPrice: row.final_price,
    confirmation: row.confirmation,
    tdsChallenge: row.tds_challenge,
  };
}

export async function findBooking(db: Queryable, bookingId: string): Promise<BookingRow | null> {
  const result = await db.query<RawRow>({ name: 'find-booking', text: `SELECT ${columns} FROM bookings WHERE booking_id = $1`, values: [bookingId] });
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/** Columns a transition may set besides the stage (a fixed list: the SQL is never built from input). */
export type TransitionFields = {
  work?: BookingWork | null;
  roomId?: string;
  rateId?: string;
  priceConfirmedUntil?: Date | null;
  availableRooms?: unknown;
  priceBreakdown?: unknown;
  finalPrice?: unknown;
  consentedAt?: Date;
  confirmation?: unknown;
  tdsChallenge?: unknown;
  tdsExpiresAt?: Date | null;
  errorCode?: string;
  errorMessage?: string;
  detailsSealed?: Buffer | null;
  panTokenSealed?: Buffer | null;
  skipConfirmation?: boolean;
  orderState?: 'placing' | 'placed';
};

const fieldColumns: Record<keyof TransitionFields, { column: string; json?: true }> = {
  work: { column: 'work' },
  roomId: { column: 'room_id' },
  rateId: { column: 'rate_id' },
  priceConfirmedUntil: { column: 'price_confirmed_until' },
  availableRooms: { column: 'available_rooms', json: true },
  priceBreakdown: { column: 'price_breakdown', json: true },
  finalPrice: { column: 'final_price', json: true },
  consentedAt: { column: 'consented_at' },
  confirmation: { column: 'confirmation', json: true },
  tdsChallenge: { column: 'tds_challenge', json: true },
  tdsExpiresAt: { column: 'tds_expires_at' },
  errorCode: { column: 'error_code' },
  errorMessage: { column: 'error_message' },
  detailsSealed: { column: 'details_sealed' },
  panTokenSealed: { column: 'pan_token_sealed' },
  skipConfirmation: { column: 'skip_confirmation' },
  orderState: { column: 'order_state' },
};

/**
 * Moves a booking from one of `from` (and, when given, only at `seq`, the version its caller read)
 * to `to` in one conditional statement: of two racing changes (the client cancelling, the worker
 * finishing, the sweep timing out) exactly one wins; the loser gets null. A finished booking's
 * sealed token is cleared in the same statement and returned for the vault's purge.
 */
export async function moveBooking(
  db: Queryable,
  bookingId: string,
  change: { from: readonly BookingStage[]; to: BookingStage; state: BookingState; seq?: number; orderState?: 'none' | 'placing'; fields?: TransitionFields },
): Promise<{ row: BookingRow; previousPanToken: Buffer | null } | null> {
  const values: unknown[] = [bookingId, change.from, change.to, change.state];
  const sets: string[] = ['stage = $3', 'state = $4', 'seq = b.seq + 1', 'updated_at = now()'];
  sets.push(change.state === 'pending' ? 'awaiting_since = now()' : 'awaiting_since = NULL');
  if (change.to === 'bookingConfirmed') sets.push('succeeded_at = now()');
  if (change.to === 'failed' || change.to === 'cancelled') sets.push('failed_at = now()');
  if (change.state === 'finished') sets.push('pan_token_sealed = NULL', 'work = NULL');
  for (const [key, value] of Object.entries(change.fields ?? {}) as Array<[keyof TransitionFields, unknown]>) {
    const field = fieldColumns[key];
    if (change.state === 'finished' && (key === 'panTokenSealed' || key === 'work')) continue;
    values.push(field.json && value !== null ? JSON.stringify(value) : value);
    sets.push(`${field.column} = $${values.length}`);
  }
  let guard = '';
  if (change.seq !== undefined) {
    values.push(change.seq);
    guard += ` AND b.seq = $${values.length}`;
  }
  if (change.orderState === 'none') guard += ' AND b.order_state IS NULL';
  if (change.orderState === 'placing') guard += " AND b.order_state = 'placing'";
  const text = `UPDATE bookings AS b SET ${sets.join(', ')}
     FROM (SELECT booking_id, pan_token_sealed FROM bookings WHERE booking_id = $1 FOR UPDATE) AS before
     WHERE b.booking_id = before.booking_id AND b.stage = ANY($2::text[])${guard}
     RETURNING ${movedColumns}, before.pan_token_sealed AS previous_pan_token`;
  const result = await db.query<RawRow & { previous_pan_token: Buffer | null }>({ name: statementName('move-booking', text), text, values });
  const row = result.rows[0];
  return row ? { row: toRow(row), previousPanToken: row.previous_pan_token } : null;
}

/**
 * Records, in its own committed statement before `OTA_HotelResRQ` leaves, that the order is about
 * to be placed: from here on no run places it again (ADR: bookings are placed at most once).
 */
export async function markPlacingOrder(db: Queryable, bookingId: string, seq: number): Promise<boolean> {
  const result = await db.query({
    name: 'mark-placing-order',
    text: `UPDATE bookings SET order_state = 'placing', placing_order_at = now(), updated_at = now()
     WHERE booking_id = $1 AND seq = $2 AND stage = 'processingBooking' AND work = 'placeOrder' AND order_state IS NULL`,
    values: [bookingId, seq],
  });
  return (result.rowCount ?? 0) > 0;
}

/** A new version of a booking that stays where it is (the next 3-D Secure poll gets its own job id). */
export async function touchBooking(db: Queryable, bookingId: string, seq: number): Promise<number | null> {
  const result = await db.query<{ seq: number }>('UPDATE bookings SET seq = seq + 1, updated_at = now() WHERE booking_id = $1 AND seq = $2 RETURNING seq', [bookingId, seq]);
  return result.rows[0]?.seq ?? null;
}

/** The hotel holds the order undecided (no challenge to show): the worker reads it again until `expiresAt`. */
export async function keepReadingOrder(db: Queryable, bookingId: string, seq: number, expiresAt: Date): Promise<number | null> {
  const result = await db.query<{ seq: number }>(
    `UPDATE bookings SET seq = seq + 1, updated_at = now(), order_state = 'placed', work = 'readOrder', tds_expires_at = coalesce(tds_expires_at, $3)
     WHERE booking_id = $1 AND seq = $2 RETURNING seq`,
    [bookingId, seq, expiresAt],
  );
  return result.rows[0]?.seq ?? null;
}

/** Bookings awaiting a client input since before `since`. */
export async function listAwaitingSince(db: Queryable, stages: readonly BookingStage[], since: Date, limit: number): Promise<Array<{ bookingId: string; seq: number }>> {
  const result = await db.query<{ booking_id: string; seq: number }>(
    `SELECT booking_id, seq FROM bookings WHERE state = 'pending' AND stage = ANY($1::text[]) AND awaiting_since < $2 ORDER BY awaiting_since LIMIT $3`,
    [stages, since, limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq }));
}

/** Unfinished bookings created before `before` whose order was never sent (JobTimeout may end them). */
export async function listCreatedBefore(db: Queryable, before: Date, limit: number): Promise<Array<{ bookingId: string; seq: number; stage: BookingStage }>> {
  const result = await db.query<{ booking_id: string; seq: number; stage: BookingStage }>(
    `SELECT booking_id, seq, stage FROM bookings WHERE state <> 'finished' AND order_state IS NULL AND created_at < $1 ORDER BY created_at LIMIT $2`,
    [before, limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq, stage: row.stage }));
}

/** Bookings with work whose job may have been lost (not changed since `before`). */
export async function listStalledWork(db: Queryable, before: Date, limit: number): Promise<Array<{ bookingId: string; seq: number }>> {
  const result = await db.query<{ booking_id: string; seq: number }>(
    `SELECT booking_id, seq FROM bookings WHERE state <> 'finished' AND work IS NOT NULL AND updated_at < $1 ORDER BY updated_at LIMIT $2`,
    [before, limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq }));
}

/**
 * Takes the booking's checkout for `worker` at the version it read, unless another worker holds it
 * (a lease not lapsed): one browser checkout per booking at a time.
 */
export async function takeCheckout(db: Queryable, bookingId: string, seq: number, worker: string, leaseMs: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE bookings SET checkout_worker = $3, checkout_until = now() + $4 * interval '1 millisecond'
     WHERE booking_id = $1 AND seq = $2 AND state <> 'finished' AND (checkout_until IS NULL OR checkout_until <= now())`,
    [bookingId, seq, worker, leaseMs],
  );
  return (result.rowCount ?? 0) > 0;
}

/** The holder renews its lease while the page is open; false once it lost it. */
export async function renewCheckout(db: Queryable, bookingId: string, worker: string, leaseMs: number): Promise<boolean> {
  const result = await db.query(`UPDATE bookings SET checkout_until = now() + $3 * interval '1 millisecond' WHERE booking_id = $1 AND checkout_worker = $2`, [bookingId, worker, leaseMs]);
  return (result.rowCount ?? 0) > 0;
}

export async function releaseCheckout(db: Queryable, bookingId: string, worker: string): Promise<void> {
  await db.query('UPDATE bookings SET checkout_worker = NULL, checkout_until = NULL WHERE booking_id = $1 AND checkout_worker = $2', [bookingId, worker]);
}

/**
 * Checkouts whose holder stopped renewing (it died): the lease is cleared and the booking gets a
 * new version, so that its next step (enqueued by the caller when it has work) runs without it.
 */
export async function takeLostCheckouts(db: Queryable, limit: number): Promise<Array<{ bookingId: string; seq: number; work: BookingWork | null }>> {
  const result = await db.query<{ booking_id: string; seq: number; work: BookingWork | null }>(
    `UPDATE bookings SET checkout_worker = NULL, checkout_until = NULL, seq = seq + 1, updated_at = now()
     WHERE booking_id IN (SELECT booking_id FROM bookings WHERE checkout_until <= now() ORDER BY checkout_until LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING booking_id, seq, work`,
    [limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq, work: row.work }));
}
