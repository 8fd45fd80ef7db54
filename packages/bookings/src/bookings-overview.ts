import { BookingsOverviewQuery, describeIssues, validationError, type BookingsOverview } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import {
  countBookingsByStage,
  countFailuresByErrorCode,
  listFailedBookings,
  sourceFailuresByHotel,
  type BookingProblemRow,
} from './bookings-overview.queries.ts';

const problemOf = (row: BookingProblemRow): BookingsOverview['outcomeUnknown'][number] => ({
  bookingId: row.booking_id,
  reference: row.reference,
  hotelId: row.hotel_id,
  hotelName: row.hotel_name,
  clientId: row.client_id,
  clientName: row.client_name,
  stage: row.stage,
  errorCode: row.error_code,
  errorMessage: row.error_message,
  failedAt: row.failed_at?.toISOString() ?? null,
  createdAt: row.created_at.toISOString(),
});

/**
 * The operators' view of every client's bookings (read only): how many are at each stage, the
 * window's failures by code, the orders the hotel could not confirm or deny (to check with it by
 * reference) apart from the other failures, and which hotels' sources fail.
 */
export async function bookingsOverview(db: Queryable, query: unknown, now: Date = new Date(), limit = 25): Promise<BookingsOverview> {
  const parsed = BookingsOverviewQuery.safeParse(query ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const { hours } = parsed.data;
  const since = new Date(now.getTime() - hours * 3_600_000);
  const [byStage, byErrorCode, outcomeUnknown, recentFailures, hotels] = await Promise.all([
    countBookingsByStage(db),
    countFailuresByErrorCode(db, since),
    listFailedBookings(db, since, true, limit),
    listFailedBookings(db, since, false, limit),
    sourceFailuresByHotel(db, since),
  ]);
  return {
    hours,
    byStage,
    byErrorCode,
    outcomeUnknown: outcomeUnknown.map(problemOf),
    recentFailures: recentFailures.map(problemOf),
    sourceFailuresByHotel: hotels.map((row) => ({
      hotelId: row.hotel_id,
      hotelName: row.hotel_name,
      rateFailures: Number(row.rate_failures),
      failedBookings: Number(row.failed_bookings),
      lastFailure:
        row.last_kind && row.last_reason && row.last_at
          ? { kind: row.last_kind, reason: row.last_reason, at: row.last_at.toISOString() }
          : null,
    })),
  };
}
