import { describe, expect, it } from 'vitest';
import { judgeApplication, judgeBooking } from '../bench/faults/verdicts.ts';
import { scenarioRow } from '../bench/faults/report.ts';
import type { Unit, Workload } from '../bench/faults/workload.ts';

// The fault suite's `untruthful` column (`npm run faults`): a final status held against what the
// careers site or the hotel received. The suite itself is not part of `npm test`.
describe('the fault suite judges a final status against the outside world', () => {
  it('an application: success needs a submission at the site, a definite failure needs none, an unknown outcome is never untruthful', () => {
    expect(judgeApplication({ state: 'success', errorCode: null }, 1)).toMatchObject({ final: true, untruthful: null, copies: 1 });
    expect(judgeApplication({ state: 'success', errorCode: null }, 0).untruthful).toMatch(/no submission/);
    expect(judgeApplication({ state: 'failed', errorCode: 'ApplicationFailed' }, 1)).toMatchObject({
      final: true,
      failed: 'ApplicationFailed',
      untruthful: expect.stringMatching(/holds the submission/),
    });
    expect(judgeApplication({ state: 'failed', errorCode: 'ApplicationFailed' }, 0)).toMatchObject({
      failed: 'ApplicationFailed',
      untruthful: null,
    });
    for (const atSite of [0, 1])
      expect(judgeApplication({ state: 'failed', errorCode: 'SubmissionOutcomeUnknown' }, atSite)).toMatchObject({
        final: true,
        unknown: true,
        untruthful: null,
      });
    for (const state of ['queued', 'processing', 'submitting'])
      expect(judgeApplication({ state, errorCode: null }, 1)).toMatchObject({ final: false, untruthful: null });
    expect(judgeApplication(undefined, 0).final).toBe(false);
    expect(judgeApplication({ state: 'success', errorCode: null }, 2).copies).toBe(2);
  });

  it('a booking: confirmed needs the committed reservation with its confirmation, a definite failure needs none held, unknown is never untruthful', () => {
    const committed = { status: 'Committed', confirmation: 'CNF-B1-3' };
    expect(judgeBooking({ stage: 'bookingConfirmed', errorCode: null, confirmationReference: 'CNF-B1-3' }, 1, committed)).toMatchObject({
      final: true,
      untruthful: null,
      copies: 1,
    });
    expect(
      judgeBooking({ stage: 'bookingConfirmed', errorCode: null, confirmationReference: 'CNF-B1-3' }, 0, undefined).untruthful,
    ).toMatch(/no reservation/);
    expect(
      judgeBooking({ stage: 'bookingConfirmed', errorCode: null, confirmationReference: 'CNF-B1-4' }, 1, committed).untruthful,
    ).toMatch(/CNF-B1-3/);
    expect(judgeBooking({ stage: 'failed', errorCode: 'SystemUnavailable', confirmationReference: null }, 1, committed)).toMatchObject({
      failed: 'SystemUnavailable',
      untruthful: expect.stringMatching(/holds a Committed reservation/),
    });
    expect(
      judgeBooking({ stage: 'failed', errorCode: 'PaymentRejected', confirmationReference: null }, 1, {
        status: 'Cancelled',
        confirmation: 'CNF-B1-5',
      }).untruthful,
    ).toBeNull();
    expect(judgeBooking({ stage: 'failed', errorCode: 'BookingOutcomeUnknown', confirmationReference: null }, 1, committed)).toMatchObject({
      final: true,
      unknown: true,
      untruthful: null,
    });
    for (const stage of ['priceCheck', 'finalPriceConsent', 'processingBooking'])
      expect(judgeBooking({ stage, errorCode: null, confirmationReference: null }, 0, undefined).final).toBe(false);
    expect(judgeBooking({ stage: 'bookingConfirmed', errorCode: null, confirmationReference: 'CNF-B1-3' }, 2, committed).copies).toBe(2);
  });
});

describe('a scenario row', () => {
  const workloadOf = (units: Unit[]) =>
    ({
      units: new Map(units.map((unit) => [`${unit.kind}:${unit.key}`, unit])),
      calls: [],
      smtpFailures: [],
      refresh: async () => undefined,
      regressions: () => 0,
      doubleCounted: async () => 0,
      pendingMailDeliveries: async () => 0,
    }) as unknown as Workload;
  const cvvGone: Unit = {
    kind: 'booking',
    key: 'b1',
    acceptedAt: 0,
    completedAt: 10,
    copies: 0,
    failed: "CvvUnavailable (the card's security code (CVV) is no longer kept)",
  };
  const window = { start: 0, end: 5, mailKillsAt: [], notes: [] };

  it("counts a booking that ended CvvUnavailable, nothing sent, apart from the lost only when Redis' data was lost with its CVV", async () => {
    const lostData = await scenarioRow(
      'redis-restarted-empty',
      workloadOf([{ ...cvvGone }]),
      { ...window, cvvsLost: true },
      new Set(),
      [],
      'none',
    );
    expect(lostData).toMatchObject({ lost: 0, completed: 0, manual: 'store 1 cards again', missed: [] });
    const otherwise = await scenarioRow('postgres-stop-10s', workloadOf([{ ...cvvGone }]), window, new Set(), [], 'none');
    expect(otherwise).toMatchObject({ lost: 1, manual: 'needed' });
    // An order that reached the hotel is never excused.
    const sent = await scenarioRow(
      'redis-restarted-empty',
      workloadOf([{ ...cvvGone, copies: 1 }]),
      { ...window, cvvsLost: true },
      new Set(),
      [],
      'none',
    );
    expect(sent.lost).toBe(1);
  });
});
