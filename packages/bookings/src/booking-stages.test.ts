import { bookingStages } from '@quarry/contracts';
import { describe, expect, it } from 'vitest';
import { awaitsClientInput, canMove, stateOf } from './booking-stages.ts';

describe('the booking state machine', () => {
  it('says a booking is finished exactly where nothing can follow, and pending exactly where it waits for someone else', () => {
    for (const stage of bookingStages) {
      const onward = bookingStages.filter((to) => canMove(stage, to));
      // The rules the interface gives, checked against the transitions rather than restated.
      expect(stateOf(stage) === 'finished', stage).toBe(onward.length === 0);
      if (awaitsClientInput.includes(stage)) expect(stateOf(stage), stage).toBe('pending');
      if (stateOf(stage) === 'started') expect(awaitsClientInput.includes(stage), stage).toBe(false);
    }
    // The challenge waits for the card holder, not the client's API input: pending, without the input timeout.
    expect(stateOf('awaitingTdsChallenge')).toBe('pending');
    expect(awaitsClientInput).not.toContain('awaitingTdsChallenge');
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
