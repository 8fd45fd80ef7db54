import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { insertAcceptedMessages } from './mail.queries.ts';
import { createTestDatabase, holdRowLocks, lockWaiters, startSmtpSink, waitFor, type SmtpSink, type TestDatabase } from '@quarry/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deliverMail, type DeliveryPorts } from './deliver-mail.ts';
import { createDeliveryStore, deliveryPoolSize, type DeliveryStore } from './delivery-store.ts';
import { createMailSender, type MailSender } from './mail-sender.ts';
import { createSrs } from './srs.ts';

// The window between a destination's 250 and our record of it is the one place a crash resends a
// message (ADR 0011). These tests stop the record inside Postgres (a row lock on the delivery)
// and look at what the process does meanwhile, with a real destination on loopback.

/** The record of a 250, as Postgres shows it while it waits for a lock. */
const recordStatement = "UPDATE mail_deliveries SET state = 'delivered'";

let database: TestDatabase;
let pool: Pool;
let sink: SmtpSink;
const open: Array<{ close(): unknown }> = [];

beforeAll(async () => {
  database = await createTestDatabase('mail_record');
  pool = createPool(database.url, 8);
});

afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close();
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function start(options: { maxConnections: number; onMailFrom?: (address: string) => Promise<void>; pool?: Pool }) {
  const deliveryPool = options.pool ?? pool;
  sink = await startSmtpSink({
    server: {
      onMailFrom(address, _session, callback) {
        void (options.onMailFrom?.(address.address) ?? Promise.resolve()).then(() => callback(), callback);
      },
    },
  });
  open.push(sink);
  const sender: MailSender = createMailSender({
    relayUrl: sink.url,
    hostname: 'relay.test',
    mxPort: 25,
    resolver: { mx: () => Promise.reject(new Error('no DNS')), addresses: () => Promise.reject(new Error('no DNS')) },
    maxConnections: options.maxConnections,
  });
  open.push(sender);
  const store: DeliveryStore = createDeliveryStore(deliveryPool);
  open.push(store);
  const ports: DeliveryPorts = {
    pool: deliveryPool,
    store,
    sender,
    srs: createSrs({ secret: Buffer.alloc(32, 1), domain: 'relay.test' }),
    dns: () => Promise.reject(new Error('no DNS')),
    enqueue: () => Promise.resolve(),
    now: () => new Date(),
    settings: {
      relaySender: 'f@relay.test',
      hostname: 'mx.relay.test',
      dkim: undefined,
      retryBaseMs: 300_000,
      retryMaxMs: 4_000_000,
      maxQueueLifetimeMs: 5 * 86_400_000,
    },
  };
  return { ports, deliver: (deliveryId: string) => deliverMail(ports, { deliveryId }) };
}

/**
 * A stored message to `forwardsTo` from `<local>@sender.test`; answers its delivery id. A second
 * delivery of it stays pending, so the message (and the row we look at) outlives the record.
 */
async function storeDelivery(local: string, forwardsTo: string): Promise<string> {
  const deliveryId = randomUUID();
  await insertAcceptedMessages(pool, [
    {
      messageId: randomUUID(),
      envelopeFrom: `${local}@sender.test`,
      smtpUtf8: false,
      raw: Buffer.from(`From: ${local}@sender.test\r\nSubject: ${local}\r\n\r\nHello.\r\n`),
      deliveries: [
        { deliveryId, recipient: null, forwardsTo, kind: 'forward', keepSender: false },
        { deliveryId: randomUUID(), recipient: null, forwardsTo: 'pending@dest.test', kind: 'forward', keepSender: false },
      ],
      countRecipients: [],
    },
  ]);
  return deliveryId;
}

const stateOf = async (deliveryId: string) =>
  (await pool.query<{ state: string }>('SELECT state FROM mail_deliveries WHERE delivery_id = $1', [deliveryId])).rows[0]?.state;

const holdRecordOf = (deliveryId: string) => holdRowLocks(pool, 'SELECT 1 FROM mail_deliveries WHERE delivery_id = $1', [deliveryId]);

describe("recording the destination's 250", () => {
  it('keeps the session from carrying anything more until the outcome is committed', async () => {
    const first = await storeDelivery('first', 'one@dest.test');
    const second = await storeDelivery('second', 'two@dest.test');
    // What the destination can see of our record when our next command reaches it.
    let firstStateAtNextMailFrom: string | undefined;
    const { deliver } = await start({
      maxConnections: 1,
      onMailFrom: async (address) => {
        if (address.includes('second')) firstStateAtNextMailFrom = await stateOf(first);
      },
    });
    const hold = await holdRecordOf(first);
    try {
      const firstResult = deliver(first);
      await waitFor(
        'the first 250 given and its record waiting in Postgres',
        async () => sink.messages.length === 1 && (await lockWaiters(pool, recordStatement)).length === 1,
      );
      const secondResult = deliver(second);
      await hold.release();
      expect(await firstResult).toBe('delivered');
      expect(await secondResult).toBe('delivered');
    } finally {
      await hold.release();
    }
    // One session: the second message went out on it, after the first's outcome was committed.
    expect(sink.connections()).toBe(1);
    expect(firstStateAtNextMailFrom).toBe('delivered');
  });

  it("commits one delivery's outcome while another's record is still waiting", async () => {
    const held = await storeDelivery('held', 'held@dest.test');
    const free = await storeDelivery('free', 'free@dest.test');
    const { deliver } = await start({ maxConnections: 2 });
    const hold = await holdRecordOf(held);
    try {
      const heldResult = deliver(held);
      await waitFor('the held record waiting in Postgres', async () => (await lockWaiters(pool, recordStatement)).length === 1);
      // No group flush to wait for: this outcome is committed on its own statement.
      const freeResult = deliver(free);
      await waitFor('the free delivery recorded while the held one waits', async () => (await stateOf(free)) === 'delivered');
      expect(await freeResult).toBe('delivered');
      expect(await stateOf(held)).toBe('queued');
      await hold.release();
      expect(await heldResult).toBe('delivered');
    } finally {
      await hold.release();
    }
    expect(sink.messages).toHaveLength(2);
  });

  it('keeps trying to record a 250 whose record lost its database connection, instead of sending again', async () => {
    const deliveryId = await storeDelivery('dropped', 'dropped@dest.test');
    const { deliver } = await start({ maxConnections: 1 });
    const hold = await holdRecordOf(deliveryId);
    try {
      const result = deliver(deliveryId);
      const [pid] = await waitFor('the record waiting in Postgres', async () => {
        const waiters = await lockWaiters(pool, recordStatement);
        return waiters.length === 1 ? waiters : undefined;
      });
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor('the record tried again on a new connection', async () => {
        const waiters = await lockWaiters(pool, recordStatement);
        return waiters.length === 1 && waiters[0] !== pid;
      });
      await hold.release();
      expect(await result).toBe('delivered');
    } finally {
      await hold.release();
    }
    expect(await stateOf(deliveryId)).toBe('delivered');
    expect(sink.messages).toHaveLength(1);
  });

  it('keeps trying to record a 250 while Postgres has no connection slot for it, instead of sending again', async () => {
    // A role allowed two connections stands in for a server at max_connections: the deliveries'
    // lock session takes one, another client the other, so the record's own connection is refused (53300).
    const role = `quarry_two_slots_${randomUUID().slice(0, 8)}`;
    await pool.query(
      `CREATE ROLE ${role} LOGIN CONNECTION LIMIT 2 IN ROLE ${(await pool.query<{ user: string }>('SELECT current_user AS user')).rows[0]?.user}`,
    );
    const url = new URL(database.url);
    url.username = role;
    const limited = createPool(url.toString(), 3);
    try {
      const deliveryId = await storeDelivery('no-slot', 'no-slot@dest.test');
      const { deliver } = await start({ maxConnections: 1, pool: limited });
      const occupant = await limited.connect();
      let settled = false;
      const result = deliver(deliveryId).finally(() => (settled = true));
      try {
        // The destination took the message, and both of the role's slots are taken (the lock
        // session and the occupant): its record is refused a connection, again and again. A
        // delivery that gave up instead would be sent again by the job's retry.
        await waitFor('the 250 given', () => settled || sink.messages.length === 1);
        const slotsTaken = await pool.query('SELECT 1 FROM pg_stat_activity WHERE usename = $1', [role]);
        expect(slotsTaken.rowCount).toBe(2);
        await new Promise((resolve) => setTimeout(resolve, 800));
        expect(settled).toBe(false);
        expect(await stateOf(deliveryId)).toBe('queued');
      } finally {
        occupant.release(true);
      }
      expect(await result).toBe('delivered');
      expect(await stateOf(deliveryId)).toBe('delivered');
      expect(sink.messages).toHaveLength(1);
    } finally {
      for (const closable of open.splice(0).reverse()) await closable.close();
      await limited.end();
      await pool.query(`DROP ROLE ${role}`);
    }
  });
});

describe('the delivery pool', () => {
  it('holds the lock session and at most 20 connections for statements, whatever the concurrency', () => {
    expect([1, 4, 20, 100, 1000].map(deliveryPoolSize)).toEqual([2, 5, 21, 21, 21]);
  });
});
