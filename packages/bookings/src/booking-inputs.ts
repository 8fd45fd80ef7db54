import { sealedColumns } from '@quarry/keyring';
import {
  AppError,
  AvailableRooms,
  BookBody,
  ConfirmPriceBody,
  ConsentBody,
  describeIssues,
  validationError,
  type BookingStage,
  type BookingStatus,
} from '@quarry/contracts';
import { PanTokenInvalidError } from '@quarry/vault';
import { applyMove } from './booking-moves.ts';
import { canonical } from './booking-prices.ts';
import { cancellable } from './booking-stages.ts';
import type { BookingsPorts } from './bookings-ports.ts';
import type { BookingRow } from './bookings.queries.ts';
import { loadClientBooking, parseBookingId, renderBooking } from './find-booking.ts';

function notInStage(row: BookingRow, wanted: string): AppError {
  return new AppError('Conflict', `booking ${row.bookingId} is in stage ${row.stage}; this request needs ${wanted}`, { stage: row.stage });
}

/** The move lost to another change (the sweep timing out, the client cancelling): say where the booking is now. */
async function moved(
  ports: BookingsPorts,
  clientId: string,
  row: BookingRow,
  result: BookingRow | null,
  wanted: string,
): Promise<BookingStatus> {
  if (result) return renderBooking(result);
  throw notInStage(await loadClientBooking(ports, clientId, row.bookingId), wanted);
}

/** POST /Booking/prices/confirm: the client takes one of the prices `roomSelection` shows. */
export async function confirmPrice(ports: BookingsPorts, clientId: string, body: unknown): Promise<BookingStatus> {
  const parsed = ConfirmPriceBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const row = await loadClientBooking(ports, clientId, parsed.data.bookingId);
  if (row.stage !== 'roomSelection') throw notInStage(row, 'roomSelection');
  const rooms = AvailableRooms.parse(row.availableRooms ?? []);
  for (const room of rooms) {
    const rate = room.rates.find((candidate) => candidate.priceId === parsed.data.priceId);
    if (!rate) continue;
    const result = await applyMove(ports, row.bookingId, {
      from: ['roomSelection'],
      to: 'priceConfirmed',
      seq: row.seq,
      fields: { roomId: room.roomId, rateId: rate.rateId, priceBreakdown: rate.price, skipConfirmation: false },
    });
    return moved(ports, clientId, row, result, 'roomSelection');
  }
  throw new AppError('NotFound', `priceId ${parsed.data.priceId} is not one of this booking's available prices`, {
    messages: [`priceId: not one of booking ${row.bookingId}'s available prices`],
  });
}

/**
 * POST /book/{bookingId}: books the confirmed price with the guests and the card's token, or (with
 * `skipConfirmation`) only asks the hotel for its current prices of every room.
 */
export async function bookBooking(ports: BookingsPorts, clientId: string, bookingId: unknown, body: unknown): Promise<BookingStatus> {
  parseBookingId(bookingId);
  const parsed = BookBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const request = parsed.data;
  const row = await loadClientBooking(ports, clientId, bookingId);
  if (request.skipConfirmation) {
    if (row.stage !== 'priceConfirmed' && row.stage !== 'roomSelection') throw notInStage(row, 'priceConfirmed or roomSelection');
    const result = await applyMove(ports, row.bookingId, {
      from: [row.stage],
      to: 'processingBooking',
      seq: row.seq,
      fields: { work: 'survey', skipConfirmation: true },
    });
    return moved(ports, clientId, row, result, 'priceConfirmed or roomSelection');
  }
  const problems: string[] = [];
  if (!request.details) problems.push('details: required (mainGuest, otherGuests, contact) unless skipConfirmation is true');
  if (!request.panToken) problems.push('panToken: required unless skipConfirmation is true');
  else if (!ports.vault.isPanTokenShaped(request.panToken))
    problems.push('panToken: not a card token (v1: 164 characters; v2: "v2:" and 296 more)');
  if (problems.length > 0 || !request.details || !request.panToken) throw validationError(problems);
  if (row.stage !== 'priceConfirmed') throw notInStage(row, 'priceConfirmed (confirm a priceId first)');
  // A token that cannot pay is refused now, the booking left waiting for a good one: found only at
  // the order, it would end the booking and the client would start over.
  await ports.vault.checkCard(request.panToken, { clientId }).catch((error: unknown) => {
    if (!(error instanceof PanTokenInvalidError)) throw error;
    throw validationError([
      `panToken: not usable (${error.reason}): store the card again (POST /vault/otp, then POST /vault/pan) and send its new token; booking ${row.bookingId} stays in priceConfirmed`,
    ]);
  });
  // The CVV's clock restarts when a booking takes the card: kept as long as the booking may still
  // order, not the vault's 15 minutes from the store (the quote and the consent come first). Before
  // the commit: a store that cannot be reached answers 503 with nothing changed.
  if (ports.cvvHoldMs !== undefined) await ports.vault.holdCvv(request.panToken, { clientId }, ports.cvvHoldMs);
  const result = await applyMove(ports, row.bookingId, {
    from: ['priceConfirmed'],
    to: 'processingBooking',
    seq: row.seq,
    fields: {
      work: 'quote',
      skipConfirmation: false,
      detailsSealed: ports.sealer.seal(sealedColumns.bookingDetails, row.bookingId, JSON.stringify(request.details)),
      panTokenSealed: ports.sealer.seal(sealedColumns.bookingPanToken, row.bookingId, request.panToken),
    },
  });
  return moved(ports, clientId, row, result, 'priceConfirmed');
}

/** POST /book/{bookingId}/consent: an exact copy of `finalPrice` lets the order go to the hotel. */
export async function consentToFinalPrice(
  ports: BookingsPorts,
  clientId: string,
  bookingId: unknown,
  body: unknown,
): Promise<BookingStatus> {
  parseBookingId(bookingId);
  const parsed = ConsentBody.safeParse(body ?? {});
  if (!parsed.success) throw validationError(describeIssues(parsed.error));
  const row = await loadClientBooking(ports, clientId, bookingId);
  if (row.stage !== 'finalPriceConsent') throw notInStage(row, 'finalPriceConsent');
  if (parsed.data.finalPrice === undefined || canonical(parsed.data.finalPrice) !== canonical(row.finalPrice)) {
    throw new AppError(
      'FinalPriceNotFound',
      `finalPrice is not an exact copy of the final price booking ${row.bookingId} shows; nothing was booked`,
    );
  }
  const result = await applyMove(ports, row.bookingId, {
    from: ['finalPriceConsent'],
    to: 'processingBooking',
    seq: row.seq,
    fields: { work: 'placeOrder', consentedAt: (ports.now ?? (() => new Date()))() },
  });
  return moved(ports, clientId, row, result, 'finalPriceConsent');
}

/** POST /book/{bookingId}/cancel: possible until the order is being placed with the hotel. */
export async function cancelBooking(ports: BookingsPorts, clientId: string, bookingId: unknown): Promise<BookingStatus> {
  const row = await loadClientBooking(ports, clientId, bookingId);
  const wanted = 'a stage before the order is placed';
  if (!cancellable.includes(row.stage) || row.orderState !== null) throw notInStage(row, wanted);
  const result = await applyMove(ports, row.bookingId, { from: [row.stage as BookingStage], to: 'cancelled', orderState: 'none' });
  return moved(ports, clientId, row, result, wanted);
}
