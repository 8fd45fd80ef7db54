import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { insertAcceptedMessages } from './mail.queries.ts';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliveryStore } from './delivery-store.ts';
import { createRecentMessages } from './recent-messages.ts';

describe('recent messages', () => {
  it('keeps the newest messages within its byte budget', () => {
    const recent = createRecentMessages({ maxBytes: 25, maxAgeMs: 60_000 });
    recent.remember(['a'], Buffer.alloc(10, 'a'));
    recent.remember(['b', 'c'], Buffer.alloc(5, 'b'));
    recent.remember(['d'], Buffer.alloc(10, 'd'));
    // a (10) + b, c (5 each) + d (10) = 30 > 25: the oldest, a, goes.
    expect(['a', 'b', 'c', 'd'].map((id) => recent.get(id)?.length ?? 0)).toEqual([0, 5, 5, 10]);
    recent.forget('b');
    recent.remember(['e'], Buffer.alloc(10, 'e'));
    expect(['b', 'c', 'd', 'e'].map((id) => recent.get(id)?.length ?? 0)).toEqual([0, 5, 10, 10]);
    // A message larger than the whole budget is not kept, and pushes nothing out.
    recent.remember(['f'], Buffer.alloc(26));
    expect(recent.get('f')).toBeUndefined();
    expect(recent.get('c')).toBeDefined();
  });

  it('lets copies that nobody released leave by age, at the next message', () => {
    let clock = 0;
    const recent = createRecentMessages({ maxBytes: 1024, maxAgeMs: 1_000, now: () => clock });
    recent.remember(['a'], Buffer.alloc(1));
    clock = 600;
    recent.remember(['b'], Buffer.alloc(1));
    clock = 1_200;
    recent.remember(['c'], Buffer.alloc(1));
    expect(['a', 'b', 'c'].map((id) => recent.get(id) !== undefined)).toEqual([false, true, true]);
  });
});

describe('delivery store with recent messages', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('mail_recent');
    pool = createPool(database.url, 4);
  });

  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('claims with the bytes at hand, and reads Postgres for a delivery it does not hold', async () => {
    const stored = Buffer.from('Subject: stored\r\n\r\nfrom postgres\r\n');
    const [held, notHeld] = [randomUUID(), randomUUID()];
    await insertAcceptedMessages(pool, [
      {
        messageId: randomUUID(),
        envelopeFrom: 'a@sender.test',
        smtpUtf8: false,
        raw: stored,
        deliveries: [
          { deliveryId: held, recipient: null, forwardsTo: 'one@dest.test', kind: 'forward', keepSender: true },
          { deliveryId: notHeld, recipient: null, forwardsTo: 'two@dest.test', kind: 'forward', keepSender: true },
        ],
        countRecipients: [],
      },
    ]);
    const recent = createRecentMessages({ maxBytes: 1024, maxAgeMs: 60_000 });
    // Different bytes than stored, so the test sees where a claim got its bytes from.
    const atHand = Buffer.from('Subject: at hand\r\n\r\nfrom memory\r\n');
    recent.remember([held], atHand);
    const store = createDeliveryStore(pool, recent);
    try {
      const [claimedHeld, claimedNotHeld] = await Promise.all([store.claim(held), store.claim(notHeld)]);
      expect(claimedHeld.delivery?.raw.equals(atHand)).toBe(true);
      expect(claimedNotHeld.delivery?.raw.equals(stored)).toBe(true);
      expect(claimedHeld.delivery).toMatchObject({ forwardsTo: 'one@dest.test', envelopeFrom: 'a@sender.test', state: 'queued' });

      // Released, the delivery is no longer held: its next attempt reads what Postgres has.
      await store.release(held);
      expect(recent.get(held)).toBeUndefined();
      expect((await store.claim(held)).delivery?.raw.equals(stored)).toBe(true);
      await Promise.all([store.release(held), store.release(notHeld)]);
    } finally {
      store.close();
    }
  });
});
