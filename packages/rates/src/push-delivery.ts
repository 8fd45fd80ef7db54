import { randomUUID } from 'node:crypto';
import type { Queryable } from '@quarry/db';
import {
  acquirePushLease,
  completePushFailure,
  completePushSuccess,
  insertDelivery,
  releasePushLease,
  type SubscriptionRow,
} from './push.queries.ts';
import type { BodyCache } from './body-cache.ts';
import { findBodies, pageSubscriptionHashes, searchKeyString, subscriptionStateBytes, type SearchKey } from './rate-results.queries.ts';
import type { PushSender } from './push-sender.ts';

export type PushPolicy = {
  timeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A subscription whose pushes keep failing this long is suspended until an operator resumes it. */
  suspendAfterMs: number;
  /** Largest body sent (DECISIONS.md: push payload capped at 50 MB); a bigger state is a failed push. */
  maxBytes?: number;
};

export type DeliveryPorts = {
  db: Queryable;
  sender: PushSender;
  decrypt: (sealed: Buffer) => string;
  /** Schedules a later attempt (the retry carries no state: it sends whatever is current then). */
  enqueueRetry: (subscriptionId: string, attempt: number, delayMs: number) => Promise<unknown>;
  policy: PushPolicy;
  now: () => Date;
  random?: () => number;
  log?: (event: { subscriptionId: string; version: number; outcome: string; status: number | null; bytes: number; error: string | null }) => void;
  /** Serialized bodies recently sent by this process, reused when the stored hash still matches. */
  cache?: BodyCache;
};

export type DeliveryOutcome = 'delivered' | 'up-to-date' | 'busy' | 'failed' | 'suspended';

const DAY_MS = 86_400_000;
const PAGE_BYTES = 4 * 1024 * 1024;
const open = Buffer.from('[');
const comma = Buffer.from(',');
const close = Buffer.from(']');

/**
 * The complete current state of a subscription, as stored bytes: `[` + each stored hotel object
 * joined by `,` + `]`, read page by page (keyset) so memory stays flat whatever the size.
 */
function gridOf(subscription: SubscriptionRow, today: Date) {
  const fromDate = today.toISOString().slice(0, 10);
  const toDate = new Date(Date.parse(`${fromDate}T00:00:00Z`) + (subscription.searches.daysAhead - 1) * DAY_MS).toISOString().slice(0, 10);
  return { clientId: subscription.clientId, hotelIds: subscription.hotelIds, fromDate, toDate, nights: subscription.searches.nights, guests: subscription.searches.guests };
}

export async function* streamSubscriptionState(
  db: Queryable,
  subscription: SubscriptionRow,
  today: Date,
  options: { firstPageSize?: number; cache?: BodyCache; maxBytes?: number } = {},
): AsyncGenerator<Buffer> {
  const grid = gridOf(subscription, today);
  let sent = 0;
  const fetchPage = async (after: SearchKey | null, limit: number) => {
    const keys = await pageSubscriptionHashes(db, { ...grid, after, limit });
    const bodies = new Map<string, Buffer>();
    const missing = keys.filter((key) => {
      const cached = options.cache?.get(searchKeyString(key), key.sha256);
      if (cached) bodies.set(searchKeyString(key), cached);
      return !cached;
    });
    for (const row of await findBodies(db, missing)) {
      const bytes = Buffer.from(row.body);
      bodies.set(searchKeyString(row), bytes);
      options.cache?.set(searchKeyString(row), row.sha256, bytes);
    }
    // A result deleted between the two reads is simply absent, as it is from the state now.
    return { keys, bodies };
  };
  yield open;
  let first = true;
  let pageSize = options.firstPageSize ?? 200;
  let page = await fetchPage(null, pageSize);
  for (;;) {
    const last = page.keys.at(-1);
    const more = last !== undefined && page.keys.length >= pageSize;
    const pageBytes = page.keys.reduce((sum, key) => sum + key.bytes, 0);
    // Pages of about PAGE_BYTES whatever the result size: memory stays flat for big hotels, and
    // small results still come a thousand per query.
    pageSize = Math.max(10, Math.min(1000, Math.floor(PAGE_BYTES / Math.max(1, pageBytes / Math.max(1, page.keys.length)))));
    // Read the next page while this one is on the wire: the database and the socket overlap.
    const next = more ? fetchPage({ hotelId: last.hotelId, checkIn: last.checkIn, nights: last.nights, guests: last.guests }, pageSize) : null;
    next?.catch(() => {});
    // One write per page (~4 MB) rather than two per hotel: the copy costs far less than the
    // thousands of small writes it saves.
    const parts: Buffer[] = [];
    for (const key of page.keys) {
      const body = page.bodies.get(searchKeyString(key));
      if (!body) continue;
      if (!first) parts.push(comma);
      first = false;
      parts.push(body);
    }
    if (parts.length > 0) {
      const chunk = Buffer.concat(parts);
      sent += chunk.length;
      // The state grew past the cap while streaming: abort (the receiver sees a broken request,
      // never a truncated array taken for the whole state).
      if (options.maxBytes !== undefined && sent > options.maxBytes) throw new PushTooLargeError(sent, options.maxBytes);
      yield chunk;
    }
    if (!next) break;
    page = await next;
  }
  yield close;
}

class PushTooLargeError extends Error {
  constructor(bytes: number, maxBytes: number) {
    super(`state of ${bytes} bytes is above the push limit of ${maxBytes} bytes`);
    this.name = 'PushTooLargeError';
  }
}

/** Exponential backoff with "equal jitter": half fixed, half random, capped. */
export function retryDelayMs(policy: PushPolicy, failures: number, random: () => number): number {
  const exponential = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

/**
 * Delivers a subscription's current state. Invariants (ADR 0016):
 * - one push in flight per subscription: a lease row-lock in Postgres, held at most the request
 *   timeout plus a margin, so it also holds across worker processes;
 * - the state is read at send time and tagged with the version read before reading it, and versions
 *   only grow, so a later delivery always carries state at least as new as an earlier one;
 * - a retry never resends a failed body: it sends whatever is current when it runs, so newer state
 *   supersedes it; while a retry is pending, change-triggered jobs wait for it instead of hammering.
 */
export async function deliverPush(ports: DeliveryPorts, subscriptionId: string, options: { isRetry: boolean }): Promise<DeliveryOutcome> {
  let isRetry = options.isRetry;
  for (;;) {
    const token = randomUUID();
    const leaseMs = ports.policy.timeoutMs + 60_000;
    const subscription = await acquirePushLease(ports.db, subscriptionId, token, leaseMs, isRetry);
    if (!subscription) return 'busy';
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
    try {
      const maxBytes = ports.policy.maxBytes;
      if (maxBytes !== undefined) {
        const bytes = await subscriptionStateBytes(ports.db, gridOf(subscription, ports.now()));
        if (bytes > maxBytes) throw new PushTooLargeError(bytes, maxBytes);
      }
      const result = await ports.sender.put(
        subscription.pushUrl,
        { 'content-type': 'application/json', 'x-api-key': ports.decrypt(subscription.apiKeyCiphertext), 'x-quarry-state-version': String(version) },
        streamSubscriptionState(ports.db, subscription, ports.now(), { ...(ports.cache ? { cache: ports.cache } : {}), ...(maxBytes !== undefined ? { maxBytes } : {}) }),
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
    }
    const durationMs = Math.round(performance.now() - started);
    if (error === null) {
      await insertDelivery(ports.db, subscriptionId, { version, startedAt, status, bytes, durationMs, error: null, outcome: 'delivered' });
      ports.log?.({ subscriptionId, version, outcome: 'delivered', status, bytes, error });
      const after = await completePushSuccess(ports.db, subscriptionId, token, version);
      // State moved on while this push was in flight: deliver again now, in order.
      if (after && after.stateVersion > after.deliveredVersion) {
        isRetry = false;
        continue;
      }
      return 'delivered';
    }
    const failures = subscription.failures + 1;
    const delayMs = retryDelayMs(ports.policy, failures, ports.random ?? Math.random);
    const failed = await completePushFailure(ports.db, subscriptionId, token, delayMs, ports.policy.suspendAfterMs);
    const outcome = failed?.suspended ? 'suspended' : 'failed';
    await insertDelivery(ports.db, subscriptionId, { version, startedAt, status, bytes, durationMs, error, outcome });
    ports.log?.({ subscriptionId, version, outcome, status, bytes, error });
    if (failed && !failed.suspended) await ports.enqueueRetry(subscriptionId, failed.failures, delayMs);
    return outcome;
  }
}
