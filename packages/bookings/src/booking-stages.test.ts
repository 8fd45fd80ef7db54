import { bookingStages } from '@quarry/contracts';
import { describe, expect, it } from 'vitest';
import { canMove, stateOf } from './booking-stages.ts';

describe('the booking state machine', () => {
  it('gives each stage one state', () => {
    expect(bookingStages.map((stage) => [stage, stateOf(stage)])).toEqual([
      ['priceCheck', 'started'],
      ['priceConfirmed', 'pending'],
      ['roomSelection', 'pending'],
      ['processingBooking', 'started'],
      ['finalPriceConsent', 'pending'],
      ['awaitingTdsChallenge', 'pending'],
      ['bookingConfirmed', 'finished'],
      ['failed', 'finished'],
      ['cancelled', 'finished'],
    ]);
  });

  it('ends nowhere after the end, and never cancels an order the hotel holds', () => {
    for (const stage of bookingStages) {
      if (stateOf(stage) === 'finished') expect(bookingStages.filter((to) => canMove(stage, to))).toEqual([]);
    }
    expect(canMove('awaitingTdsChallenge', 'cancelled')).toBe(false);
    expect(canMove('finalPriceConsent', 'bookingConfirmed')).toBe(false);
    expect(canMove('processingBooking', 'finalPriceConsent')).toBe(true);
  });
});
