import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { CallbacksDeliverJobPayload } from '@quarry/contracts';
import type { Pool } from '@quarry/db';
import { FetchTimeoutError, UnsafeUrlError, type SafePoster } from '@quarry/safe-fetch';
import { sealedColumns } from '@quarry/keyring';
import type { CallbackSealer } from './callback-clients.ts';
import {
  findCallbacksToSend,
  recordAndClaimNext,
  recordAttempts,
  type AttemptResult,
  type CallbackToSend,
  type ClientSecrets,
} from './callback-outbox.queries.ts';

export type DeliverySettings = {
  /** One POST: how long its answer may take once it is sent (a connection takes at most 10 s before it). */
  timeoutMs: number;
  /** Backoff after a failed attempt: `retryBaseMs` doubling per attempt, at most `retryMaxMs`, with jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** An event not delivered this long after it was recorded is given up (`failed`). */
  giveUpAfterMs: number;
  /**
   * The job's lane: after each round it records the answers and claims its client's next due events
   * itself, up to `eventsPerRound` and the client's room under `clientConcurrency`, under a lease of
   * `leaseMs` (the relay's), and starts no new round `forMs` after it began (0: one round only).
   */
  lane: { clientConcurrency: number; leaseMs: number; eventsPerRound: number; forMs: number };
};

export type DeliveryPorts = {
  pool: Pool;
  sealer: Pick<CallbackSealer, 'open'>;
  /** The SSRF-guarded fetch (the address is vetted again at each delivery, at connect time): its light POST. */
  fetchCallback: SafePoster;
  settings: DeliverySettings;
  now?: () => Date;
};

/** A Standard Webhooks secret's key: the bytes after `whsec_`, base64 (one key object per job, not per HMAC). */
const keyOf = (secret: string) =>
  createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64'));

/** The keys in force: the current secret's, and the previous one's during a rotation's overlap. */
function keysOf(sealer: Pick<CallbackSealer, 'open'>, clientId: string, secrets: ClientSecrets, now: Date): KeyObject[] {
  const keys = [keyOf(sealer.open(sealedColumns.callbackSecret, clientId, secrets.current))];
  if (secrets.previous && secrets.previousValidUntil && secrets.previousValidUntil > now)
    keys.push(keyOf(sealer.open(sealedColumns.callbackPreviousSecret, clientId, secrets.previous)));
  return keys;
}

const sameSecrets = (a: ClientSecrets, b: ClientSecrets) =>
  a.current.equals(b.current) &&
  (a.previous === null ? b.previous === null : b.previous !== null && a.previous.equals(b.previous)) &&
  a.previousValidUntil?.getTime() === b.previousValidUntil?.getTime();

/**
 * `webhook-signature` per Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`,
 * one per key, space-separated. Node's own HMAC: the reference library's is plain JavaScript, many
 * times slower; the tests check every signature with that library.
 */
function signatureOf(keys: KeyObject[], webhookId: string, timestampSeconds: number, body: string): string {
  return keys.map((key) => `v1,${createHmac('sha256', key).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64')}`).join(' ');
}

/** What an attempt's failure is called in the outbox (never a secret: URLs and bodies are not part of it). */
function describeFailure(error: unknown): string {
  if (error instanceof UnsafeUrlError) return `refused by the SSRF policy: ${error.message}`;
  if (error instanceof FetchTimeoutError) return error.message;
  const cause = (error as { cause?: { code?: string } }).cause;
  return `${(error as Error).message ?? String(error)}${cause?.code ? ` (${cause.code})` : ''}`.slice(0, 500);
}

/** When the next attempt is due, or null to give up: the day is over. */
function nextAttemptAt(settings: DeliverySettings, event: { attempts: number; createdAt: Date }, now: Date): Date | null {
  const deadline = event.createdAt.getTime() + settings.giveUpAfterMs;
  if (now.getTime() >= deadline) return null;
  const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(event.attempts, 30));
  // Equal jitter: half fixed, half random, so receivers that fail together are not retried together.
  const delay = ceiling / 2 + Math.random() * (ceiling / 2);
  // The last attempt is made at the deadline itself.
  return new Date(Math.min(now.getTime() + delay, deadline));
}

async function attempt(
  ports: DeliveryPorts,
  event: CallbackToSend,
  keys: KeyObject[],
  signal: AbortSignal,
): Promise<Omit<AttemptResult, 'retryAt'>> {
  const at = (ports.now ?? (() => new Date()))();
  const base = { eventId: event.eventId, seq: event.seq, at };
  try {
    // One signature per secret in force (Standard Webhooks): a receiver that knows either verifies.
    const timestamp = Math.floor(at.getTime() / 1000);
    const signature = signatureOf(keys, event.webhookId, timestamp, event.body);
    // The light POST of the same guard (the address vetted at connect time, the pooled connections
    // reused): only the answer's status counts, and a redirect is not followed, so is not a delivery.
    const response = await ports.fetchCallback.post(event.url, {
      headers: {
        'content-type': 'application/json',
        'webhook-id': event.webhookId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body: event.body,
      signal,
      timeoutMs: ports.settings.timeoutMs,
      maxBytes: 64 * 1024,
    });
    const delivered = response.status >= 200 && response.status < 300;
    return { ...base, delivered, status: response.status, error: delivered ? null : `HTTP ${response.status}` };
  } catch (error) {
    return { ...base, delivered: false, status: null, error: describeFailure(error) };
  }
}

type Tally = { delivered: number; retrying: number; failed: number; skipped: number };

/** Answers as the outbox records them: a 2xx delivered, otherwise the next attempt after a backoff, or given up. */
function resultsOf(
  ports: DeliveryPorts,
  events: CallbackToSend[],
  attempts: Array<Omit<AttemptResult, 'retryAt'>>,
  tally: Tally,
): AttemptResult[] {
  const byId = new Map(events.map((event) => [event.eventId, event]));
  return attempts.map((result) => {
    const retryAt = result.delivered ? null : nextAttemptAt(ports.settings, byId.get(result.eventId) as CallbackToSend, result.at);
    if (result.delivered) tally.delivered += 1;
    else if (retryAt === null) tally.failed += 1;
    else tally.retrying += 1;
    return { ...result, retryAt };
  });
}

/**
 * The `callbacks.deliver` job: POSTs each of its events still in this dispatch to its URL, signed
 * with the client's secrets, and records every answer in one statement: a 2xx is `delivered`;
 * anything else waits for the relay to send it again after a backoff, until the day is over
 * (`failed`). A receiver sees the same `webhook-id` on every attempt of one event. An event the job
 * finds in another dispatch (its lease lapsed and the relay sent it again) is not sent twice by it.
 *
 * The job is its client's lane: with the answers of a round it claims the client's next due events
 * (in the same transaction, under the claims' lock and the client's cap) and sends them in the next
 * round, until none is due or `lane.forMs` has passed. A client's events then cost no relay claim,
 * no job in the queue and no read of their own per round. Stopped mid-way (shutdown, timeout), the
 * job records what was answered; the first round's unanswered events are sent by the job's next run
 * (they are in its payload), a later round's once their lease lapses (by the relay).
 */
export async function deliverCallbacks(ports: DeliveryPorts, payload: CallbacksDeliverJobPayload, signal: AbortSignal): Promise<Tally> {
  const clock = ports.now ?? (() => new Date());
  const { lane } = ports.settings;
  const started = Date.now();
  let { events, secrets } = await findCallbacksToSend(ports.pool, payload.clientId, payload.events);
  const tally: Tally = { delivered: 0, retrying: 0, failed: 0, skipped: payload.events.length - events.length };
  let keysFor: { secrets: ClientSecrets; keys: KeyObject[] } | null = null;
  while (events.length > 0 && secrets) {
    // The client's keys, opened again only when its secrets changed (a rotation) since the last round.
    if (!keysFor || !sameSecrets(keysFor.secrets, secrets))
      keysFor = { secrets, keys: keysOf(ports.sealer, payload.clientId, secrets, clock()) };
    const { keys } = keysFor;
    const attempts = await Promise.all(events.map((event) => attempt(ports, event, keys, signal)));
    // Stopped mid-way: what was not answered stays in its dispatch (see above).
    const settled = signal.aborted ? attempts.filter((result) => result.delivered) : attempts;
    const results = resultsOf(ports, events, settled, tally);
    // A lane goes on only while its client has a backlog: after a full round. Events that trickle in are
    // left to the relay, whose one claim takes them for every client at once; lanes of a few events
    // each would take the claims' lock once per round each.
    const full = events.length >= Math.min(lane.eventsPerRound, lane.clientConcurrency);
    if (signal.aborted || !full || Date.now() - started >= lane.forMs) {
      await recordAttempts(ports.pool, results);
      break;
    }
    ({ events, secrets } = await recordAndClaimNext(ports.pool, results, {
      clientId: payload.clientId,
      clientConcurrency: lane.clientConcurrency,
      leaseMs: lane.leaseMs,
      limit: lane.eventsPerRound,
    }));
  }
  if (signal.aborted) throw signal.reason;
  return tally;
}
