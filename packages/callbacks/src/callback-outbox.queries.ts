import type { CallbackEventData, CallbackEventType } from '@quarry/contracts';
import { withTransaction, type Pool, type Queryable } from '@quarry/db';

/** One event owed to a client: what `oweCallback` writes in the outcome's own transaction. */
export type OwedCallback<T extends CallbackEventType = CallbackEventType> = {
  clientId: string;
  /** The request's own URL; null: the client's default URL, and no event at all when it has none. */
  url: string | null;
  type: T;
  /** What the event is about (a job post's submission, a batch, an application): the admin views show it. */
  subjectId: string;
  data: CallbackEventData[T];
  /** When the outcome was recorded (the body's `timestamp`). */
  at: Date;
};

/**
 * Records that an event is owed, on the connection (the transaction) of the outcome it announces,
 * so the outcome never commits without it and a rollback drops both. Nothing is written when
 * neither the request nor the client names a URL, or the client has no secret to sign with (no
 * callbackUrl was ever registered for it). Returns whether an event was recorded. Postgres wakes
 * the relay at the commit (the table's trigger); a second `batch.finished` of one batch is dropped.
 */
export async function oweCallback<T extends CallbackEventType>(db: Queryable, owed: OwedCallback<T>): Promise<boolean> {
  const body = JSON.stringify({ type: owed.type, timestamp: owed.at.toISOString(), data: owed.data });
  const result = await db.query(
    `INSERT INTO callback_outbox (client_id, event_type, subject_id, url, body)
     SELECT c.client_id, $2, $3, coalesce($4::text, c.default_url), $5 FROM callback_clients AS c
     WHERE c.client_id = $1 AND coalesce($4::text, c.default_url) IS NOT NULL
     ON CONFLICT DO NOTHING`,
    [owed.clientId, owed.type, owed.subjectId, owed.url, body],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Whether an event would be sent for a request of this client that names `url` (or none): the client's default, or the URL. */
export async function callbackTarget(db: Queryable, clientId: string, url: string | null): Promise<string | null> {
  if (url) return url;
  const result = await db.query<{ default_url: string | null }>('SELECT default_url FROM callback_clients WHERE client_id = $1', [
    clientId,
  ]);
  return result.rows[0]?.default_url ?? null;
}

export type DispatchedCallback = { eventId: string; clientId: string; seq: number };

/**
 * One advisory lock for every relay and delivery lane of the deployment: claims are made one at a
 * time, so a client's count of events in flight, read by a claim, is never stale.
 */
export const callbackClaimLock = 5_301_053;

/**
 * The relay's claim: for every client, the events due (pending and past their next attempt, or
 * sending under a lease that lapsed: a lost job) up to the room the client has under its cap of
 * events in flight, oldest first. Each claimed event becomes `sending` under a lease and a new
 * dispatch number: a job of an older dispatch finds its number gone and sends nothing.
 */
export async function claimDueCallbacks(
  db: Queryable,
  options: { clientConcurrency: number; leaseMs: number },
): Promise<DispatchedCallback[]> {
  const result = await db.query<{ event_id: string; client_id: string; dispatch_seq: number }>(
    `WITH lanes AS (
       SELECT c.client_id, $1::int - (
         SELECT count(*) FROM callback_outbox AS s WHERE s.client_id = c.client_id AND s.state = 'sending' AND s.lease_until > now()
       )::int AS room
       FROM callback_clients AS c
     ), picked AS (
       SELECT due.event_id FROM lanes CROSS JOIN LATERAL (
         SELECT event_id FROM (
           (SELECT event_id, 0 AS lapsed, lease_until AS since FROM callback_outbox
            WHERE client_id = lanes.client_id AND state = 'sending' AND lease_until <= now() ORDER BY lease_until LIMIT greatest(lanes.room, 0))
           UNION ALL
           (SELECT event_id, 1, next_attempt_at FROM callback_outbox
            WHERE client_id = lanes.client_id AND state = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT greatest(lanes.room, 0))
         ) AS candidates ORDER BY lapsed, since LIMIT greatest(lanes.room, 0)
       ) AS due
       WHERE lanes.room > 0
     )
     UPDATE callback_outbox AS o SET state = 'sending', dispatch_seq = o.dispatch_seq + 1,
       lease_until = now() + make_interval(secs => $2::double precision / 1000)
     FROM picked WHERE o.event_id = picked.event_id
     RETURNING o.event_id, o.client_id, o.dispatch_seq`,
    [options.clientConcurrency, options.leaseMs],
  );
  return result.rows.map((row) => ({ eventId: String(row.event_id), clientId: row.client_id, seq: row.dispatch_seq }));
}

export type CallbackToSend = {
  eventId: string;
  seq: number;
  webhookId: string;
  url: string;
  body: string;
  attempts: number;
  createdAt: Date;
};

export type ClientSecrets = { current: Buffer; previous: Buffer | null; previousValidUntil: Date | null };

type SendableRow = {
  event_id: string;
  dispatch_seq: number;
  webhook_id: string;
  url: string;
  body: string;
  attempts: number;
  created_at: Date;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  previous_valid_until: Date | null;
};

/** What a job sends: its events and the client's secrets, read with them in one statement. */
type CallbacksToSend = { events: CallbackToSend[]; secrets: ClientSecrets | null };

function sendableOf(rows: SendableRow[]): CallbacksToSend {
  const first = rows[0];
  return {
    events: rows.map((event) => ({
      eventId: String(event.event_id),
      seq: event.dispatch_seq,
      webhookId: event.webhook_id,
      url: event.url,
      body: event.body,
      attempts: event.attempts,
      createdAt: event.created_at,
    })),
    secrets: first
      ? { current: first.secret_sealed, previous: first.previous_secret_sealed, previousValidUntil: first.previous_valid_until }
      : null,
  };
}

/** The events of one job still in its dispatch (sending, same number), and the client's secrets. */
export async function findCallbacksToSend(
  db: Queryable,
  clientId: string,
  events: Array<{ eventId: string; seq: number }>,
): Promise<CallbacksToSend> {
  const found = await db.query<SendableRow>(
    `SELECT o.event_id, o.dispatch_seq, o.webhook_id, o.url, o.body, o.attempts, o.created_at,
       c.secret_sealed, c.previous_secret_sealed, c.previous_valid_until
     FROM unnest($2::bigint[], $3::int[]) AS job (event_id, seq)
     JOIN callback_outbox AS o ON o.event_id = job.event_id AND o.dispatch_seq = job.seq
     JOIN callback_clients AS c ON c.client_id = o.client_id
     WHERE o.client_id = $1 AND o.state = 'sending'`,
    [clientId, events.map((event) => event.eventId), events.map((event) => event.seq)],
  );
  return sendableOf(found.rows);
}

/** A delivery lane's next claim: its client, the client's cap, the lease, and at most `limit` events. */
type LaneClaim = { clientId: string; clientConcurrency: number; leaseMs: number; limit: number };

/**
 * A delivery lane (ADR 0053): records a job's answers and, in the same transaction under the claims'
 * lock, claims the next due events of the same client up to its room under the cap (and `limit`),
 * returning what is needed to send them. The job goes on sending them itself, without a claim by
 * the relay, a job in the queue and a read of the events of its own: the events it claims are in a
 * new dispatch and under a lease, as the relay's, so a job that dies leaves them to the relay once
 * the lease lapses. Committed without waiting for the WAL's flush, as the relay's claims and the
 * answers: one lost with a crash of Postgres only sends its events again (same webhook-id).
 */
export async function recordAndClaimNext(db: Pool, results: AttemptResult[], lane: LaneClaim): Promise<CallbacksToSend> {
  return withTransaction(db, async (client) => {
    await client.query(`SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock($1)`, [callbackClaimLock]);
    if (results.length > 0) await recordAttemptsOn(client, results);
    const claimed = await client.query<SendableRow>(
      `WITH lane AS (
         SELECT greatest(0, least($3::int, $2::int - (
           SELECT count(*) FROM callback_outbox WHERE client_id = $1 AND state = 'sending' AND lease_until > now()
         )::int)) AS room
       ), picked AS (
         SELECT event_id FROM (
           (SELECT event_id, 0 AS lapsed, lease_until AS since FROM callback_outbox
            WHERE client_id = $1 AND state = 'sending' AND lease_until <= now() ORDER BY lease_until LIMIT (SELECT room FROM lane))
           UNION ALL
           (SELECT event_id, 1, next_attempt_at FROM callback_outbox
            WHERE client_id = $1 AND state = 'pending' AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT (SELECT room FROM lane))
         ) AS candidates ORDER BY lapsed, since LIMIT (SELECT room FROM lane)
       )
       UPDATE callback_outbox AS o SET state = 'sending', dispatch_seq = o.dispatch_seq + 1,
         lease_until = now() + make_interval(secs => $4::double precision / 1000)
       FROM picked, callback_clients AS c
       WHERE o.event_id = picked.event_id AND c.client_id = o.client_id
       RETURNING o.event_id, o.dispatch_seq, o.webhook_id, o.url, o.body, o.attempts, o.created_at,
         c.secret_sealed, c.previous_secret_sealed, c.previous_valid_until`,
      [lane.clientId, lane.clientConcurrency, lane.limit, lane.leaseMs],
    );
    return sendableOf(claimed.rows);
  });
}

/** What one attempt came to: delivered (a 2xx), or the next attempt (`retryAt`) or giving up (`retryAt` null). */
export type AttemptResult = {
  eventId: string;
  seq: number;
  delivered: boolean;
  status: number | null;
  error: string | null;
  retryAt: Date | null;
  at: Date;
};

/**
 * Records a job's attempts in one statement, each only while its event is still in that dispatch.
 * Committed without waiting for the WAL's flush: an answer lost with a crash of Postgres only sends
 * its event again (same webhook-id), never loses it.
 */
export async function recordAttempts(db: Pool, results: AttemptResult[]): Promise<number> {
  if (results.length === 0) return 0;
  return withTransaction(db, async (client) => {
    await client.query('SET LOCAL synchronous_commit = off');
    return recordAttemptsOn(client, results);
  });
}

async function recordAttemptsOn(db: Queryable, results: AttemptResult[]): Promise<number> {
  const result = await db.query(
    `UPDATE callback_outbox AS o SET
       attempts = o.attempts + 1, last_attempt_at = r.at, last_status = r.status, last_error = r.error, lease_until = NULL,
       state = CASE WHEN r.delivered THEN 'delivered' WHEN r.retry_at IS NULL THEN 'failed' ELSE 'pending' END,
       delivered_at = CASE WHEN r.delivered THEN r.at END,
       next_attempt_at = coalesce(r.retry_at, o.next_attempt_at)
     FROM unnest($1::bigint[], $2::int[], $3::bool[], $4::int[], $5::text[], $6::timestamptz[], $7::timestamptz[])
       AS r (event_id, seq, delivered, status, error, retry_at, at)
     WHERE o.event_id = r.event_id AND o.dispatch_seq = r.seq AND o.state = 'sending'`,
    [
      results.map((item) => item.eventId),
      results.map((item) => item.seq),
      results.map((item) => item.delivered),
      results.map((item) => item.status),
      results.map((item) => item.error),
      results.map((item) => item.retryAt),
      results.map((item) => item.at),
    ],
  );
  return result.rowCount ?? 0;
}

/** Deletes up to `limit` delivered or given-up events created before `before` (the outbox keeps a window for operators). */
export async function purgeSettledCallbacks(db: Queryable, before: Date, limit: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM callback_outbox WHERE event_id IN (
       SELECT event_id FROM callback_outbox WHERE state IN ('delivered', 'failed') AND created_at < $1 ORDER BY created_at LIMIT $2)`,
    [before, limit],
  );
  return result.rowCount ?? 0;
}
