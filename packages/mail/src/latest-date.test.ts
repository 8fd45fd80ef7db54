import { describe, expect, it } from 'vitest';
import { defaultExpiry, EXTENSION_MS, extendedExpiry, parseLatestDate } from './latest-date.ts';

describe('parseLatestDate', () => {
  it('accepts the three documented forms, naming the same instant', () => {
    const expected = Date.parse('2025-01-01T00:00:00Z');
    for (const form of [
      '2025-01-01',
      '2025-01-01T00:00:00Z',
      '2025-01-01T00:00:00.000Z',
      '2025-01-01T01:00:00+01:00',
      'Wed Jan 01 2025 00:00:00 GMT+0000 (Coordinated Universal Time)',
      'Wed Jan 01 2025 01:00:00 GMT+0100',
    ]) {
      expect(parseLatestDate(form)?.getTime(), form).toBe(expected);
    }
  });

  it('refuses what Date.parse would wrongly accept, and impossible calendar dates', () => {
    for (const junk of ['1', 'foo 2020', '2025-02-30', '2025-13-01', '01/02/2025', '', 'Wed Jan 01 2025', '2025-01-01T00:00:00']) {
      expect(parseLatestDate(junk), junk).toBeNull();
    }
  });

  it('extends to exactly 90 days after the date, and gives new bindings one calendar year', () => {
    expect(extendedExpiry(new Date('2025-01-01T00:00:00Z')).toISOString()).toBe('2025-04-01T00:00:00.000Z');
    expect(EXTENSION_MS).toBe(90 * 86_400_000);
    expect(defaultExpiry(new Date('2024-02-29T12:00:00Z')).toISOString()).toBe('2025-03-01T12:00:00.000Z');
  });
});
