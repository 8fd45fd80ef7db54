import type { Queryable } from '@quarry/db';

export type BookingProblemRow = {
  booking_id: string;
  reference: string;
  hotel_id: string;
  hotel_name: string | null;
  client_id: string;
  client_name: string;
  stage: string;
  error_code: string | null;
  error_message: string | null;
  failed_at: Date | null;
  created_at: Date;
};

export async function countBookingsByStage(db: Queryable): Promise<Array<{ stage: string; count: number }>> {
  const result = await db.query<{ stage: string; count: string }>(
    'SELECT stage, count(*) AS count FROM bookings GROUP BY stage ORDER BY count(*) DESC, stage',
  );
  return result.rows.map((row) => ({ stage: row.stage, count: Number(row.count) }));
}

export async function countFailuresByErrorCode(db: Queryable, since: Date): Promise<Array<{ errorCode: string; count: number }>> {
  const result = await db.query<{ error_code: string; count: string }>(
    `SELECT coalesce(error_code, 'none') AS error_code, count(*) AS count FROM bookings
     WHERE stage = 'failed' AND failed_at >= $1 GROUP BY 1 ORDER BY count(*) DESC, 1`,
    [since],
  );
  return result.rows.map((row) => ({ errorCode: row.error_code, count: Number(row.count) }));
}

/** Failed bookings within the window, newest first: those whose outcome is unknown, or the others. */
export async function listFailedBookings(db: Queryable, since: Date, outcomeUnknown: boolean, limit: number): Promise<BookingProblemRow[]> {
  const result = await db.query<BookingProblemRow>(
    `SELECT b.booking_id, b.reference, b.hotel_id, h.name AS hotel_name, b.client_id, c.name AS client_name, b.stage,
            b.error_code, b.error_message, b.failed_at, b.created_at
     FROM bookings b JOIN clients c ON c.client_id = b.client_id LEFT JOIN hotels h ON h.hotel_id = b.hotel_id
     WHERE b.stage = 'failed' AND b.failed_at >= $1 AND (coalesce(b.error_code, '') LIKE '%OutcomeUnknown') = $2
     ORDER BY b.failed_at DESC LIMIT $3`,
    [since, outcomeUnknown, limit],
  );
  return result.rows;
}

/** Per hotel with a rates-source failure or a failed booking within the window. */
export async function sourceFailuresByHotel(
  db: Queryable,
  since: Date,
): Promise<
  Array<{
    hotel_id: string;
    hotel_name: string | null;
    rate_failures: string;
    failed_bookings: string;
    last_kind: string | null;
    last_reason: string | null;
    last_at: Date | null;
  }>
> {
  const result = await db.query<{
    hotel_id: string;
    hotel_name: string | null;
    rate_failures: string;
    failed_bookings: string;
    last_kind: string | null;
    last_reason: string | null;
    last_at: Date | null;
  }>(
    `WITH rates AS (
       SELECT hotel_id, count(*) AS failures FROM rate_source_failures WHERE failed_at >= $1 GROUP BY hotel_id
     ), booked AS (
       SELECT hotel_id, count(*) AS failures FROM bookings WHERE stage = 'failed' AND failed_at >= $1 GROUP BY hotel_id
     ), hotel_ids AS (SELECT hotel_id FROM rates UNION SELECT hotel_id FROM booked)
     SELECT i.hotel_id, h.name AS hotel_name, coalesce(r.failures, 0) AS rate_failures, coalesce(b.failures, 0) AS failed_bookings,
            last.kind AS last_kind, last.reason AS last_reason, last.failed_at AS last_at
     FROM hotel_ids i
     LEFT JOIN hotels h ON h.hotel_id = i.hotel_id
     LEFT JOIN rates r ON r.hotel_id = i.hotel_id
     LEFT JOIN booked b ON b.hotel_id = i.hotel_id
     LEFT JOIN LATERAL (
       SELECT kind, reason, failed_at FROM rate_source_failures f WHERE f.hotel_id = i.hotel_id AND f.failed_at >= $1 ORDER BY failed_at DESC LIMIT 1
     ) last ON true
     ORDER BY coalesce(r.failures, 0) + coalesce(b.failures, 0) DESC, i.hotel_id
     LIMIT 100`,
    [since],
  );
  return result.rows;
}
