// Longer than 400 lines: one job's step of a booking, from its hold to the recorded answer; the order
// placed at most once is easier to check when the hold, the send and the record read top to bottom.
import { sealedColumns } from '@quarry/keyring';
import { randomUUID } from 'node:crypto';
import { BookingDetails, BookingPrice, type BookingErrorCode } from '@quarry/contracts';
import { RunLater } from '@quarry/jobs';
import type { HotelRow } from '@quarry/rates';
import { CvvUnavailableError, PanTokenInvalidError, type CardDetails } from '@quarry/vault';
import type { BookingEngine, CancelOutcome, OrderOutcome, Stay } from './booking-engine.ts';
import { applyMove, flushOutbox } from './booking-moves.ts';
import { availableRoomsOf, findRate, priceOf, samePrice } from './booking-prices.ts';
import type { WorkerPorts } from './bookings-ports.ts';
import {
  claimOrder,
  findBooking,
  keepReadingOrder,
  markPlacingOrder,
  recordOrderCause,
  releaseOrderLease,
  touchBooking,
  type BookingRow,
} from './bookings.queries.ts';
import { keepOrderLease } from './order-lease.ts';

/** What the job reports to its log: ids, stages and codes only, never guests or cards. */
export type StepSummary = { bookingId: string; work: string | null; outcome: string };

/**
 * The level a step's summary is logged at: a booking that ended `BookingOutcomeUnknown` may hold a
 * room the client was told nothing certain of, and needs someone to ask the hotel (warn).
 */
export const stepLogLevel = (summary: StepSummary): 'warn' | 'info' =>
  summary.outcome === 'failed BookingOutcomeUnknown' ? 'warn' : 'info';

/**
 * The message of a `BookingOutcomeUnknown`: what happened first (`cause`: the order's request, or
 * the run that sent it), then what the hotel said when asked (`asked`), and the reference to quote.
 */
function outcomeUnknownMessage(reference: string, cause: string, asked: string): string {
  return `The order may have reached the hotel: ${cause}, and ${asked}. It is not placed again: check with the hotel for a reservation under our reference ${reference} (orderReference) before booking again.`;
}

/** The first cause when the run that sent the order recorded none: it stopped before it could. */
const stoppedCause = "the run that sent the order stopped before it recorded the hotel's answer";
const causeOf = (row: BookingRow) => row.orderCause ?? stoppedCause;

/** A source failure worth another attempt of the job (the hotel unreachable, a timeout). */
class TransientSourceFailure extends Error {
  readonly code: BookingErrorCode;
  constructor(code: BookingErrorCode, reason: string) {
    super(reason);
    this.name = 'TransientSourceFailure';
    this.code = code;
  }
}

export type Context = {
  signal: AbortSignal;
  finalAttempt: boolean;
  /** Aborted (with `signal`) when the queue's lock on the job was lost: a run past its intent goes on to record the hotel's answer. */
  lockLost?: AbortSignal;
};

/** A run that finds another's live hold waits until it could lapse, with jitter, without spending an attempt. */
const waitFor = (until: number) => Math.max(1_000, until - Date.now() + 500 + Math.round(Math.random() * 1_000));
/** Time for an order's answer past its request's own timeout (the hotel's clock, the network). */
const answerGraceMs = 5_000;

/**
 * The `bookings.step` job: does the booking's current work (re-price, survey, quote, place the
 * order, read it after a 3-D Secure challenge) and moves it to its next stage. A client input is
 * never waited for here: the job ends, and the input's request enqueues the next one.
 */
export async function runBookingStep(ports: WorkerPorts, bookingId: string, context: Context): Promise<StepSummary> {
  const row = await findBooking(ports.pool, bookingId);
  if (!row || row.work === null || row.state === 'finished') return { bookingId, work: null, outcome: 'skipped' };
  const summary = (outcome: string): StepSummary => ({ bookingId, work: row.work, outcome });
  const fail = async (code: BookingErrorCode, message: string, orderPlaced = false) => {
    const moved = await applyMove(ports, bookingId, {
      from: [row.stage],
      to: 'failed',
      seq: row.seq,
      fields: { errorCode: code, errorMessage: message, ...(orderPlaced ? { orderState: 'placed' as const } : {}) },
    });
    return summary(moved ? `failed ${code}` : 'superseded');
  };
  const hotel = await ports.findHotel(row.hotelId);
  const engine = hotel ? ports.engines[hotel.source.kind] : undefined;
  if (!hotel || !engine) {
    if (row.orderState === 'placing')
      return fail(
        'BookingOutcomeUnknown',
        outcomeUnknownMessage(row.reference, causeOf(row), 'the hotel is no longer configured here to be asked'),
      );
    return fail(
      'GenericWebsiteError',
      hotel ? `hotels of source ${hotel.source.kind} cannot be booked by this deployment` : `hotel ${row.hotelId} is no longer configured`,
    );
  }
  // A browser checkout holds this booking's page: its holder does the work (ADR 0040).
  if (row.checkoutHeld) return summary('held by its checkout');
  if (engine.checkout && (row.work === 'quote' || (row.work === 'placeOrder' && row.orderState === null))) {
    await ports.enqueueCheckout({ bookingId }, { jobId: `booking-checkout-${bookingId}-${row.seq}` });
    return summary('checkout queued');
  }
  try {
    switch (row.work) {
      case 'reprice':
        return summary(await checkPrice(ports, engine, hotel, row, context));
      case 'survey':
        return summary(await surveyPrices(ports, engine, hotel, row, context));
      case 'quote':
        return summary(await quoteFinalPrice(ports, engine, hotel, row, context));
      case 'placeOrder':
        return summary(await placeOrder(ports, engine, hotel, row, context));
      case 'readOrder':
        return summary(await readOrder(ports, engine, hotel, row, context));
    }
  } catch (error) {
    if (error instanceof TransientSourceFailure && context.finalAttempt && !context.signal.aborted) return fail(error.code, error.message);
    throw error;
  }
}

const stayOf = (row: BookingRow): Stay => ({ checkIn: row.checkIn, nights: row.nights, guests: row.guests });
const nowOf = (ports: WorkerPorts) => (ports.now ?? (() => new Date()))();

async function currentRooms(engine: BookingEngine, hotel: HotelRow, row: BookingRow, signal: AbortSignal) {
  const outcome = await engine.reprice(hotel, stayOf(row), signal);
  if (!outcome.ok && outcome.transient) throw new TransientSourceFailure(outcome.code, outcome.reason);
  return outcome;
}

/** `priceCheck`: the price the feed showed still holds → `priceConfirmed`; changed or gone → `roomSelection`. */
async function checkPrice(ports: WorkerPorts, engine: BookingEngine, hotel: HotelRow, row: BookingRow, context: Context): Promise<string> {
  const outcome = await currentRooms(engine, hotel, row, context.signal);
  const fail = (code: BookingErrorCode, message: string) =>
    applyMove(ports, row.bookingId, {
      from: ['priceCheck'],
      to: 'failed',
      seq: row.seq,
      fields: { errorCode: code, errorMessage: message },
    });
  if (!outcome.ok) return (await fail(outcome.code, outcome.reason)) ? `failed ${outcome.code}` : 'superseded';
  const holdsUntil = new Date(nowOf(ports).getTime() + ports.timers.priceHoldMs);
  const live = findRate(outcome.rooms, row.roomId, row.rateId);
  const stored = await ports.storedRooms({ hotelId: row.hotelId, checkIn: row.checkIn, nights: row.nights, guests: row.guests });
  const shown = stored ? findRate(stored, row.roomId, row.rateId) : undefined;
  // Without a stored result the client was shown no other price: the hotel's current one is the quote.
  if (live && (!shown || samePrice(priceOf(shown), priceOf(live)))) {
    const moved = await applyMove(ports, row.bookingId, {
      from: ['priceCheck'],
      to: 'priceConfirmed',
      seq: row.seq,
      fields: { work: null, priceBreakdown: priceOf(live), priceConfirmedUntil: holdsUntil },
    });
    return moved ? 'priceConfirmed' : 'superseded';
  }
  if (outcome.rooms.length === 0)
    return (await fail('RoomNotAvailable', 'The hotel has no room left for this stay')) ? 'failed RoomNotAvailable' : 'superseded';
  const moved = await applyMove(ports, row.bookingId, {
    from: ['priceCheck'],
    to: 'roomSelection',
    seq: row.seq,
    fields: { work: null, availableRooms: availableRoomsOf(outcome.rooms), priceConfirmedUntil: holdsUntil },
  });
  return moved ? (live ? 'roomSelection (price changed)' : 'roomSelection (rate gone)') : 'superseded';
}

/** `skipConfirmation`: the hotel's current prices of every room, nothing held. */
async function surveyPrices(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  row: BookingRow,
  context: Context,
): Promise<string> {
  const outcome = await currentRooms(engine, hotel, row, context.signal);
  const rooms = outcome.ok ? outcome.rooms : [];
  if (!outcome.ok && outcome.code !== 'RoomNotAvailable') {
    const failed = await applyMove(ports, row.bookingId, {
      from: ['processingBooking'],
      to: 'failed',
      seq: row.seq,
      fields: { errorCode: outcome.code, errorMessage: outcome.reason },
    });
    return failed ? `failed ${outcome.code}` : 'superseded';
  }
  const moved = await applyMove(ports, row.bookingId, {
    from: ['processingBooking'],
    to: 'roomSelection',
    seq: row.seq,
    fields: {
      work: null,
      availableRooms: availableRoomsOf(rooms),
      priceConfirmedUntil: new Date(nowOf(ports).getTime() + ports.timers.priceHoldMs),
    },
  });
  return moved ? 'roomSelection (survey)' : 'superseded';
}

/** Right before the order: the hotel's price now is the final price the client must consent to. */
async function quoteFinalPrice(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  row: BookingRow,
  context: Context,
): Promise<string> {
  const outcome = await currentRooms(engine, hotel, row, context.signal);
  const live = outcome.ok ? findRate(outcome.rooms, row.roomId, row.rateId) : undefined;
  if (!live) {
    const code = outcome.ok ? 'RoomNotAvailable' : outcome.code;
    const moved = await applyMove(ports, row.bookingId, {
      from: ['processingBooking'],
      to: 'failed',
      seq: row.seq,
      fields: { errorCode: code, errorMessage: outcome.ok ? 'The hotel no longer offers this room and rate' : outcome.reason },
    });
    return moved ? `failed ${code}` : 'superseded';
  }
  const moved = await applyMove(ports, row.bookingId, {
    from: ['processingBooking'],
    to: 'finalPriceConsent',
    seq: row.seq,
    fields: { work: null, finalPrice: priceOf(live) },
  });
  return moved ? 'finalPriceConsent' : 'superseded';
}

/**
 * Places the order at most once (ADR 0039, 0048). The run first takes the booking's order lease
 * (owner and expiry, renewed while the hotel is asked); a run that finds another's live lease
 * waits for it (`RunLater`). Only the holder opens the card with its CVV and commits the intent
 * (`placing`) before the request leaves; a run that finds the intent, or whose request ended
 * without an answer, asks the hotel by our reference.
 */
async function placeOrder(ports: WorkerPorts, engine: BookingEngine, hotel: HotelRow, row: BookingRow, context: Context): Promise<string> {
  const owner = randomUUID();
  const claim = await claimOrder(ports.pool, row.bookingId, owner, ports.orderLeaseMs);
  if (claim.kind === 'gone') return 'superseded';
  // A paused or cut-off worker's run still holds it (BullMQ ran the job again): its answer is coming.
  if (claim.kind === 'held')
    throw new RunLater(waitFor(claim.until.getTime()), `booking ${row.bookingId}: its order is held by another run`);
  const lease = keepOrderLease(ports.pool, row.bookingId, owner, ports.orderLeaseMs);
  try {
    const held = claim.row;
    if (held.orderState === 'placing') return await recoverOrder(ports, engine, hotel, held, context);
    // A booking page's order is placed from its checkout, never here.
    if (engine.checkout || held.orderState !== null) return 'superseded';
    return await sendOrder(ports, engine, hotel, held, context, owner, lease.lost);
  } finally {
    lease.stop();
    // Done, handed back or waiting: the next run takes the order at once instead of waiting out the lease.
    await releaseOrderLease(ports.pool, row.bookingId, owner).catch(() => undefined);
  }
}

async function sendOrder(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  row: BookingRow,
  context: Context,
  owner: string,
  leaseLost: AbortSignal,
): Promise<string> {
  if (!row.panTokenSealed || !row.detailsSealed)
    return failFrom(ports, row, 'PanTokenInvalid', 'The card is no longer kept for this booking');
  const details = BookingDetails.parse(JSON.parse(ports.sealer.open(sealedColumns.bookingDetails, row.bookingId, row.detailsSealed)));
  const total = BookingPrice.parse(row.finalPrice).total;
  const panToken = ports.sealer.open(sealedColumns.bookingPanToken, row.bookingId, row.panTokenSealed);
  let card: CardDetails;
  try {
    card = await ports.vault.openCard(panToken, { bookingId: row.bookingId, clientId: row.clientId });
  } catch (error) {
    if (error instanceof PanTokenInvalidError) return failFrom(ports, row, 'PanTokenInvalid', error.message);
    if (error instanceof CvvUnavailableError)
      return failFrom(ports, row, 'CvvUnavailable', `${error.message}; nothing was sent to the hotel`);
    throw error;
  }
  // Lost while the card was opened: the run that holds the order now decides. A job stopped (its
  // queue lock lost, a timeout, a shutdown) stops here too: nothing was sent.
  if (leaseLost.aborted) return 'superseded (another run holds the order)';
  context.signal.throwIfAborted();
  // Its own committed statement, before the irreversible step, and only while this run holds the
  // order: a crash after this line, or a run that lost the order, can never lead to a second order.
  if (!(await markPlacingOrder(ports.pool, row.bookingId, row.seq, { order: owner }))) return 'superseded';
  // From here the hotel may hold the order: the run stops for a timeout or a shutdown (the next run
  // asks the hotel), but not for a lost lock or lease, which only say that another run may start:
  // this run's answer is the one thing that run cannot learn in time.
  const requests = new AbortController();
  const stop = () => {
    if (context.lockLost?.aborted) return;
    requests.abort(context.signal.reason);
  };
  context.signal.addEventListener('abort', stop, { once: true });
  if (context.signal.aborted) stop();
  // One order per CVV: removed now the order that carries it is recorded, beside the request (a
  // failure is logged; the booking's end removes it too).
  void ports.vault.spendCvv(panToken, { clientId: row.clientId }).catch((error: unknown) => ports.onError?.(error, 'CVV removal'));
  const placing: BookingRow = { ...row, orderState: 'placing', placingOrderAt: new Date() };
  try {
    let outcome: OrderOutcome;
    try {
      outcome = await engine.placeOrder(
        hotel,
        {
          reference: row.reference,
          stay: stayOf(row),
          roomId: row.roomId,
          rateId: row.rateId,
          total,
          mainGuest: details.mainGuest,
          otherGuests: details.otherGuests,
          contact: details.contact,
          card,
        },
        requests.signal,
      );
    } catch (error) {
      // At shutdown the job is handed back and its next run asks the hotel; here, ask now. The
      // first cause is kept first: a later run that ends the booking unknown names it.
      if (requests.signal.aborted) throw error;
      return await recoverOrder(ports, engine, hotel, await keepOrderCause(ports, placing, error), { ...context, signal: requests.signal });
    }
    return await recordOutcome(ports, placing, outcome, 'placing');
  } finally {
    context.signal.removeEventListener('abort', stop);
  }
}

/**
 * The order's request ended without an answer that could be read: that first cause is recorded
 * before the hotel is asked, for whichever run ends the booking `BookingOutcomeUnknown`.
 */
export async function keepOrderCause(ports: Pick<WorkerPorts, 'pool'>, row: BookingRow, error: unknown): Promise<BookingRow> {
  const cause = `the order's request ended without an answer that could be read (${error instanceof Error ? error.message : String(error)})`;
  await recordOrderCause(ports.pool, row.bookingId, cause);
  return { ...row, orderCause: row.orderCause ?? cause };
}

/**
 * Asks the hotel for the order by our reference, never placing it again. No reservation under it
 * is not yet an answer while the first request may still be with the hotel (a hotel that commits
 * the order only when it answers): the run reads again once that request's time is up, and only
 * then ends the booking `BookingOutcomeUnknown`.
 */
export async function recoverOrder(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  row: BookingRow,
  context: Context,
): Promise<string> {
  let found: OrderOutcome | { status: 'notFound' };
  try {
    found = await engine.findOrderByReference(hotel, row.reference, context.signal);
  } catch (error) {
    if (!context.finalAttempt || context.signal.aborted) throw error;
    return failFrom(
      ports,
      row,
      'BookingOutcomeUnknown',
      outcomeUnknownMessage(
        row.reference,
        causeOf(row),
        `asking the hotel for it by our reference failed too (${(error as Error).message})`,
      ),
      'placing',
    );
  }
  if (found.status === 'notFound') {
    const answerBy = (row.placingOrderAt?.getTime() ?? 0) + ports.timers.sourceTimeoutMs + answerGraceMs;
    if (nowOf(ports).getTime() < answerBy)
      throw new RunLater(
        waitFor(answerBy),
        `booking ${row.bookingId}: the order may still be with the hotel; reading it again when its request's time is up`,
      );
    return failFrom(
      ports,
      row,
      'BookingOutcomeUnknown',
      outcomeUnknownMessage(row.reference, causeOf(row), 'the hotel reports no reservation under our reference'),
      'placing',
    );
  }
  return recordOutcome(ports, row, found, 'placing');
}

/** After a 3-D Secure challenge: reads the reservation until the hotel knows, or the challenge expired. */
async function readOrder(ports: WorkerPorts, engine: BookingEngine, hotel: HotelRow, row: BookingRow, context: Context): Promise<string> {
  const found = await engine.continueAfterChallenge(hotel, row.reference, context.signal).catch((error: unknown) => {
    if (context.signal.aborted) throw error;
    return { status: 'pending' as const };
  });
  if (found.status === 'notFound') {
    return failFrom(
      ports,
      row,
      'BookingOutcomeUnknown',
      outcomeUnknownMessage(
        row.reference,
        "the hotel held it pending the card holder's 3-D Secure challenge",
        'it no longer reports a reservation under our reference',
      ),
    );
  }
  if (found.status === 'confirmed' || found.status === 'failed') return recordOutcome(ports, row, found);
  if (row.tdsExpiresAt && nowOf(ports) >= row.tdsExpiresAt) return endExpiredChallenge(ports, engine, hotel, row, context);
  const touched = await touchBooking(ports.pool, row.bookingId, row.seq, ports.timers.tdsPollMs);
  if (touched === null) return 'superseded';
  await flushOutbox(ports, touched.outbox);
  return 'awaiting the challenge';
}

/**
 * The challenge expired: the booking fails `TdsTimeout`, and the hotel is asked to cancel the
 * reservation it holds pending the card holder, so that it never keeps a room the client was told
 * is not booked. A hotel that refuses may have heard from the issuer meanwhile: a reservation it
 * then reports confirmed is recorded as confirmed.
 */
async function endExpiredChallenge(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  row: BookingRow,
  context: Context,
): Promise<string> {
  const expired = 'The card holder did not complete the 3-D Secure challenge in time';
  if (!engine.cancelOrder) return failFrom(ports, row, 'TdsTimeout', expired);
  let cancel: CancelOutcome;
  try {
    cancel = await engine.cancelOrder(hotel, row.reference, context.signal);
  } catch (error) {
    if (!context.finalAttempt || context.signal.aborted) throw error;
    cancel = { status: 'refused', message: (error as Error).message };
  }
  if (cancel.status === 'cancelled')
    return failFrom(ports, row, 'TdsTimeout', `${expired}; the hotel cancelled the reservation it held pending the challenge`);
  if (cancel.status === 'notFound')
    return failFrom(ports, row, 'TdsTimeout', `${expired}; the hotel holds no reservation under our reference`);
  const found = await engine.continueAfterChallenge(hotel, row.reference, context.signal).catch(() => ({ status: 'pending' as const }));
  if (found.status === 'confirmed') return recordOutcome(ports, row, found);
  return failFrom(
    ports,
    row,
    'TdsTimeout',
    `${expired}; the hotel did not cancel the reservation it holds pending the challenge (${cancel.message}): check with the hotel`,
  );
}

export async function failFrom(
  ports: WorkerPorts,
  row: BookingRow,
  code: BookingErrorCode,
  message: string,
  orderState?: 'placing',
  replacesUnknown = false,
): Promise<string> {
  const moved = await applyMove(ports, row.bookingId, {
    from: [row.stage],
    to: 'failed',
    seq: row.seq,
    ...(orderState ? { orderState } : {}),
    ...(replacesUnknown ? { replacesUnknown } : {}),
    fields: { errorCode: code, errorMessage: message, ...(orderState ? { orderState: 'placed' as const } : {}) },
  });
  return moved ? `failed ${code}` : 'superseded';
}

/**
 * Records what the hotel said of the order. Said of an order being placed (`orderState`), a
 * confirmation, a refusal or a challenge is definite: it also replaces the `BookingOutcomeUnknown`
 * another run recorded while this run's request was still with the hotel (ADR 0048).
 */
export async function recordOutcome(ports: WorkerPorts, row: BookingRow, outcome: OrderOutcome, orderState?: 'placing'): Promise<string> {
  const guard = orderState ? { orderState, replacesUnknown: true } : {};
  const placed = { orderState: 'placed' as const };
  switch (outcome.status) {
    case 'confirmed': {
      const moved = await applyMove(ports, row.bookingId, {
        from: [row.stage],
        to: 'bookingConfirmed',
        seq: row.seq,
        ...guard,
        fields: {
          ...placed,
          confirmation: { ...outcome.confirmation, price: outcome.confirmation.price ?? BookingPrice.parse(row.finalPrice).total },
        },
      });
      return moved ? 'bookingConfirmed' : 'superseded';
    }
    case 'failed':
      return failFrom(ports, row, outcome.code, outcome.message, orderState, orderState !== undefined);
    case 'challenge':
    case 'pending': {
      const limit = nowOf(ports).getTime() + ports.timers.tdsTimeoutMs;
      const sourceExpiry =
        outcome.status === 'challenge' && outcome.challenge.expiresAt ? Date.parse(outcome.challenge.expiresAt) : Number.NaN;
      const expiresAt = new Date(Number.isFinite(sourceExpiry) ? Math.min(sourceExpiry, limit) : limit);
      const challenge = outcome.status === 'challenge' ? { ...outcome.challenge, expiresAt: expiresAt.toISOString() } : undefined;
      if (!challenge) {
        // The hotel holds the order but has not decided: keep reading it, without a challenge to show.
        const kept = await keepReadingOrder(ports.pool, row.bookingId, row.seq, expiresAt, ports.timers.tdsPollMs);
        if (kept === null) return 'superseded';
        await flushOutbox(ports, kept.outbox);
        return 'pending at the hotel';
      }
      const moved = await applyMove(ports, row.bookingId, {
        from: [row.stage],
        to: 'awaitingTdsChallenge',
        seq: row.seq,
        ...guard,
        delayMs: ports.timers.tdsPollMs,
        fields: { ...placed, work: 'readOrder', tdsChallenge: challenge, tdsExpiresAt: expiresAt },
      });
      return moved ? 'awaitingTdsChallenge' : 'superseded';
    }
  }
}
