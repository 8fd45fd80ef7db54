import { describe, expect, it } from 'vitest';
import { ConfigError, configVariableNames, loadConfig, sections } from './config.ts';

const secret = Buffer.alloc(32, 7).toString('base64');

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('the sections of the settings', () => {
  it('declare every variable in exactly one section', () => {
    const declaredBy = new Map<string, string[]>();
    for (const [name, section] of Object.entries(sections)) {
      for (const variable of Object.keys(section.variables)) declaredBy.set(variable, [...(declaredBy.get(variable) ?? []), name]);
    }
    expect([...declaredBy].filter(([, owners]) => owners.length > 1)).toEqual([]);
    expect(declaredBy.size).toBe(configVariableNames.length);
    expect(new Set(configVariableNames).size).toBe(configVariableNames.length);
  });

  it('borrow only variables another section declares', () => {
    for (const [name, section] of Object.entries(sections)) {
      for (const variable of Object.keys(section.borrowed)) {
        expect(Object.keys(section.variables), `${name} both declares and borrows ${variable}`).not.toContain(variable);
        expect(configVariableNames, `${name} borrows ${variable}, which no section declares`).toContain(variable);
      }
    }
  });

  it('name a bad variable that several sections of a role read once', () => {
    const badSecret = problemsOf(() => loadConfig({ QUARRY_SECRET_KEY: 'short' }, 'api'));
    expect(badSecret.filter((problem) => problem.startsWith('QUARRY_SECRET_KEY '))).toEqual([
      'QUARRY_SECRET_KEY must be 32 bytes, base64-encoded',
    ]);
    const badTimeout = problemsOf(() => loadConfig({ QUARRY_SECRET_KEY: secret, BOOKING_JOB_TIMEOUT_MS: 'soon' }, 'bookings-worker'));
    expect(badTimeout.filter((problem) => problem.startsWith('BOOKING_JOB_TIMEOUT_MS '))).toHaveLength(1);
  });

  it("hold a taken CVV as long as the bookings' own deadline, read from the one declaration of BOOKING_JOB_TIMEOUT_MS", () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret, BOOKING_JOB_TIMEOUT_MS: '120000' }, 'bookings-worker');
    expect(config.vault.cvvBookingHoldMs).toBe(120_000);
    expect(config.bookings.jobTimeoutMs).toBe(120_000);
    // The API stores cards but runs no booking: it reads the deadline through the vault alone.
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, BOOKING_JOB_TIMEOUT_MS: '120000' }, 'api').vault.cvvBookingHoldMs).toBe(120_000);
  });
});
