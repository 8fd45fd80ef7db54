import { z } from 'zod';

/** One booking the operators look at: a failure, or an order whose outcome the hotel could not tell. */
const BookingProblem = z.object({
  bookingId: z.uuid(),
  reference: z.string().describe('The reference the hotel knows the booking by (sent as the reservation UniqueID)'),
  hotelId: z.string(),
  hotelName: z.string().nullable().describe('null when the hotel was removed from the registry since'),
  clientId: z.string(),
  clientName: z.string(),
  stage: z.string(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  failedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});

/** GET /v1/admin/bookings: every client's bookings, as operators watch them. */
export const BookingsOverview = z.object({
  hours: z.number().int().describe('The window of the error counts, the problem lists and the source failures'),
  byStage: z
    .array(z.object({ stage: z.string(), count: z.number().int() }))
    .describe('Every booking by its current stage, whatever its age'),
  byErrorCode: z
    .array(z.object({ errorCode: z.string(), count: z.number().int() }))
    .describe('Bookings that failed within the window, by error code'),
  outcomeUnknown: z
    .array(BookingProblem)
    .describe('Newest first: bookings whose order may have been placed, to check with the hotel by reference'),
  recentFailures: z.array(BookingProblem).describe('Newest first: the other failed bookings within the window'),
  sourceFailuresByHotel: z
    .array(
      z.object({
        hotelId: z.string(),
        hotelName: z.string().nullable(),
        rateFailures: z.number().int().describe("The hotel's source failing a rates fetch within the window"),
        failedBookings: z.number().int().describe('Bookings at the hotel that failed within the window'),
        lastFailure: z
          .object({ kind: z.string(), reason: z.string(), at: z.iso.datetime() })
          .nullable()
          .describe("The source's newest rates failure"),
      }),
    )
    .describe('Per hotel with any failure within the window, most failures first'),
});
export type BookingsOverview = z.infer<typeof BookingsOverview>;

export const BookingsOverviewQuery = z.object({
  hours: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24)
    .describe('The window, in hours (1 to 720; 24 by default)'),
});
