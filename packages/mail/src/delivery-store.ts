import { type Pool, type PoolClient } from '@quarry/db';
import { lockDeliveriesToSend, recordDelivered, unlockDeliveries, type DeliveryClaim, type DeliveryToSend } from './mail.queries.ts';
import { groupCommit } from './group-commit.ts';
import type { RecentMessages } from './recent-messages.ts';

/** What deliveries in flight share in one process: their advisory locks and their success records. */
export type DeliveryStore = {
  /** Locks a delivery for this process and reads it; `locked: false` when anyone is sending it now. */
  claim(deliveryId: string): Promise<DeliveryClaim>;
  /** Gives the lock back; after `recordDelivered` or any other outcome is committed. */
  release(deliveryId: string): Promise<void>;
  /** Final state, counter and message clean-up; false when the delivery was already final. */
  recordDelivered(delivery: Pick<DeliveryToSend, 'deliveryId' | 'messageId' | 'recipient'>): Promise<boolean>;
  close(): void;
};

/**
 * The advisory locks of every delivery in flight live on ONE connection of the process, held from
 * claim to release, and claims, releases and success records go in groups (group commit): three
 * statements shared by all deliveries that reach that step together, instead of three per
 * delivery on a connection each (bench smtp). A killed process takes that connection, and so every
 * lock it held, with it (ADR 0011). A session takes its own lock again without waiting, so the
 * store refuses a second claim of an id it already holds.
 */
export function createDeliveryStore(pool: Pool, recent?: RecentMessages): DeliveryStore {
  const held = new Set<string>();
  let lockSession: Promise<PoolClient> | null = null;
  // Never back to the pool: a connection that held locks is closed, and its locks with it.
  const discarded = new WeakSet<PoolClient>();
  const discard = (client: PoolClient) => {
    if (discarded.has(client)) return;
    discarded.add(client);
    client.release(true);
  };
  const session = (): Promise<PoolClient> => {
    if (!lockSession) {
      const connecting = pool.connect().then((client) => {
        // The locks died with the connection; the next claim opens a new one. Sends in flight
        // finish, and their releases on the new session are no-ops.
        client.on('error', () => {
          if (lockSession === connecting) lockSession = null;
          discard(client);
        });
        return client;
      });
      connecting.catch(() => {
        if (lockSession === connecting) lockSession = null;
      });
      lockSession = connecting;
    }
    return lockSession;
  };

  const lock = groupCommit(
    async (ids: string[]) => {
      // Held here, so a message the acceptor drops from `recent` meanwhile is still at hand.
      const rawAtHand = new Map<string, Buffer>();
      for (const id of ids) {
        const raw = recent?.get(id);
        if (raw) rawAtHand.set(id, raw);
      }
      const claims = await lockDeliveriesToSend(await session(), ids, rawAtHand);
      return ids.map((id) => claims.get(id) ?? { locked: false, delivery: null });
    },
    { maxInputs: 200 },
  );
  const unlock = groupCommit(
    async (ids: string[]) => {
      await unlockDeliveries(await session(), ids);
      return ids.map(() => undefined);
    },
    { maxInputs: 200 },
  );
  const record = groupCommit(
    async (deliveries: Array<Pick<DeliveryToSend, 'deliveryId' | 'messageId' | 'recipient'>>) => {
      const changed = await recordDelivered(pool, deliveries);
      return deliveries.map((delivery) => changed.has(delivery.deliveryId));
    },
    { maxInputs: 200 },
  );

  return {
    async claim(deliveryId) {
      if (held.has(deliveryId)) return { locked: false, delivery: null };
      held.add(deliveryId);
      try {
        const claim = await lock(deliveryId);
        if (!claim.locked) held.delete(deliveryId);
        return claim;
      } catch (error) {
        held.delete(deliveryId);
        throw error;
      }
    },
    async release(deliveryId) {
      // Whatever happened, the next attempt (a retry minutes away, or none) reads Postgres.
      recent?.forget(deliveryId);
      try {
        await unlock(deliveryId);
      } finally {
        held.delete(deliveryId);
      }
    },
    recordDelivered: (delivery) => record(delivery),
    close() {
      void lockSession?.then(discard).catch(() => {});
      lockSession = null;
    },
  };
}
