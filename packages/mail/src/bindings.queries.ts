import type { Queryable } from '@quarry/db';

export type BindingRow = {
  recipient: string;
  clientId: string;
  forwardsTo: string;
  keepSender: boolean;
  expiresAt: Date;
  state: 'active' | 'expired';
  createdAt: Date;
  receivedCount: number;
  deliveredCount: number;
  bouncedCount: number;
  lastDeliveredAt: Date | null;
};

type DbBindingRow = {
  recipient: string;
  client_id: string;
  forwards_to: string;
  keep_sender: boolean;
  expires_at: Date;
  state: BindingRow['state'];
  created_at: Date;
  received_count: string;
  delivered_count: string;
  bounced_count: string;
  last_delivered_at: Date | null;
};

const bindingColumns = 'recipient, client_id, forwards_to, keep_sender, expires_at, state, created_at';

/** Reads bindings from `source` (a table or a CTE of changed rows) with their counters summed over the shards. */
const withCounters = (source: string) =>
  `SELECT b.recipient, b.client_id, b.forwards_to, b.keep_sender, b.expires_at, b.state, b.created_at,
          COALESCE(c.received, 0) AS received_count, COALESCE(c.delivered, 0) AS delivered_count,
          COALESCE(c.bounced, 0) AS bounced_count, c.last_delivered_at
   FROM ${source} b
   LEFT JOIN LATERAL (
     SELECT sum(received) AS received, sum(delivered) AS delivered, sum(bounced) AS bounced, max(last_delivered_at) AS last_delivered_at
     FROM mail_binding_counters WHERE recipient = b.recipient
   ) c ON true`;

const COUNTER_SHARDS = 16;
/** Counter increments spread over shards so concurrent messages for one binding do not queue on one row. */
export const randomCounterShard = (): number => Math.floor(Math.random() * COUNTER_SHARDS);

function toBindingRow(row: DbBindingRow): BindingRow {
  return {
    recipient: row.recipient,
    clientId: row.client_id,
    forwardsTo: row.forwards_to,
    keepSender: row.keep_sender,
    expiresAt: row.expires_at,
    state: row.state,
    createdAt: row.created_at,
    receivedCount: Number(row.received_count),
    deliveredCount: Number(row.delivered_count),
    bouncedCount: Number(row.bounced_count),
    lastDeliveredAt: row.last_delivered_at,
  };
}

const first = (rows: DbBindingRow[]): BindingRow | null => (rows[0] ? toBindingRow(rows[0]) : null);

/**
 * Creates a binding, or replaces one that has expired (whoever owned it). Returns null when the
 * recipient has an active binding: recipients are unique across the deployment. `now` is the
 * caller's clock so that "expired" means the same thing here and in the use case.
 */
export async function insertOrReplaceExpiredBinding(
  db: Queryable,
  binding: { recipient: string; clientId: string; forwardsTo: string; keepSender: boolean; expiresAt: Date; now: Date },
): Promise<BindingRow | null> {
  // A replaced binding starts with fresh counters: they belonged to the previous owner.
  const result = await db.query<DbBindingRow>(
    `WITH b AS (
       INSERT INTO mail_bindings (recipient, client_id, forwards_to, keep_sender, expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (recipient) DO UPDATE SET
         client_id = EXCLUDED.client_id, forwards_to = EXCLUDED.forwards_to, keep_sender = EXCLUDED.keep_sender,
         expires_at = EXCLUDED.expires_at, state = 'active', created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at
       WHERE mail_bindings.expires_at <= $6
       RETURNING ${bindingColumns}
     ), cleared AS (DELETE FROM mail_binding_counters WHERE recipient IN (SELECT recipient FROM b))
     SELECT b.*, 0 AS received_count, 0 AS delivered_count, 0 AS bounced_count, NULL::timestamptz AS last_delivered_at FROM b`,
    [binding.recipient, binding.clientId, binding.forwardsTo, binding.keepSender, binding.expiresAt, binding.now],
  );
  return first(result.rows);
}

/** Tenant-scoped read: another client's binding is indistinguishable from a missing one. */
export async function findClientBinding(db: Queryable, clientId: string, recipient: string): Promise<BindingRow | null> {
  const result = await db.query<DbBindingRow>(`${withCounters('mail_bindings')} WHERE b.client_id = $1 AND b.recipient = $2`, [
    clientId,
    recipient,
  ]);
  return first(result.rows);
}

/** What the SMTP server asks at RCPT time (hot path, no counters): the binding only if it applies right now. */
export async function findActiveBinding(db: Queryable, recipient: string): Promise<{ forwardsTo: string; keepSender: boolean } | null> {
  const result = await db.query<{ forwards_to: string; keep_sender: boolean }>({
    name: 'find-active-binding',
    text: 'SELECT forwards_to, keep_sender FROM mail_bindings WHERE recipient = $1 AND expires_at > now()',
    values: [recipient],
  });
  const row = result.rows[0];
  return row ? { forwardsTo: row.forwards_to, keepSender: row.keep_sender } : null;
}

export async function updateClientBinding(
  db: Queryable,
  clientId: string,
  recipient: string,
  change: { forwardsTo: string; keepSender: boolean | undefined },
): Promise<BindingRow | null> {
  const result = await db.query<DbBindingRow>(
    `WITH b AS (
       UPDATE mail_bindings SET forwards_to = $3, keep_sender = COALESCE($4, keep_sender), updated_at = now()
       WHERE client_id = $1 AND recipient = $2 RETURNING ${bindingColumns}
     ) ${withCounters('b')}`,
    [clientId, recipient, change.forwardsTo, change.keepSender ?? null],
  );
  return first(result.rows);
}

/** Moves a binding's expiry to a future instant (an extension never expires one); null when it is not the client's or `expiresAt` is not in the future. */
export async function updateClientBindingExpiry(
  db: Queryable,
  clientId: string,
  recipient: string,
  expiresAt: Date,
): Promise<BindingRow | null> {
  const result = await db.query<DbBindingRow>(
    `WITH b AS (
       UPDATE mail_bindings SET expires_at = $3, state = 'active', updated_at = now()
       WHERE client_id = $1 AND recipient = $2 AND $3::timestamptz > now() RETURNING ${bindingColumns}
     ) ${withCounters('b')}`,
    [clientId, recipient, expiresAt],
  );
  return first(result.rows);
}

export async function deleteClientBinding(db: Queryable, clientId: string, recipient: string): Promise<BindingRow | null> {
  const result = await db.query<DbBindingRow>(
    `WITH b AS (DELETE FROM mail_bindings WHERE client_id = $1 AND recipient = $2 RETURNING ${bindingColumns}),
     cleared AS (DELETE FROM mail_binding_counters WHERE recipient IN (SELECT recipient FROM b))
     ${withCounters('b')}`,
    [clientId, recipient],
  );
  return first(result.rows);
}

/** Marks bindings past their expiry; returns how many changed. */
export async function markExpiredBindings(db: Queryable): Promise<number> {
  const result = await db.query(
    `UPDATE mail_bindings SET state = 'expired', updated_at = now() WHERE state = 'active' AND expires_at <= now()`,
  );
  return result.rowCount ?? 0;
}

export async function countBindingOutcome(db: Queryable, recipient: string, outcome: 'delivered' | 'bounced'): Promise<void> {
  await db.query(
    outcome === 'delivered'
      ? `INSERT INTO mail_binding_counters (recipient, shard, delivered, last_delivered_at) VALUES ($1, $2, 1, now())
         ON CONFLICT (recipient, shard) DO UPDATE SET delivered = mail_binding_counters.delivered + 1, last_delivered_at = now()`
      : `INSERT INTO mail_binding_counters (recipient, shard, bounced) VALUES ($1, $2, 1)
         ON CONFLICT (recipient, shard) DO UPDATE SET bounced = mail_binding_counters.bounced + 1`,
    [recipient, randomCounterShard()],
  );
}

/** Counters of bindings that no longer exist (a delivery finishing after its binding was deleted). */
export async function deleteOrphanCounters(db: Queryable): Promise<number> {
  const result = await db.query(
    'DELETE FROM mail_binding_counters c WHERE NOT EXISTS (SELECT 1 FROM mail_bindings b WHERE b.recipient = c.recipient)',
  );
  return result.rowCount ?? 0;
}
