// Longer than 400 lines: every statement on the bookings and their order state, one query module per
// aggregate as the rest of the store; the stage moves and the order's lease share their locking rules.
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
  /** When the intent was recorded (`placing`): the first order's answer may come until its request's timeout after it. */
  placingOrderAt: Date | null;
  /** Why the order's answer is not known, as the run that sent it saw it (its request's failure). */
  orderCause: string | null;
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
  reference, order_state, placing_order_at, order_cause, price_confirmed_until, available_rooms, price_breakdown, final_price, confirmation, tds_challenge, tds_expires_at,
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

/** A job that must follow a committed change of a booking, written in the change's own statement (ADR 0048). */
export type OutboxJob =
  | { jobId: string; job: 'bookings.step'; payload: { bookingId: string }; delayMs: number }
  | { jobId: string; job: 'bookings.notify'; payload: { bookingId: string; seq: number }; delayMs: number };

/**
 * The outbox rows of the bookings a statement's CTE `source` changed (its columns booking_id, seq,
 * work, callback_url): the next step when there is work (due after `delayParam` ms), the callback
 * when `notify` and the booking has a callback URL. Job ids are `stepJobId` / `notifyJobId`'s.
 */
function queueAfter(source: string, delayParam: string, notify: boolean): string {
  const notifyRows = notify
    ? `UNION ALL
       SELECT 'booking-notify-' || booking_id || '-' || seq, booking_id, 'bookings.notify', jsonb_build_object('bookingId', booking_id, 'seq', seq), now()
       FROM ${source} WHERE callback_url IS NOT NULL`
    : '';
  return `queued AS (
    INSERT INTO booking_outbox (job_id, booking_id, job, payload, run_at)
    SELECT 'booking-' || booking_id || '-' || seq, booking_id, 'bookings.step', jsonb_build_object('bookingId', booking_id), now() + ${delayParam}::int * interval '1 millisecond'
    FROM ${source} WHERE work IS NOT NULL
    ${notifyRows}
    ON CONFLICT (job_id) DO NOTHING
    RETURNING job_id, booking_id, job, payload, (extract(epoch FROM run_at - created_at) * 1000)::int AS delay_ms)`;
}

/** The outbox jobs of one booking, as the main query of a `queueAfter` statement returns them. */
const outboxColumn = (source: string) =>
  `(SELECT coalesce(jsonb_agg(jsonb_build_object('jobId', job_id, 'job', job, 'payload', payload, 'delayMs', delay_ms)), '[]'::jsonb) FROM queued WHERE queued.booking_id = ${source}.booking_id) AS outbox`;

const toOutbox = (value: unknown): OutboxJob[] => (Array.isArray(value) ? (value as OutboxJob[]) : []);

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
  placingOrderAt: row.placing_order_at as Date | null,
  orderCause: (row.order_cause as string | null | undefined) ?? null,
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

/** A new booking in `priceCheck`, its first work the price check, and that step in the outbox (same statement). */
export async function insertBooking(db: Queryable, booking: NewBooking): Promise<{ row: BookingRow; outbox: OutboxJob[] }> {
  const result = await db.query<RawRow>({
    name: 'insert-booking',
    text: `WITH inserted AS (
       INSERT INTO bookings (booking_id, client_id, hotel_id, check_in, nights, guests, room_id, rate_id, reference, callback_url, webhook_secret_sealed, work)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'reprice') RETURNING ${columns}),
     ${queueAfter('inserted', '0', false)}
     SELECT inserted.*, ${outboxColumn('inserted')} FROM inserted`,
    values: [
      booking.bookingId,
      booking.clientId,
      booking.hotelId,
      booking.checkIn,
      booking.nights,
      booking.guests,
      booking.roomId,
      booking.rateId,
      booking.reference,
      booking.callbackUrl,
      booking.webhookSecretSealed,
    ],
  });
  const row = result.rows[0] as RawRow;
  return { row: toRow(row), outbox: toOutbox(row.outbox) };
}

/** Tenant-scoped: another client's booking is the same as a missing one. */
export async function findClientBooking(db: Queryable, clientId: string, bookingId: string): Promise<BookingRow | null> {
  const result = await db.query<RawRow>({
    name: 'find-client-booking',
    text: `SELECT ${columns} FROM bookings WHERE booking_id = $1 AND client_id = $2`,
    values: [bookingId, clientId],
  });
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/** What the client's view of a booking shows (`renderBooking`): no sealed data. */
export type BookingViewRow = Pick<
  BookingRow,
  | 'bookingId'
  | 'clientId'
  | 'state'
  | 'stage'
  | 'createdAt'
  | 'succeededAt'
  | 'failedAt'
  | 'errorCode'
  | 'errorMessage'
  | 'priceConfirmedUntil'
  | 'availableRooms'
  | 'priceBreakdown'
  | 'finalPrice'
  | 'confirmation'
  | 'tdsChallenge'
  | 'reference'
>;

/**
 * Tenant-scoped, the view's columns only: `GET /book/{id}` is the hottest read (clients poll it), so
 * it reads no sealed blobs and runs as a named statement, planned once per connection.
 */
export async function findClientBookingView(db: Queryable, clientId: string, bookingId: string): Promise<BookingViewRow | null> {
  const result = await db.query<RawRow>({
    name: 'find-client-booking-view',
    text: `SELECT booking_id, client_id, state, stage, created_at, succeeded_at, failed_at, error_code, error_message, price_confirmed_until,
             available_rooms, price_breakdown, final_price, confirmation, tds_challenge, reference
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
    reference: row.reference as string,
  };
}

export async function findBooking(db: Queryable, bookingId: string): Promise<BookingRow | null> {
  const result = await db.query<RawRow>({
    name: 'find-booking',
    text: `SELECT ${columns} FROM bookings WHERE booking_id = $1`,
    values: [bookingId],
  });
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
 * sealed token is cleared in the same statement and returned for the vault's purge. What must
 * follow the change (its next step, its callback) is written to the outbox in the same statement
 * and returned. With `replacesUnknown`, a booking that ended `BookingOutcomeUnknown` is moved too:
 * the hotel's late, definite answer about the order replaces what no run could know (ADR 0048).
 */
export async function moveBooking(
  db: Queryable,
  bookingId: string,
  change: {
    from: readonly BookingStage[];
    to: BookingStage;
    state: BookingState;
    seq?: number;
    orderState?: 'none' | 'placing';
    fields?: TransitionFields;
    delayMs?: number;
    replacesUnknown?: boolean;
  },
): Promise<{ row: BookingRow; previousPanToken: Buffer | null; outbox: OutboxJob[] } | null> {
  const values: unknown[] = [bookingId, change.from, change.to, change.state, change.delayMs ?? 0];
  const sets: string[] = ['stage = $3', 'state = $4', 'seq = b.seq + 1', 'updated_at = now()'];
  sets.push(change.state === 'pending' ? 'awaiting_since = now()' : 'awaiting_since = NULL');
  if (change.to === 'bookingConfirmed') sets.push('succeeded_at = now()');
  if (change.to === 'failed' || change.to === 'cancelled') sets.push('failed_at = now()');
  else if (change.replacesUnknown) sets.push('failed_at = NULL', 'error_code = NULL', 'error_message = NULL');
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
  const where = change.replacesUnknown
    ? `((b.stage = ANY($2::text[])${guard}) OR (b.stage = 'failed' AND b.error_code = 'BookingOutcomeUnknown'))`
    : `b.stage = ANY($2::text[])${guard}`;
  const text = `WITH moved AS (
       UPDATE bookings AS b SET ${sets.join(', ')}
       FROM (SELECT booking_id, pan_token_sealed FROM bookings WHERE booking_id = $1 FOR UPDATE) AS before
       WHERE b.booking_id = before.booking_id AND ${where}
       RETURNING ${movedColumns}, before.pan_token_sealed AS previous_pan_token),
     ${queueAfter('moved', '$5', true)}
     SELECT moved.*, ${outboxColumn('moved')} FROM moved`;
  const result = await db.query<RawRow & { previous_pan_token: Buffer | null }>({
    name: statementName('move-booking', text),
    text,
    values,
  });
  const row = result.rows[0];
  return row ? { row: toRow(row), previousPanToken: row.previous_pan_token, outbox: toOutbox(row.outbox) } : null;
}

/**
 * Records, in its own committed statement before the order leaves (`OTA_HotelResRQ`, or the
 * booking page's order button), that the order is about to be placed: from here on no run places it
 * again. Only the run that holds the booking's order lease (or its checkout's lease), live, at the
 * version it read: a run that lost the booking (paused, cut off) never orders.
 */
export async function markPlacingOrder(
  db: Queryable,
  bookingId: string,
  seq: number,
  holder: { order: string } | { checkout: string },
): Promise<boolean> {
  const held = 'order' in holder ? 'order_owner = $3 AND order_lease_until > now()' : 'checkout_worker = $3 AND checkout_until > now()';
  const text = `UPDATE bookings SET order_state = 'placing', placing_order_at = now(), updated_at = now()
     WHERE booking_id = $1 AND seq = $2 AND stage = 'processingBooking' AND work = 'placeOrder' AND order_state IS NULL AND ${held}`;
  const result = await db.query({
    name: statementName('mark-placing-order', text),
    text,
    values: [bookingId, seq, 'order' in holder ? holder.order : holder.checkout],
  });
  return (result.rowCount ?? 0) > 0;
}

/**
 * What `claimOrder` found: the booking, its order now this run's to place or to recover; another
 * run's live lease (until when); or no order to work on (the booking moved on or ended).
 */
export type OrderClaim = { kind: 'claimed'; row: BookingRow } | { kind: 'held'; until: Date } | { kind: 'gone' };

/**
 * Keeps why an order's answer is not known (its first cause) for the run that may end the booking
 * `BookingOutcomeUnknown`; the first cause recorded stays.
 */
export async function recordOrderCause(db: Queryable, bookingId: string, cause: string): Promise<void> {
  await db.query({
    name: 'record-booking-order-cause',
    text: `UPDATE bookings SET order_cause = $2 WHERE booking_id = $1 AND order_state = 'placing' AND order_cause IS NULL`,
    values: [bookingId, cause.slice(0, 500)],
  });
}

/**
 * Takes the booking's order lease for `owner` for `leaseMs`: when no run holds it, when its holder
 * let it lapse, or when `owner` holds it already. Does not change the booking's version: the holder
 * moves it at the version it read.
 */
export async function claimOrder(db: Queryable, bookingId: string, owner: string, leaseMs: number): Promise<OrderClaim> {
  const result = await db.query<RawRow>({
    name: 'claim-booking-order',
    text: `UPDATE bookings SET order_owner = $2, order_lease_until = now() + $3::int * interval '1 millisecond'
     WHERE booking_id = $1 AND state <> 'finished' AND work = 'placeOrder' AND (order_owner IS NULL OR order_owner = $2 OR order_lease_until <= now())
     RETURNING ${columns}`,
    values: [bookingId, owner, leaseMs],
  });
  const claimed = result.rows[0];
  if (claimed) return { kind: 'claimed', row: toRow(claimed) };
  const found = await db.query<{ state: BookingState; work: BookingWork | null; order_lease_until: Date | null }>(
    'SELECT state, work, order_lease_until FROM bookings WHERE booking_id = $1',
    [bookingId],
  );
  const current = found.rows[0];
  if (!current || current.state === 'finished' || current.work !== 'placeOrder' || !current.order_lease_until) return { kind: 'gone' };
  return { kind: 'held', until: current.order_lease_until };
}

/** The holder renews its order lease while the hotel is asked; false once another run holds it, or the booking ended. */
export async function renewOrderLease(db: Queryable, bookingId: string, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db.query({
    name: 'renew-booking-order',
    text: `UPDATE bookings SET order_lease_until = now() + $3::int * interval '1 millisecond' WHERE booking_id = $1 AND order_owner = $2 AND state <> 'finished'`,
    values: [bookingId, owner, leaseMs],
  });
  return (result.rowCount ?? 0) > 0;
}

/** A run that stops (done, handed back, waiting) lets the next one take the order at once instead of waiting out its lease. */
export async function releaseOrderLease(db: Queryable, bookingId: string, owner: string): Promise<void> {
  await db.query('UPDATE bookings SET order_owner = NULL, order_lease_until = NULL WHERE booking_id = $1 AND order_owner = $2', [
    bookingId,
    owner,
  ]);
}

/**
 * A new version of a booking that stays where it is, its next step (when it has work) due after
 * `delayMs` and in the outbox with the change (the next 3-D Secure poll gets its own job id).
 */
export async function touchBooking(
  db: Queryable,
  bookingId: string,
  seq: number,
  delayMs = 0,
): Promise<{ seq: number; outbox: OutboxJob[] } | null> {
  const result = await db.query<{ seq: number; outbox: unknown }>(
    `WITH moved AS (UPDATE bookings SET seq = seq + 1, updated_at = now() WHERE booking_id = $1 AND seq = $2 RETURNING booking_id, seq, work, callback_url),
     ${queueAfter('moved', '$3', false)}
     SELECT moved.seq, ${outboxColumn('moved')} FROM moved`,
    [bookingId, seq, delayMs],
  );
  const row = result.rows[0];
  return row ? { seq: row.seq, outbox: toOutbox(row.outbox) } : null;
}

/** The hotel holds the order undecided (no challenge to show): the worker reads it again (after `delayMs`) until `expiresAt`. */
export async function keepReadingOrder(
  db: Queryable,
  bookingId: string,
  seq: number,
  expiresAt: Date,
  delayMs: number,
): Promise<{ seq: number; outbox: OutboxJob[] } | null> {
  const result = await db.query<{ seq: number; outbox: unknown }>(
    `WITH moved AS (
       UPDATE bookings SET seq = seq + 1, updated_at = now(), order_state = 'placed', work = 'readOrder', tds_expires_at = coalesce(tds_expires_at, $3)
       WHERE booking_id = $1 AND seq = $2 RETURNING booking_id, seq, work, callback_url),
     ${queueAfter('moved', '$4', false)}
     SELECT moved.seq, ${outboxColumn('moved')} FROM moved`,
    [bookingId, seq, expiresAt, delayMs],
  );
  const row = result.rows[0];
  return row ? { seq: row.seq, outbox: toOutbox(row.outbox) } : null;
}

/** Outbox jobs not yet in Redis, written before `olderThanMs` ago (the change's caller had its chance first). */
export async function listOutbox(db: Queryable, olderThanMs: number, limit: number): Promise<OutboxJob[]> {
  const result = await db.query<{ job_id: string; job: OutboxJob['job']; payload: OutboxJob['payload']; delay_ms: number }>(
    `SELECT job_id, job, payload, greatest(0, (extract(epoch FROM run_at - now()) * 1000)::int) AS delay_ms
     FROM booking_outbox WHERE created_at < now() - $1::int * interval '1 millisecond' ORDER BY created_at LIMIT $2`,
    [olderThanMs, limit],
  );
  return result.rows.map((row) => ({ jobId: row.job_id, job: row.job, payload: row.payload, delayMs: row.delay_ms }) as OutboxJob);
}

/** Jobs now in Redis. */
export async function deleteOutbox(db: Queryable, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db.query('DELETE FROM booking_outbox WHERE job_id = ANY($1::text[])', [jobIds]);
}

/** Bookings awaiting a client input since before `since`. */
export async function listAwaitingSince(
  db: Queryable,
  stages: readonly BookingStage[],
  since: Date,
  limit: number,
): Promise<Array<{ bookingId: string; seq: number }>> {
  const result = await db.query<{ booking_id: string; seq: number }>(
    `SELECT booking_id, seq FROM bookings WHERE state = 'pending' AND stage = ANY($1::text[]) AND awaiting_since < $2 ORDER BY awaiting_since LIMIT $3`,
    [stages, since, limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq }));
}

/** Unfinished bookings created before `before` whose order was never sent (JobTimeout may end them). */
export async function listCreatedBefore(
  db: Queryable,
  before: Date,
  limit: number,
): Promise<Array<{ bookingId: string; seq: number; stage: BookingStage }>> {
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
  const result = await db.query(
    `UPDATE bookings SET checkout_until = now() + $3 * interval '1 millisecond' WHERE booking_id = $1 AND checkout_worker = $2`,
    [bookingId, worker, leaseMs],
  );
  return (result.rowCount ?? 0) > 0;
}

export async function releaseCheckout(db: Queryable, bookingId: string, worker: string): Promise<void> {
  await db.query('UPDATE bookings SET checkout_worker = NULL, checkout_until = NULL WHERE booking_id = $1 AND checkout_worker = $2', [
    bookingId,
    worker,
  ]);
}

/**
 * Checkouts whose holder stopped renewing (it died): the lease is cleared and the booking gets a
 * new version, so that its next step (enqueued by the caller when it has work) runs without it.
 */
export async function takeLostCheckouts(
  db: Queryable,
  limit: number,
): Promise<Array<{ bookingId: string; seq: number; outbox: OutboxJob[] }>> {
  const result = await db.query<{ booking_id: string; seq: number; outbox: unknown }>(
    `WITH moved AS (
       UPDATE bookings SET checkout_worker = NULL, checkout_until = NULL, seq = seq + 1, updated_at = now()
       WHERE booking_id IN (SELECT booking_id FROM bookings WHERE checkout_until <= now() ORDER BY checkout_until LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING booking_id, seq, work, callback_url),
     ${queueAfter('moved', '0', false)}
     SELECT moved.booking_id, moved.seq, ${outboxColumn('moved')} FROM moved`,
    [limit],
  );
  return result.rows.map((row) => ({ bookingId: row.booking_id, seq: row.seq, outbox: toOutbox(row.outbox) }));
}
