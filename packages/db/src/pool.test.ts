import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, StatementTimedOut, withTransactionWithin, type Pool } from './pool.ts';

/**
 * A network cut seen from the client: packets go unanswered, nothing is closed. A TCP relay to the
 * machine's PostgreSQL that, once cut, drops what either side sends on the connections it carries
 * (as a firewall rule dropping packets would) and, while cut, lets new connections hang.
 */
const server = new URL(process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
let relay: Server;
let cut = false;
const carried: { client: Socket; upstream: Socket }[] = [];
let pool: Pool;

beforeAll(async () => {
  relay = createServer((client) => {
    const waiting: Buffer[] = [];
    const open = () => {
      const upstream = connect(Number(server.port || 5432), server.hostname);
      const pair = { client, upstream };
      carried.push(pair);
      const frozenAtStart = cut;
      client.on('data', (chunk: Buffer) => void (!frozenAtStart && !isFrozen(pair) && upstream.write(chunk)));
      upstream.on('data', (chunk: Buffer) => void (!frozenAtStart && !isFrozen(pair) && client.write(chunk)));
      for (const chunk of waiting) upstream.write(chunk);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    if (cut)
      client.on('data', (chunk: Buffer) => waiting.push(chunk)); // never answered
    else open();
  });
  relay.listen(0, '127.0.0.1');
  await once(relay, 'listening');
  const url = new URL(server);
  url.port = String((relay.address() as AddressInfo).port);
  pool = createPool(url.toString(), 2);
});

const frozen = new WeakSet<object>();
const isFrozen = (pair: object) => frozen.has(pair);

afterAll(async () => {
  for (const { client, upstream } of carried) {
    client.destroy();
    upstream.destroy();
  }
  await Promise.race([pool.end(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
  relay.close();
});

describe('withTransactionWithin', () => {
  it('drops a connection that stopped answering, so the next attempt gets through on a new one as soon as the network is back', async () => {
    expect(
      await withTransactionWithin(pool, 2_000, async (client) => (await client.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one),
    ).toBe(1);
    // The cut: every connection the pool holds falls silent, and new ones hang.
    cut = true;
    for (const pair of carried) frozen.add(pair);
    const started = Date.now();
    await expect(withTransactionWithin(pool, 500, (client) => client.query('SELECT 1'))).rejects.toBeInstanceOf(StatementTimedOut);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Every connection of the pool is taken by a statement sent during the cut (a lease renewal, a
    // poll): the pool has none to give until TCP's backoff ends.
    const held = Array.from({ length: 2 }, () => pool.query('SELECT 1').catch(() => undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The heal: the connections the cut silenced stay silent (TCP's backoff), new ones get through.
    cut = false;
    const healed = Date.now();
    expect(
      await withTransactionWithin(pool, 2_000, async (client) => (await client.query<{ two: number }>('SELECT 2 AS two')).rows[0]?.two),
    ).toBe(2);
    expect(Date.now() - healed).toBeLessThan(2_000);
    void held;
  });
});
