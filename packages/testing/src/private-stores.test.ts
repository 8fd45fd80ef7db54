import { createPool } from '@quarry/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.ts';
import { waitFor } from './wait-for.ts';

let server: PrivatePostgres;

beforeAll(async () => {
  server = await startPrivatePostgres();
});

afterAll(async () => {
  await server?.remove();
});

describe('a pool whose server goes away', () => {
  it('survives losing a checked-out connection (a held lock session) and an idle one, reports it, and works once the server is back', async () => {
    const lost: string[] = [];
    let connected = 0;
    const pool = createPool(server.url, 3, { onConnectionError: (error) => lost.push(error.message), onConnected: () => (connected += 1) });
    try {
      const held = await pool.connect();
      await held.query('SELECT pg_advisory_lock(42)');
      await pool.query('SELECT 1');
      // An unhandled 'error' event on the held client would end this process (and fail the run).
      await server.stop();
      await waitFor('both connections reported lost', () => lost.length >= 2);
      held.release(true);
      await expect(pool.query('SELECT 1')).rejects.toThrow();
      await server.start();
      const before = connected;
      await waitFor('a query after the restart', async () => (await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one === 1);
      expect(connected).toBeGreaterThan(before);
    } finally {
      await pool.end();
    }
  });
});
