import { AppError } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bind } from './bindings.ts';

let database: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  database = await createTestDatabase('mail_bindings');
  pool = createPool(database.url, 4);
  await pool.query(`INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_b', 'b', '{forwarding}', '\\x02', '\\x02')`);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('bind with the default configuration', () => {
  it('accepts recipients on a single-label domain such as the default `localhost`', async () => {
    const ports = { db: pool, now: () => new Date('2026-01-01T00:00:00Z'), domains: ['localhost'] };
    const created = await bind(ports, 'cl_b', { recipient: 'Shop-42@LOCALHOST', forwardsTo: 'me@example.com' });
    expect(created).toMatchObject({ message: 'created', binding: { recipient: 'shop-42@localhost', expiresAt: '2027-01-01T00:00:00.000Z' } });
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
