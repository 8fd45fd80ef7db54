import { randomUUID } from 'node:crypto';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, waitFor, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverPush, type DeliveryPorts } from './push-delivery.ts';
import type { PushSender } from './push-sender.ts';

let database: TestDatabase;
let db: Pool;

beforeAll(async () => {
  database = await createTestDatabase('rates_lease');
  db = createPool(database.url, 4);
  await db.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('c1', 'c', '{hotels}', '\\x01', '\\x01')`,
  );
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

async function subscription(): Promise<string> {
  const subscriptionId = randomUUID();
  await db.query(
    `INSERT INTO push_subscriptions (subscription_id, client_id, push_url, api_key_ciphertext, hotel_ids, searches)
     VALUES ($1, 'c1', 'http://receiver.test/push', '\\x00', '{H1}', '{"daysAhead": 1, "nights": [1], "guests": [2]}')`,
    [subscriptionId],
  );
  return subscriptionId;
}

const leaseLeftMs = async (subscriptionId: string) =>
  Number(
    (
      await db.query<{ ms: number }>(
        `SELECT EXTRACT(EPOCH FROM lease_until - now()) * 1000 AS ms FROM push_subscriptions WHERE subscription_id = $1`,
        [subscriptionId],
      )
    ).rows[0]?.ms,
  );

/** A receiver (our own sender port) that holds each push until the test lets it answer. */
function heldSender() {
  let answer: (() => void) | null = null;
  const sender: PushSender = {
    async put(_url, _headers, chunks) {
      let bytes = 0;
      for await (const chunk of chunks) bytes += [chunk].flat().reduce((sum, piece) => sum + piece.length, 0);
      await new Promise<void>((resolve) => (answer = resolve));
      return { status: 200, bytes };
    },
    check: async () => {},
    close: async () => {},
  };
  return { sender, sending: () => answer !== null, answer: () => answer?.() };
}

function portsWith(sender: PushSender, leaseMs: number | undefined, followUps: Array<{ delayMs: number }>): DeliveryPorts {
  return {
    db,
    sender,
    decrypt: () => 'key',
    enqueueRetry: async () => {},
    enqueueAfterLease: async (_id, delayMs) => void followUps.push({ delayMs }),
    policy: {
      timeoutMs: 5 * 60_000,
      backoffBaseMs: 100,
      backoffMaxMs: 400,
      suspendAfterMs: 60_000,
      ...(leaseMs !== undefined ? { leaseMs } : {}),
    },
    now: () => new Date(),
  };
}

describe('the push lease', () => {
  it("is short by default, whatever the request timeout, so a crashed worker's lease runs out in seconds", async () => {
    const subscriptionId = await subscription();
    const receiver = heldSender();
    const push = deliverPush(portsWith(receiver.sender, undefined, []), subscriptionId, { isRetry: false });
    await waitFor('push in flight', () => receiver.sending());
    expect(await leaseLeftMs(subscriptionId)).toBeLessThanOrEqual(10_000);
    receiver.answer();
    expect(await push).toBe('delivered');
  });

  it('is renewed while the push runs; a push finding it held schedules a follow-up for when it runs out instead of just completing', async () => {
    const subscriptionId = await subscription();
    const receiver = heldSender();
    const followUps: Array<{ delayMs: number }> = [];
    const push = deliverPush(portsWith(receiver.sender, 600, followUps), subscriptionId, { isRetry: false });
    await waitFor('push in flight', () => receiver.sending());
    // Three lease lengths later the lease is still this push's.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect(await leaseLeftMs(subscriptionId)).toBeGreaterThan(0);
    expect(await deliverPush(portsWith(receiver.sender, 600, followUps), subscriptionId, { isRetry: false })).toBe('busy');
    expect(followUps).toHaveLength(1);
    expect(followUps[0]?.delayMs).toBeLessThanOrEqual(600 + 500);
    receiver.answer();
    expect(await push).toBe('delivered');
  });

  it('left by a crashed push: the next push schedules its follow-up for when the lease runs out', async () => {
    const subscriptionId = await subscription();
    await db.query(
      `UPDATE push_subscriptions SET lease_token = $2, lease_until = now() + interval '8 seconds' WHERE subscription_id = $1`,
      [subscriptionId, randomUUID()],
    );
    const followUps: Array<{ delayMs: number }> = [];
    expect(await deliverPush(portsWith(heldSender().sender, undefined, followUps), subscriptionId, { isRetry: false })).toBe('busy');
    expect(followUps).toHaveLength(1);
    expect(followUps[0]?.delayMs).toBeGreaterThan(7_000);
    expect(followUps[0]?.delayMs).toBeLessThanOrEqual(8_500);
  });
});
