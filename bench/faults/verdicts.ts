/**
 * What an application's or a booking's final status says, held against what the careers site or
 * the hotel actually received (the doubles record every submission and order). A status is
 * untruthful when it states something the outside world contradicts: success without a submission
 * at the site, a definite failure while the site holds the submission, a confirmed booking the
 * hotel has no such reservation for. An unknown outcome ("may have been submitted") is never
 * untruthful; it is counted apart, as the price of a process that died after its intent.
 */
export type Verdict = {
  /** The status is final (the unit is done, whatever the outcome). */
  final: boolean;
  /** A definite failure: the work was lost to the client. */
  failed?: string;
  /** Ended with an unknown outcome (SubmissionOutcomeUnknown, BookingOutcomeUnknown). */
  unknown: boolean;
  /** Why the final status disagrees with the outside world; null when it agrees (or is not final). */
  untruthful: string | null;
  /** Copies the outside world received (submissions at the site, orders at the hotel). */
  copies: number;
};

type ApplicationRow = { state: string; errorCode: string | null };

/** An application as Postgres holds it, and how many submissions of its candidate the site received. */
export function judgeApplication(row: ApplicationRow | undefined, atSite: number): Verdict {
  const open: Verdict = { final: false, unknown: false, untruthful: null, copies: atSite };
  if (!row) return open;
  if (row.state === 'success')
    return {
      final: true,
      unknown: false,
      copies: atSite,
      untruthful: atSite === 0 ? 'success, but the site received no submission' : null,
    };
  if (row.state !== 'failed') return open;
  if (row.errorCode === 'SubmissionOutcomeUnknown') return { final: true, unknown: true, untruthful: null, copies: atSite };
  const code = row.errorCode ?? 'failed';
  return {
    final: true,
    unknown: false,
    failed: code,
    copies: atSite,
    untruthful: atSite > 0 ? `failed ${code}, but the site holds the submission` : null,
  };
}

type BookingRow = { stage: string; errorCode: string | null; confirmationReference: string | null };
type HeldReservation = { status: string; confirmation: string };

/**
 * A booking as Postgres holds it, the orders the hotel received under its reference, and the
 * reservation the hotel holds under it (if any).
 */
export function judgeBooking(row: BookingRow | undefined, orders: number, reservation: HeldReservation | undefined): Verdict {
  const open: Verdict = { final: false, unknown: false, untruthful: null, copies: orders };
  if (!row) return open;
  const held = reservation !== undefined && reservation.status !== 'Cancelled';
  if (row.stage === 'bookingConfirmed') {
    const agrees = reservation?.status === 'Committed' && reservation.confirmation === row.confirmationReference;
    const why = !reservation
      ? 'the hotel holds no reservation'
      : `the hotel's reservation is ${reservation.status} ${reservation.confirmation}, the booking says ${row.confirmationReference ?? 'no reference'}`;
    return { final: true, unknown: false, copies: orders, untruthful: agrees ? null : `bookingConfirmed, but ${why}` };
  }
  if (row.stage !== 'failed' && row.stage !== 'cancelled') return open;
  if (row.errorCode === 'BookingOutcomeUnknown') return { final: true, unknown: true, untruthful: null, copies: orders };
  const code = row.errorCode ?? row.stage;
  return {
    final: true,
    unknown: false,
    failed: code,
    copies: orders,
    untruthful: held ? `${row.stage} ${code}, but the hotel holds a ${reservation.status} reservation` : null,
  };
}
