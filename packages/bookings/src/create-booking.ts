import { sealedColumns } from '@quarry/keyring';
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, CreateBookingBody, describeIssues, validationError, type CreatedBooking } from '@quarry/contracts';
import type { HotelRow } from '@quarry/rates';
import type { BookingsPorts } from './bookings-ports.ts';
import { insertBooking } from './bookings.queries.ts';
import { flushOutbox } from './booking-moves.ts';

/** Our reference at the hotel: short enough for any OpenTravel UniqueID (ID is at most 32 characters). */
const newReference = () => `QB${randomBytes(12).toString('hex').toUpperCase()}`;

const dayMs = 86_400_000;

/**
 * What makes a stay one the rates feed cannot price (it would list no rate of it to book): a
 * guest count the hotel is not priced for, a check-in past the feed's horizon. One message per field.
 */
function unpricedStay(
  hotel: HotelRow,
  stay: { hotelId: string; checkIn: string; guests: number },
  today: string,
  horizonDays: number | undefined,
): string[] {
  const problems: string[] = [];
  if (!hotel.guests.includes(stay.guests)) {
    problems.push(
      `guests: hotel ${stay.hotelId} is priced for ${hotel.guests.join(' or ')} guest(s) only, not ${stay.guests} (GET /Pull/Hotels lists each hotel's guest counts)`,
    );
  }
  if (horizonDays !== undefined) {
    const last = new Date(Date.parse(`${today}T00:00:00Z`) + (horizonDays - 1) * dayMs).toISOString().slice(0, 10);
    if (stay.checkIn > last)
      problems.push(
        `checkIn: ${stay.checkIn} is beyond the rates feed's horizon of ${horizonDays} days: the last check-in it prices is ${last}`,
      );
  }
  return problems;
}

/**
 * POST /v1/bookings: a booking of one rate of a hotel granted to the client, in `priceCheck`; the
 * worker re-prices it with the hotel. With `callbackUrl`, the answer carries the secret that signs
 * every callback (shown once, kept sealed).
 */
export async function createBooking(ports: BookingsPorts, clientId: string, body: unknown): Promise<CreatedBooking> {
  const parsed = CreateBookingBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const request = parsed.data;
  // The feed's day, UTC: a stay it would list is one a booking may take.
  const today = (ports.now ?? (() => new Date()))().toISOString().slice(0, 10);
  if (request.checkIn < today)
    throw validationError([`checkIn: ${request.checkIn} is in the past (today is ${today}, UTC): book a stay that starts today or later`]);
  if (request.callbackUrl) {
    // Checked again at each delivery (a name may resolve elsewhere later); refused here so a
    // client learns of it now rather than by callbacks that never come.
    await ports.checkCallbackUrl(request.callbackUrl).catch((error: unknown) => {
      throw validationError([`callbackUrl: refused: ${(error as Error).message}`]);
    });
  }
  const hotel = await ports.findGrantedHotel(clientId, request.hotelId);
  if (!hotel) throw new AppError('NotFound', `hotel ${request.hotelId} does not exist`);
  const unpriced = unpricedStay(hotel, request, today, ports.horizonDays);
  if (unpriced.length > 0) throw validationError(unpriced);
  const webhookSecret = request.callbackUrl ? `whsec_${randomBytes(32).toString('base64')}` : undefined;
  const bookingId = randomUUID();
  const { row, outbox } = await insertBooking(ports.pool, {
    bookingId,
    clientId,
    hotelId: hotel.hotelId,
    checkIn: request.checkIn,
    nights: request.nights,
    guests: request.guests,
    roomId: request.roomId,
    rateId: request.rateId,
    reference: newReference(),
    callbackUrl: request.callbackUrl ?? null,
    webhookSecretSealed: webhookSecret ? ports.sealer.seal(sealedColumns.bookingWebhookSecret, bookingId, webhookSecret) : null,
  });
  // The step is in the outbox with the booking: Redis away here, the relay enqueues it once it is back.
  await flushOutbox(ports, outbox);
  return { bookingId, state: row.state, stage: row.stage, ...(webhookSecret ? { webhookSecret } : {}) };
}
