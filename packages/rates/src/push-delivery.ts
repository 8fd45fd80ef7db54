import { randomUUID } from 'node:crypto';
import type { Pool } from '@quarry/db';
import {
  acquirePushLease,
  completePushFailure,
  completePushSuccess,
  heldPushLease,
  insertDelivery,
  releasePushLease,
  renewPushLease,
  type SubscriptionRow,
} from './push.queries.ts';
import { readBodyPieces, type BodyCache } from './body-cache.ts';
import { pageSubscriptionHashes, searchKeyString, subscriptionStateBytes, type SearchKey, type StateKey } from './rate-results.queries.ts';
import type { PushSender } from './push-sender.ts';

export type PushPolicy = {
  timeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A subscription whose pushes keep failing this long is suspended until an operator resumes it. */
  suspendAfterMs: number;
  /** Largest body sent (50 MB by default, `RATES_PUSH_MAX_MB`); a bigger state is a failed push. */
  maxBytes?: number;
  /**
   * How long a push's lease lasts unless renewed (renewed every third of it while the push runs):
   * how soon another worker takes over the subscription of a crashed one. Default 10 s.
   */
  leaseMs?: number;
  /**
   * A receiver down for a short while (a deploy, a restart) gets the current state within seconds
   * of coming back: while a subscription has been failing for less than `quickRetryWindowMs`
   * (default 5 minutes), retries are at most `quickRetryMaxMs` apart (default 10 s); after that the
   * exponential backoff up to `backoffMaxMs` applies.
   */
  quickRetryWindowMs?: number;
  quickRetryMaxMs?: number;
};

export type DeliveryPorts = {
  /** A pool, not one connection: bodies are read by COPY on connections of their own. */
  db: Pool;
  sender: PushSender;
  /** Opens the API key sealed for the subscription's row. */
  decrypt: (subscriptionId: string, sealed: Buffer) => string;
  /** Schedules a later attempt (the retry carries no state: it sends whatever is current then). */
  enqueueRetry: (subscriptionId: string, attempt: number, delayMs: number) => Promise<unknown>;
  /**
   * Schedules a push for when another push's lease runs out; `leaseUntil` identifies that lease,
   * so every push that found the same lease held schedules one follow-up between them.
   */
  enqueueAfterLease: (subscriptionId: string, delayMs: number, leaseUntil: Date) => Promise<unknown>;
  policy: PushPolicy;
  now: () => Date;
  random?: () => number;
  log?: (event: {
    subscriptionId: string;
    version: number;
    outcome: string;
    status: number | null;
    bytes: number;
    error: string | null;
  }) => void;
  /** Serialized bodies recently sent by this process, reused when the stored hash still matches. */
  cache?: BodyCache;
};

export type DeliveryOutcome = 'delivered' | 'up-to-date' | 'busy' | 'failed' | 'suspended';

const DAY_MS = 86_400_000;
const GROUP_BYTES = 4 * 1024 * 1024;
const KEYS_PER_QUERY = 5000;
const open = Buffer.from('[');
const close = Buffer.from(']');

function gridOf(subscription: SubscriptionRow, today: Date) {
  const fromDate = today.toISOString().slice(0, 10);
  const toDate = new Date(Date.parse(`${fromDate}T00:00:00Z`) + (subscription.searches.daysAhead - 1) * DAY_MS).toISOString().slice(0, 10);
  return {
    clientId: subscription.clientId,
    hotelIds: subscription.hotelIds,
    fromDate,
    toDate,
    nights: subscription.searches.nights,
    guests: subscription.searches.guests,
  };
}

/**
 * The complete current state of a subscription, as stored bytes: `[` + each stored hotel object
 * joined by `,` + `]`. Keys and hashes come a few thousand per query (they are small); bodies are
 * read in groups of about GROUP_BYTES by binary COPY (`readBodyPieces`), the next group while the
 * current one is on the wire, so memory stays flat whatever the size and a connection is held
 * only while a group is read, never while a slow receiver takes it. A body this process sent
 * lately with the same hash is taken from the cache and costs no query at all.
 */
export async function* streamSubscriptionState(
  db: Pool,
  subscription: SubscriptionRow,
  today: Date,
  options: { keysPerQuery?: number; groupBytes?: number; cache?: BodyCache; maxBytes?: number; firstKeys?: StateKey[] } = {},
): AsyncGenerator<Buffer | Buffer[]> {
  const grid = gridOf(subscription, today);
  const keysPerQuery = options.keysPerQuery ?? KEYS_PER_QUERY;
  const readGroup = (keys: StateKey[]) => readBodyPieces(db, keys, options.cache);
  let sent = 0;
  let first = true;
  yield open;
  let after: SearchKey | null = null;
  let prefetched = options.firstKeys;
  for (;;) {
    const keys: StateKey[] = prefetched ?? (await pageSubscriptionHashes(db, { ...grid, after, limit: keysPerQuery }));
    prefetched = undefined;
    const groups = groupByBytes(keys, options.groupBytes ?? GROUP_BYTES);
    let reading = groups[0] ? readGroup(groups[0]) : null;
    for (let index = 0; index < groups.length; index++) {
      const group = groups[index] ?? [];
      const bodies = await (reading ?? new Map<string, Buffer[]>());
      const nextGroup = groups[index + 1];
      reading = nextGroup ? readGroup(nextGroup) : null;
      reading?.catch(() => {});
      // Each body comes behind its comma; the first goes without it (a view, nothing copied), and
      // the group goes out as one corked write (see PushSender).
      const pieces: Buffer[] = [];
      for (const key of group) {
        const body = bodies.get(searchKeyString(key));
        if (!body) continue;
        for (const [at, piece] of body.entries()) {
          const part = first && at === 0 ? piece.subarray(1) : piece;
          if (part.length === 0) continue;
          sent += part.length;
          pieces.push(part);
        }
        first = false;
      }
      // The state grew past the cap while streaming: abort (the receiver sees a broken request,
      // never a truncated array taken for the whole state).
      if (options.maxBytes !== undefined && sent > options.maxBytes) throw new PushTooLargeError(sent, options.maxBytes);
      if (pieces.length > 0) yield pieces;
    }
    const last = keys.at(-1);
    if (last === undefined || keys.length < keysPerQuery) break;
    after = { hotelId: last.hotelId, checkIn: last.checkIn, nights: last.nights, guests: last.guests };
  }
  yield close;
}

/** Bytes of `[` + bodies joined by `,` + `]` (what subscriptionStateBytes sums in SQL). */
export function stateBytesOf(keys: StateKey[]): number {
  return 2 + keys.reduce((sum, key) => sum + key.bytes, 0) + Math.max(0, keys.length - 1);
}

/** Consecutive runs of keys whose bodies add up to about `maxBytes` (at least one key each). */
function groupByBytes(keys: StateKey[], maxBytes: number): StateKey[][] {
  const groups: StateKey[][] = [];
  let current: StateKey[] = [];
  let bytes = 0;
  for (const key of keys) {
    if (current.length > 0 && bytes + key.bytes > maxBytes) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(key);
    bytes += key.bytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

class PushTooLargeError extends Error {
  constructor(bytes: number, maxBytes: number) {
    super(`state of ${bytes} bytes is above the push limit of ${maxBytes} bytes`);
    this.name = 'PushTooLargeError';
  }
}

/**
 * Exponential backoff with "equal jitter": half fixed, half random, capped; capped lower while the
 * subscription has been failing for a short while only (`failingForMs`).
 */
export function retryDelayMs(policy: PushPolicy, failures: number, random: () => number, failingForMs = Number.POSITIVE_INFINITY): number {
  const quick = failingForMs < (policy.quickRetryWindowMs ?? 5 * 60_000);
  const cap = quick ? Math.min(policy.backoffMaxMs, policy.quickRetryMaxMs ?? 10_000) : policy.backoffMaxMs;
  const exponential = Math.min(cap, policy.backoffBaseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/**
 * Delivers a subscription's current state. Invariants (ADR 0016):
 * - one push in flight per subscription: a lease in Postgres, so it also holds across worker
 *   processes; short (policy.leaseMs) and renewed while the push runs, so a crashed worker's
 *   lease runs out in seconds. A push that finds the lease held by another schedules a follow-up
 *   for when it runs out: if the holder died, the follow-up delivers;
 * - the state is read at send time and tagged with the version read before reading it, and versions
 *   only grow, so a later delivery always carries state at least as new as an earlier one;
 * - a retry never resends a failed body: it sends whatever is current when it runs, so newer state
 *   supersedes it; while a retry is pending, change-triggered jobs wait for it instead of hammering.
 */
export async function deliverPush(ports: DeliveryPorts, subscriptionId: string, options: { isRetry: boolean }): Promise<DeliveryOutcome> {
  let isRetry = options.isRetry;
  for (;;) {
    const token = randomUUID();
    const leaseMs = ports.policy.leaseMs ?? 10_000;
    const subscription = await acquirePushLease(ports.db, subscriptionId, token, leaseMs, isRetry);
    if (!subscription) {
      // Completing here would leave the state undelivered if the holder crashed mid-push.
      const held = await heldPushLease(ports.db, subscriptionId);
      if (held) await ports.enqueueAfterLease(subscriptionId, held.remainingMs + 500, held.leaseUntil);
      return 'busy';
    }
    if (subscription.stateVersion <= subscription.deliveredVersion) {
      await releasePushLease(ports.db, subscriptionId, token);
      return 'up-to-date';
    }
    const version = subscription.stateVersion;
    const startedAt = ports.now();
    const started = performance.now();
    let status: number | null = null;
    let bytes = 0;
    let error: string | null = null;
    const renewal = setInterval(
      () => {
        // A failed renewal (Postgres away) is tried again next time; the completion checks the token.
        renewPushLease(ports.db, subscriptionId, token, leaseMs).catch(() => {});
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    try {
      const maxBytes = ports.policy.maxBytes;
      // One clock reading for the size check and the body: both describe the same grid of dates.
      const today = ports.now();
      const grid = gridOf(subscription, today);
      // The first page of keys, read before sending: when it is the whole state (the usual case) it
      // gives the exact size for the cap with no extra query, and the body streams from it.
      const firstKeys = await pageSubscriptionHashes(ports.db, { ...grid, after: null, limit: KEYS_PER_QUERY });
      if (maxBytes !== undefined) {
        const complete = firstKeys.length < KEYS_PER_QUERY;
        const bytes = complete ? stateBytesOf(firstKeys) : await subscriptionStateBytes(ports.db, grid);
        if (bytes > maxBytes) throw new PushTooLargeError(bytes, maxBytes);
      }
      const result = await ports.sender.put(
        subscription.pushUrl,
        {
          'content-type': 'application/json',
          'x-api-key': ports.decrypt(subscription.subscriptionId, subscription.apiKeyCiphertext),
          'x-quarry-state-version': String(version),
        },
        streamSubscriptionState(ports.db, subscription, today, {
          firstKeys,
          keysPerQuery: KEYS_PER_QUERY,
          ...(ports.cache ? { cache: ports.cache } : {}),
          ...(maxBytes !== undefined ? { maxBytes } : {}),
        }),
        ports.policy.timeoutMs,
      );
      status = result.status;
      bytes = result.bytes;
      if (status >= 400) error = `receiver answered ${status}`;
    } catch (caught) {
      const name = (caught as Error).name;
      if (caught instanceof PushTooLargeError) error = caught.message;
      else if (name === 'TimeoutError' || name === 'AbortError') error = `no answer within ${ports.policy.timeoutMs} ms`;
      else error = `${name}: ${(caught as Error).message}`;
    } finally {
      clearInterval(renewal);
    }
    const durationMs = Math.round(performance.now() - started);
    if (error === null) {
      const after = await completePushSuccess(ports.db, subscriptionId, token, { version, startedAt, status, bytes, durationMs });
      ports.log?.({ subscriptionId, version, outcome: 'delivered', status, bytes, error });
      // State moved on while this push was in flight: deliver again now, in order.
      if (after && after.stateVersion > after.deliveredVersion) {
        isRetry = false;
        continue;
      }
      return 'delivered';
    }
    const failures = subscription.failures + 1;
    const failingForMs = subscription.failingSince ? ports.now().getTime() - subscription.failingSince.getTime() : 0;
    const delayMs = retryDelayMs(ports.policy, failures, ports.random ?? Math.random, failingForMs);
    const failed = await completePushFailure(ports.db, subscriptionId, token, delayMs, ports.policy.suspendAfterMs);
    const outcome = failed?.suspended ? 'suspended' : 'failed';
    await insertDelivery(ports.db, subscriptionId, { version, startedAt, status, bytes, durationMs, error, outcome });
    ports.log?.({ subscriptionId, version, outcome, status, bytes, error });
    if (failed && !failed.suspended) await ports.enqueueRetry(subscriptionId, failed.failures, delayMs);
    return outcome;
  }
}
