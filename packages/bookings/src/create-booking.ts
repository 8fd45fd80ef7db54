import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, CreateBookingBody, describeIssues, validationError, type CreatedBooking } from '@quarry/contracts';
import type { BookingsPorts } from './bookings-ports.ts';
import { insertBooking } from './bookings.queries.ts';
import { flushOutbox } from './booking-moves.ts';

/** Our reference at the hotel: short enough for any OpenTravel UniqueID (ID is at most 32 characters). */
const newReference = () => `QB${randomBytes(12).toString('hex').toUpperCase()}`;

/**
 * POST /v1/bookings: a booking of one rate of a hotel granted to the client, in `priceCheck`; the
 * worker re-prices it with the hotel. With `callbackUrl`, the answer carries the secret that signs
 * every callback (shown once, kept sealed).
 */
export async function createBooking(ports: BookingsPorts, clientId: string, body: unknown): Promise<CreatedBooking> {
  const parsed = CreateBookingBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const request = parsed.data;
  if (request.callbackUrl) {
    // Checked again at each delivery (a name may resolve elsewhere later); refused here so a
    // client learns of it now rather than by callbacks that never come.
    await ports.checkCallbackUrl(request.callbackUrl).catch((error: unknown) => {
      throw validationError([`callbackUrl: refused: ${(error as Error).message}`]);
    });
  }
  const hotel = await ports.findGrantedHotel(clientId, request.hotelId);
  if (!hotel) throw new AppError('NotFound', `hotel ${request.hotelId} does not exist`);
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
    webhookSecretSealed: webhookSecret ? ports.sealer.seal(webhookSecret) : null,
  });
  // The step is in the outbox with the booking: Redis away here, the relay enqueues it once it is back.
  await flushOutbox(ports, outbox);
  return { bookingId, state: row.state, stage: row.stage, ...(webhookSecret ? { webhookSecret } : {}) };
}
