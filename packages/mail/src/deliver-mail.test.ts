import { describe, expect, it } from 'vitest';
import { deliveryJobId, retryDelayMs } from './deliver-mail.ts';

describe('retry schedule', () => {
  it('doubles from the base up to the cap, like Postfix (300 s … 4000 s)', () => {
    const settings = { retryBaseMs: 300_000, retryMaxMs: 4_000_000 };
    expect([1, 2, 3, 4, 5, 6, 10].map((attempts) => retryDelayMs(settings, attempts))).toEqual([
      300_000, 600_000, 1_200_000, 2_400_000, 4_000_000, 4_000_000, 4_000_000,
    ]);
  });

  it('gives every attempt its own deterministic job id, so a re-enqueue of the same attempt is a no-op', () => {
    expect(deliveryJobId('d', 0)).toBe('d');
    expect(deliveryJobId('d', 3)).toBe('d-r3');
  });
});
