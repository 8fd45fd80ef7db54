import { AppError } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bind, updateExpiresAt } from './bindings.ts';

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('mail_bindings');
  pool = createPool(database.url, 4);
  await pool.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_b', 'b', '{forwarding}', '\\x02', '\\x02')`,
  );
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('bind with the default configuration', () => {
  it('accepts recipients on a single-label domain such as the default `localhost`', async () => {
    const ports = { db: pool, now: () => new Date('2026-01-01T00:00:00Z'), domains: ['localhost'] };
    const created = await bind(ports, 'cl_b', { recipient: 'Shop-42@LOCALHOST', forwardsTo: 'me@example.com' });
    expect(created).toMatchObject({
      message: 'created',
      binding: { recipient: 'shop-42@localhost', expiresAt: '2027-01-01T00:00:00.000Z' },
    });
  });

  it('lets exactly one of two simultaneous binds of one recipient win', async () => {
    const ports = { db: pool, now: () => new Date(), domains: ['localhost'] };
    const outcomes = await Promise.allSettled([
      bind(ports, 'cl_b', { recipient: 'race@localhost', forwardsTo: 'a@example.com' }),
      bind(ports, 'cl_b', { recipient: 'race@localhost', forwardsTo: 'b@example.com' }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason instanceof AppError && refused.reason.code).toBe('BindingAlreadyExists');
  });
});

describe('updateExpiresAt', () => {
  // Built per test: the pool exists only once beforeAll has run.
  let ports: { db: Pool; now: () => Date; domains: string[] };
  beforeEach(() => {
    ports = { db: pool, now: () => new Date(), domains: ['localhost'] };
  });
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const expiryOf = async (recipient: string) =>
    (await pool.query<{ expires_at: Date; state: string }>('SELECT expires_at, state FROM mail_bindings WHERE recipient = $1', [recipient]))
      .rows[0];

  it('never makes a binding expire: an expiry in the past is a 400 naming latestDate, and the binding stays as it was', async () => {
    await bind(ports, 'cl_b', { recipient: 'keep@localhost', forwardsTo: 'me@example.com' });
    const before = await expiryOf('keep@localhost');
    for (const latestDate of [daysAgo(91), '2020-01-01T00:00:00Z', 'Wed Jan 01 2025 00:00:00 GMT+0000']) {
      const refused = await updateExpiresAt(ports, 'cl_b', { recipient: 'keep@localhost', latestDate }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('RequestParametersValidationError');
      expect((refused as AppError).message + JSON.stringify((refused as AppError).details)).toContain('latestDate');
    }
    expect(await expiryOf('keep@localhost')).toEqual(before);
    // 89 days ago + 90 days is tomorrow: a short extension that leaves the binding active is fine.
    const soon = await updateExpiresAt(ports, 'cl_b', { recipient: 'keep@localhost', latestDate: daysAgo(89) });
    expect(soon).toMatchObject({ binding: { expiresAt: `${daysAgo(-1)}T00:00:00.000Z` } });
    expect(await expiryOf('keep@localhost')).toMatchObject({ state: 'active' });
  });

  it('is refused by the store too when the clocks disagree: the database’s clock decides what is past', async () => {
    await bind({ ...ports, now: () => new Date() }, 'cl_b', { recipient: 'skew@localhost', forwardsTo: 'me@example.com' });
    const lagging = { ...ports, now: () => new Date('2000-01-01T00:00:00Z') };
    const refused = await updateExpiresAt(lagging, 'cl_b', { recipient: 'skew@localhost', latestDate: '2001-01-01' }).catch(
      (error: unknown) => error,
    );
    expect((refused as AppError).code).toBe('RequestParametersValidationError');
    expect(await expiryOf('skew@localhost')).toMatchObject({ state: 'active' });
    expect((await expiryOf('skew@localhost'))?.expires_at.getTime()).toBeGreaterThan(Date.now());
  });
});
