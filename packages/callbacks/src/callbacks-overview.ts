import { AppError, type CallbackClientView, type CallbackEventView, type CallbackOverview } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';

const iso = (value: Date | null) => (value ? value.toISOString() : null);
type Counts = { waiting: number; sending: number; delivered: number; failed: number };
const noCounts = (): Counts => ({ waiting: 0, sending: 0, delivered: 0, failed: 0 });
const countKey = { pending: 'waiting', sending: 'sending', delivered: 'delivered', failed: 'failed' } as const;

/** Operators: per client, what was delivered, failed or is waiting (the outbox keeps `CALLBACK_RETENTION_DAYS`). */
export async function callbackOverview(db: Queryable): Promise<CallbackOverview> {
  const [clients, counts, last] = await Promise.all([
    db.query<{ client_id: string; name: string; default_url: string | null }>(
      'SELECT c.client_id, k.name, c.default_url FROM callback_clients AS c JOIN clients AS k USING (client_id) ORDER BY k.name, c.client_id',
    ),
    db.query<{ client_id: string; state: keyof typeof countKey; count: string; oldest: Date | null }>(
      `SELECT client_id, state, count(*) AS count, min(created_at) FILTER (WHERE state IN ('pending', 'sending')) AS oldest
       FROM callback_outbox GROUP BY client_id, state`,
    ),
    db.query<{ client_id: string; last_delivered_at: Date | null; last_error: string | null }>(
      `SELECT c.client_id,
         (SELECT max(delivered_at) FROM callback_outbox WHERE client_id = c.client_id AND state = 'delivered') AS last_delivered_at,
         (SELECT last_error FROM callback_outbox WHERE client_id = c.client_id AND last_error IS NOT NULL AND state <> 'delivered' ORDER BY last_attempt_at DESC LIMIT 1) AS last_error
       FROM callback_clients AS c`,
    ),
  ]);
  const byClient = new Map<string, { counts: Counts; oldest: Date | null }>();
  for (const row of counts.rows) {
    const entry = byClient.get(row.client_id) ?? { counts: noCounts(), oldest: null };
    entry.counts[countKey[row.state]] += Number(row.count);
    if (row.oldest && (!entry.oldest || row.oldest < entry.oldest)) entry.oldest = row.oldest;
    byClient.set(row.client_id, entry);
  }
  const lastOf = new Map(last.rows.map((row) => [row.client_id, row]));
  return {
    clients: clients.rows.map((client) => ({
      clientId: client.client_id,
      name: client.name,
      defaultUrl: client.default_url,
      counts: byClient.get(client.client_id)?.counts ?? noCounts(),
      oldestWaitingAt: iso(byClient.get(client.client_id)?.oldest ?? null),
      lastDeliveredAt: iso(lastOf.get(client.client_id)?.last_delivered_at ?? null),
      lastError: lastOf.get(client.client_id)?.last_error ?? null,
    })),
  };
}

type EventRow = {
  webhook_id: string;
  event_type: CallbackEventView['type'];
  subject_id: string;
  url: string;
  state: CallbackEventView['state'];
  attempts: number;
  created_at: Date;
  next_attempt_at: Date;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
};

/** Operators: one client's settings (never its secret), its counts and its newest events, optionally of one state. */
export async function callbackClientView(
  db: Queryable,
  clientId: string,
  options: { state?: CallbackEventView['state'] | undefined; limit: number },
): Promise<CallbackClientView> {
  const [settings, counts, recent] = await Promise.all([
    db.query<{ default_url: string | null; secret_created_at: Date; previous_valid_until: Date | null }>(
      'SELECT default_url, secret_created_at, previous_valid_until FROM callback_clients WHERE client_id = $1',
      [clientId],
    ),
    db.query<{ state: keyof typeof countKey; count: string; oldest: Date | null }>(
      `SELECT state, count(*) AS count, min(created_at) FILTER (WHERE state IN ('pending', 'sending')) AS oldest FROM callback_outbox WHERE client_id = $1 GROUP BY state`,
      [clientId],
    ),
    db.query<EventRow>(
      `SELECT webhook_id, event_type, subject_id, url, state, attempts, created_at, next_attempt_at, last_attempt_at, last_status, last_error, delivered_at
       FROM callback_outbox WHERE client_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY event_id DESC LIMIT $3`,
      [clientId, options.state ?? null, options.limit],
    ),
  ]);
  const row = settings.rows[0];
  if (!row) {
    const known = await db.query('SELECT 1 FROM clients WHERE client_id = $1', [clientId]);
    if (known.rows.length === 0) throw new AppError('NotFound', `client ${clientId} not found`);
  }
  const tally = noCounts();
  let oldest: Date | null = null;
  for (const count of counts.rows) {
    tally[countKey[count.state]] += Number(count.count);
    if (count.oldest && (!oldest || count.oldest < oldest)) oldest = count.oldest;
  }
  return {
    clientId,
    defaultUrl: row?.default_url ?? null,
    hasSecret: row !== undefined,
    secretCreatedAt: iso(row?.secret_created_at ?? null),
    previousSecretValidUntil:
      row?.previous_valid_until && row.previous_valid_until > new Date() ? row.previous_valid_until.toISOString() : null,
    counts: tally,
    oldestWaitingAt: iso(oldest),
    recent: recent.rows.map((event) => ({
      webhookId: event.webhook_id,
      type: event.event_type,
      subjectId: event.subject_id,
      url: event.url,
      state: event.state,
      attempts: event.attempts,
      createdAt: event.created_at.toISOString(),
      nextAttemptAt: event.state === 'pending' ? event.next_attempt_at.toISOString() : null,
      lastAttemptAt: iso(event.last_attempt_at),
      lastStatus: event.last_status,
      lastError: event.last_error,
      deliveredAt: iso(event.delivered_at),
    })),
  };
}
