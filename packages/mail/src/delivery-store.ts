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
  /**
   * Final state, counter and message clean-up; false when the delivery was already final. Sent at
   * once on a statement of its own, and tried again while the database is unreachable.
   */
  recordDelivered(delivery: Pick<DeliveryToSend, 'deliveryId' | 'messageId' | 'recipient'>): Promise<boolean>;
  close(): void;
};

/** How long a 250 is kept trying to be recorded while the database is unreachable (ADR 0011). */
const recordPatienceMs = 2 * 60_000;
const recordRetryMaxMs = 5_000;

/**
 * The statements of a process's deliveries go through this many connections at most, besides the
 * one that holds the locks: each is brief (a record, a deferral), so however many deliveries are in
 * flight (`MAIL_DELIVERY_CONCURRENCY`), only a few wait on Postgres at a time. A pool of one
 * connection per delivery would ask Postgres for more connections than it has (`max_connections`
 * is 100 by default) at a concurrency of 100, and a record refused a connection sent its message
 * again.
 */
const maxStatementConnections = 20;

/** The size of the delivery pool for `concurrency` deliveries in flight: the lock session and the statements' connections. */
export const deliveryPoolSize = (concurrency: number): number => Math.min(concurrency, maxStatementConnections) + 1;

/** A failure of the database connection rather than of the statement: the same statement may succeed later. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Class 08: connection exception; 57P01-57P03: terminated by the administrator, crash or start-up;
  // 53300: no connection slot left (max_connections, or the role's or the database's limit).
  if (typeof code === 'string' && (/^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300')) return true;
  if (
    typeof code === 'string' &&
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)
  )
    return true;
  return /connection terminated|connection timeout|Connection ended/i.test((error as Error | null)?.message ?? '');
}

/**
 * The advisory locks of every delivery in flight live on ONE connection of the process, held from
 * claim to release, and claims and releases go in groups (group commit): statements shared by all
 * deliveries that reach that step together (bench smtp). A killed process takes that connection,
 * and so every lock it held, with it (ADR 0011). A session takes its own lock again without
 * waiting, so the store refuses a second claim of an id it already holds.
 *
 * A success record is never grouped: it is the statement that closes a delivery's duplicate
 * window, so it goes out the moment the 250 is read instead of waiting for another group's commit.
 * While the database is unreachable it is tried again rather than failing the job: a failed job
 * would send the message again, since the destination's copy is not recorded anywhere.
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
  let closed = false;
  const record = async (delivery: Pick<DeliveryToSend, 'deliveryId' | 'messageId' | 'recipient'>): Promise<boolean> => {
    const giveUpAt = Date.now() + recordPatienceMs;
    for (let attempt = 0; ; attempt += 1) {
      try {
        return (await recordDelivered(pool, [delivery])).has(delivery.deliveryId);
      } catch (error) {
        if (closed || !isConnectionFailure(error) || Date.now() >= giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, recordRetryMaxMs)));
      }
    }
  };

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
      closed = true;
      void lockSession?.then(discard).catch(() => {});
      lockSession = null;
    },
  };
}
