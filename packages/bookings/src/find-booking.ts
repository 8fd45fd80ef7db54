import { AppError, validationError, type BookingErrorCode, type BookingStatus } from '@quarry/contracts';
import { z } from 'zod';
import type { BookingsPorts } from './bookings-ports.ts';
import { findClientBooking, findClientBookingView, type BookingRow, type BookingViewRow } from './bookings.queries.ts';
import { withVettedAcsUrl } from './acs-url.ts';

const bookingIdSchema = z.uuid();

export function parseBookingId(value: unknown): string {
  const parsed = bookingIdSchema.safeParse(value);
  if (!parsed.success) throw validationError(['bookingId: must be a UUID']);
  return parsed.data;
}

/** The client's view of a booking: never the card's token, the guests' details or the webhook secret. */
export function renderBooking(row: BookingViewRow): BookingStatus {
  const iso = (date: Date | null) => (date ? date.toISOString() : null);
  return {
    bookingId: row.bookingId,
    clientId: row.clientId,
    state: row.state,
    stage: row.stage,
    createdAt: row.createdAt.toISOString(),
    succeededAt: iso(row.succeededAt),
    failedAt: iso(row.failedAt),
    error: row.errorCode ? { code: row.errorCode as BookingErrorCode, message: row.errorMessage ?? '' } : null,
    priceConfirmedUntil: row.stage === 'priceConfirmed' ? iso(row.priceConfirmedUntil) : null,
    availableRooms: row.stage === 'roomSelection' ? (row.availableRooms as BookingStatus['availableRooms']) : null,
    priceBreakdown: (row.priceBreakdown as BookingStatus['priceBreakdown']) ?? null,
    finalPrice: (row.finalPrice as BookingStatus['finalPrice']) ?? null,
    confirmation: (row.confirmation as BookingStatus['confirmation']) ?? null,
    tdsChallenge: row.stage === 'awaitingTdsChallenge' ? (row.tdsChallenge as BookingStatus['tdsChallenge']) : null,
    orderReference: row.reference,
  };
}

/** The booking of this client, or a 404 exactly like a missing one when it is another client's. */
export async function loadClientBooking(ports: Pick<BookingsPorts, 'pool'>, clientId: string, bookingId: unknown): Promise<BookingRow> {
  const id = parseBookingId(bookingId);
  const row = await findClientBooking(ports.pool, clientId, id);
  if (!row) throw new AppError('NotFound', `booking ${id} does not exist`);
  return row;
}

/** The client's view of its booking, read from the store. */
export async function findBooking(ports: Pick<BookingsPorts, 'pool'>, clientId: string, bookingId: unknown): Promise<BookingStatus> {
  const id = parseBookingId(bookingId);
  const row = await findClientBookingView(ports.pool, clientId, id);
  if (!row) throw new AppError('NotFound', `booking ${id} does not exist`);
  return renderBooking(row);
}

/** GET /book/{bookingId}: the status as JSON text, from this process's copy when it holds a current one. */
export async function findBookingStatusText(
  ports: Pick<BookingsPorts, 'pool' | 'statusCache' | 'tdsPage'>,
  clientId: string,
  bookingId: unknown,
): Promise<string> {
  const id = parseBookingId(bookingId);
  const cached = ports.statusCache?.get(clientId, id);
  if (cached !== undefined) return cached;
  const reservation = ports.statusCache?.reservation() ?? null;
  const status = JSON.stringify(await withVettedAcsUrl(ports.tdsPage, await findBooking(ports, clientId, id)));
  if (reservation !== null) ports.statusCache?.keep(reservation, clientId, id, status);
  return status;
}
