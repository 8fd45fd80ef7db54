import { sealedColumns } from '@quarry/keyring';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BookingDetails, BookingPrice, type BookingErrorCode } from '@quarry/contracts';
import type { HotelRow } from '@quarry/rates';
import { isStoreOutage } from '@quarry/jobs';
import { CvvUnavailableError, PanTokenInvalidError } from '@quarry/vault';
import type { BookingEngine, CheckoutEngine, HeldCheckout, OrderOutcome } from './booking-engine.ts';
import { applyMove, flushOutbox } from './booking-moves.ts';
import { samePrice } from './booking-prices.ts';
import type { WorkerPorts } from './bookings-ports.ts';
import {
  findBooking,
  markPlacingOrder,
  releaseCheckout,
  renewCheckout,
  takeCheckout,
  touchBooking,
  type BookingRow,
} from './bookings.queries.ts';
import { failFrom, keepOrderCause, recordOutcome, recoverOrder, type Context, type StepSummary } from './run-booking-step.ts';

const stoppedMessage = 'The worker stopped during the checkout, before the order button; nothing was ordered';

/**
 * The `bookings.checkout` job of a hotel that is booked on its own booking page: one browser
 * context held from the guest page to the outcome. It fills the checkout up to the final-price
 * page, shows that price for consent and waits for it with the page open, re-reads the price,
 * records the order click, clicks, and when the page starts a 3-D Secure challenge relays it and
 * waits for the page to continue (ADR 0040). Started from `quote` (after `/book`) or from
 * `placeOrder` when the consent outlived the checkout that showed the price (a new checkout then
 * orders only at the consented price).
 */
export async function runCheckout(ports: WorkerPorts, bookingId: string, context: Context): Promise<StepSummary> {
  const row = await findBooking(ports.pool, bookingId);
  const entry = row?.work === 'quote' ? 'quote' : row?.work === 'placeOrder' && row.orderState === null ? 'order' : null;
  if (!row || row.state === 'finished' || !entry) return { bookingId, work: row?.work ?? null, outcome: 'skipped' };
  const summary = (outcome: string): StepSummary => ({ bookingId, work: row.work, outcome });
  const hotel = await ports.findHotel(row.hotelId);
  const engine = hotel ? ports.engines[hotel.source.kind] : undefined;
  if (!hotel || !engine?.checkout)
    return summary(await failFrom(ports, row, 'GenericWebsiteError', 'the hotel can no longer be booked in a browser by this deployment'));
  // This run, not only this process: a booking handed on may come back to the same process.
  const holder = `${ports.workerId}/${randomUUID()}`;
  if (!(await takeCheckout(ports.pool, bookingId, row.seq, holder, ports.checkoutLeaseMs))) return summary('held elsewhere');
  const renewal = setInterval(
    () =>
      void renewCheckout(ports.pool, bookingId, holder, ports.checkoutLeaseMs).catch((error: unknown) =>
        ports.onError?.(error, 'checkout lease'),
      ),
    Math.max(100, Math.floor(ports.checkoutLeaseMs / 3)),
  );
  let handedOver = false;
  const progress = { started: false };
  try {
    return summary(await checkOut(ports, engine, engine.checkout, hotel, row, entry, context, progress, holder));
  } catch (error) {
    const current = await findBooking(ports.pool, bookingId);
    if (!current || current.state === 'finished') throw error;
    const failure = engine.checkout.failureOf(error);
    if (context.signal.aborted && !progress.started && current.orderState === null) {
      // Stopped while it waited for a browser context: nothing was started, the booking goes back to the queue.
      await releaseCheckout(ports.pool, bookingId, holder);
      handedOver = true;
      const touched = await touchBooking(ports.pool, bookingId, current.seq);
      if (touched) await flushOutbox(ports, touched.outbox);
      return summary('handed back before its checkout started');
    }
    if (current.orderState === null) {
      // Nothing reached the hotel: a failed page ends the booking with its code, a stopped worker with a clear one.
      if (failure && failure.transient && !context.finalAttempt && !context.signal.aborted) throw error;
      const code: BookingErrorCode = failure && !context.signal.aborted ? failure.code : 'SystemUnavailable';
      return summary(await failFrom(ports, current, code, failure && !context.signal.aborted ? failure.reason : stoppedMessage));
    }
    // The order was clicked: the reservation lookup says what became of it, from any worker.
    await releaseCheckout(ports.pool, bookingId, holder);
    handedOver = true;
    const touched = await touchBooking(ports.pool, bookingId, current.seq);
    if (touched) await flushOutbox(ports, touched.outbox);
    return summary('handed over to the reservation lookup');
  } finally {
    clearInterval(renewal);
    if (!handedOver)
      await releaseCheckout(ports.pool, bookingId, holder).catch((error: unknown) => ports.onError?.(error, 'checkout release'));
  }
}

async function checkOut(
  ports: WorkerPorts,
  engine: BookingEngine,
  checkout: CheckoutEngine,
  hotel: HotelRow,
  row: BookingRow,
  entry: 'quote' | 'order',
  context: Context,
  progress: { started: boolean },
  holder: string,
): Promise<string> {
  if (!row.panTokenSealed || !row.detailsSealed)
    return failFrom(ports, row, 'PanTokenInvalid', 'The card is no longer kept for this booking');
  const details = BookingDetails.parse(JSON.parse(ports.sealer.open(sealedColumns.bookingDetails, row.bookingId, row.detailsSealed)));
  const panTokenSealed = row.panTokenSealed;
  const request = {
    reference: row.reference,
    stay: { checkIn: row.checkIn, nights: row.nights, guests: row.guests },
    roomId: row.roomId,
    rateId: row.rateId,
    mainGuest: details.mainGuest,
    otherGuests: details.otherGuests,
    contact: details.contact,
    card: () =>
      ports.vault.openCard(ports.sealer.open(sealedColumns.bookingPanToken, row.bookingId, panTokenSealed), {
        bookingId: row.bookingId,
        clientId: row.clientId,
      }),
  };
  const onThePage = async (held: HeldCheckout): Promise<string> => {
    let current: BookingRow | null = row;
    if (entry === 'quote') {
      const moved = await applyMove(ports, row.bookingId, {
        from: ['processingBooking'],
        to: 'finalPriceConsent',
        seq: row.seq,
        fields: { work: null, finalPrice: await held.finalPrice() },
      });
      if (!moved) return 'superseded';
      current = await awaitConsent(ports, moved, context.signal);
      if (!current || current.stage !== 'processingBooking' || current.work !== 'placeOrder')
        return `ended in ${current?.stage ?? 'nothing'} while the page waited`;
    }
    return placeFromPage(ports, engine, hotel, held, current, context, holder);
  };
  try {
    return await checkout.withCheckout(hotel, request, context.signal, onThePage, () => {
      progress.started = true;
    });
  } catch (error) {
    const current = (await findBooking(ports.pool, row.bookingId)) ?? row;
    if (error instanceof PanTokenInvalidError) return failFrom(ports, current, 'PanTokenInvalid', error.message);
    if (error instanceof CvvUnavailableError && current.orderState === null)
      return failFrom(ports, current, 'CvvUnavailable', `${error.message}; nothing was ordered`);
    throw error;
  }
}

/** While announcements arrive, the row is still read this often: a lost announcement costs a delay, never the booking. */
const announcedConsentCheckMs = 5_000;

/**
 * The page stays open while the client decides: the consent (or a cancel, or a timeout of the
 * sweep) is a change of the row, announced by Postgres; without announcements the row is polled.
 * Postgres unreachable for a while is waited out with the page open: the checkout's lease
 * (`BOOKING_CHECKOUT_LEASE_MS`) outlasts such an outage, so nobody else takes the booking meanwhile.
 */
async function awaitConsent(ports: WorkerPorts, shown: BookingRow, signal: AbortSignal): Promise<BookingRow | null> {
  for (;;) {
    // Taken before the read: a change committed after it wakes the wait, one before it is read.
    const change = ports.bookingChanges?.next(shown.bookingId);
    try {
      let current: BookingRow | null | undefined;
      try {
        current = await findBooking(ports.pool, shown.bookingId);
      } catch (error) {
        if (!isStoreOutage(error)) throw error;
        current = undefined;
      }
      if (current !== undefined && (!current || current.stage !== 'finalPriceConsent')) return current;
      const pollMs = change && ports.bookingChanges?.listening() ? announcedConsentCheckMs : (ports.consentPollMs ?? 250);
      const timer = new AbortController();
      try {
        await Promise.race([
          sleep(pollMs, undefined, { signal: AbortSignal.any([signal, timer.signal]) }),
          ...(change ? [change.changed] : []),
        ]);
      } finally {
        timer.abort();
      }
      signal.throwIfAborted();
    } finally {
      change?.cancel();
    }
  }
}

async function placeFromPage(
  ports: WorkerPorts,
  engine: BookingEngine,
  hotel: HotelRow,
  held: HeldCheckout,
  row: BookingRow,
  context: Context,
  holder: string,
): Promise<string> {
  const consented = BookingPrice.parse(row.finalPrice);
  const shownNow = await held.reloadFinalPrice();
  if (!samePrice(shownNow, consented)) {
    return failFrom(
      ports,
      row,
      'PriceChangedAfterConsent',
      `The hotel's page now asks ${shownNow.total.value} ${shownNow.total.currencyCode} instead of the consented ${consented.total.value}; nothing was ordered`,
    );
  }
  // Its own committed statement, before the click, by the checkout's live holder only: a crash
  // after this line never orders twice, and a holder whose lease went to another never clicks.
  if (!(await markPlacingOrder(ports.pool, row.bookingId, row.seq, { checkout: holder }))) return 'superseded';
  const placing: BookingRow = { ...row, orderState: 'placing', placingOrderAt: new Date() };
  // The page holds the CVV it was typed with; the vault's copy goes now the order is recorded.
  if (row.panTokenSealed)
    void ports.vault
      .spendCvv(ports.sealer.open(sealedColumns.bookingPanToken, row.bookingId, row.panTokenSealed), { clientId: row.clientId })
      .catch((error: unknown) => ports.onError?.(error, 'CVV removal'));
  let outcome: OrderOutcome;
  try {
    outcome = await held.placeOrder(consented.total);
  } catch (error) {
    if (context.signal.aborted) throw error;
    return recoverOrder(ports, engine, hotel, await keepOrderCause(ports, placing, error), context);
  }
  if (outcome.status !== 'challenge') return recordOutcome(ports, placing, outcome, 'placing');
  const relayed = await recordOutcome(ports, placing, outcome, 'placing');
  const awaiting = await findBooking(ports.pool, row.bookingId);
  if (relayed !== 'awaitingTdsChallenge' || !awaiting || awaiting.stage !== 'awaitingTdsChallenge' || !awaiting.tdsExpiresAt)
    return relayed;
  // The card holder completes the challenge in their own browser; the issuer tells the hotel, and the page here continues.
  const final = await held.awaitChallengeOutcome(consented.total, awaiting.tdsExpiresAt);
  const latest = (await findBooking(ports.pool, row.bookingId)) ?? awaiting;
  if (final.status === 'pending' || final.status === 'challenge')
    return failFrom(ports, latest, 'TdsTimeout', 'The card holder did not complete the 3-D Secure challenge in time');
  return recordOutcome(ports, latest, final);
}
