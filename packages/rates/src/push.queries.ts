import type { PushSearchGrid } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';

export type SubscriptionRow = {
  subscriptionId: string;
  clientId: string;
  pushUrl: string;
  apiKeyCiphertext: Buffer;
  hotelIds: string[];
  searches: PushSearchGrid;
  stateVersion: number;
  deliveredVersion: number;
  failures: number;
  failingSince: Date | null;
  nextAttemptAt: Date | null;
  suspendedAt: Date | null;
  createdAt: Date;
};

type DbSubscriptionRow = {
  subscription_id: string;
  client_id: string;
  push_url: string;
  api_key_ciphertext: Buffer;
  hotel_ids: string[];
  searches: PushSearchGrid;
  state_version: string;
  delivered_version: string;
  failures: number;
  failing_since: Date | null;
  next_attempt_at: Date | null;
  suspended_at: Date | null;
  created_at: Date;
};

const columns = `subscription_id, client_id, push_url, api_key_ciphertext, hotel_ids, searches, state_version, delivered_version,
  failures, failing_since, next_attempt_at, suspended_at, created_at`;

function toRow(row: DbSubscriptionRow): SubscriptionRow {
  return {
    subscriptionId: row.subscription_id,
    clientId: row.client_id,
    pushUrl: row.push_url,
    apiKeyCiphertext: row.api_key_ciphertext,
    hotelIds: row.hotel_ids,
    searches: row.searches,
    stateVersion: Number(row.state_version),
    deliveredVersion: Number(row.delivered_version),
    failures: row.failures,
    failingSince: row.failing_since,
    nextAttemptAt: row.next_attempt_at,
    suspendedAt: row.suspended_at,
    createdAt: row.created_at,
  };
}

export async function insertSubscription(
  db: Queryable,
  row: {
    subscriptionId: string;
    clientId: string;
    pushUrl: string;
    apiKeyCiphertext: Buffer;
    hotelIds: string[];
    searches: PushSearchGrid;
  },
): Promise<SubscriptionRow> {
  const result = await db.query<DbSubscriptionRow>(
    `INSERT INTO push_subscriptions (subscription_id, client_id, push_url, api_key_ciphertext, hotel_ids, searches)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${columns}`,
    [row.subscriptionId, row.clientId, row.pushUrl, row.apiKeyCiphertext, row.hotelIds, JSON.stringify(row.searches)],
  );
  return toRow(result.rows[0] as DbSubscriptionRow);
}

/** Changing what a subscription covers is a new state: the version moves on. */
export async function updateSubscription(
  db: Queryable,
  clientId: string,
  subscriptionId: string,
  change: { pushUrl?: string; apiKeyCiphertext?: Buffer; hotelIds?: string[]; searches?: PushSearchGrid },
): Promise<SubscriptionRow | null> {
  const result = await db.query<DbSubscriptionRow>(
    `UPDATE push_subscriptions SET
       push_url = COALESCE($3, push_url), api_key_ciphertext = COALESCE($4, api_key_ciphertext),
       hotel_ids = COALESCE($5, hotel_ids), searches = COALESCE($6::jsonb, searches), state_version = state_version + 1
     WHERE client_id = $1 AND subscription_id = $2 AND deleted_at IS NULL RETURNING ${columns}`,
    [
      clientId,
      subscriptionId,
      change.pushUrl ?? null,
      change.apiKeyCiphertext ?? null,
      change.hotelIds ?? null,
      change.searches ? JSON.stringify(change.searches) : null,
    ],
  );
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

export async function deleteSubscription(db: Queryable, clientId: string, subscriptionId: string): Promise<boolean> {
  const result = await db.query(
    'UPDATE push_subscriptions SET deleted_at = now() WHERE client_id = $1 AND subscription_id = $2 AND deleted_at IS NULL',
    [clientId, subscriptionId],
  );
  return result.rowCount === 1;
}

export async function findSubscription(db: Queryable, clientId: string, subscriptionId: string): Promise<SubscriptionRow | null> {
  const result = await db.query<DbSubscriptionRow>(
    `SELECT ${columns} FROM push_subscriptions WHERE client_id = $1 AND subscription_id = $2 AND deleted_at IS NULL`,
    [clientId, subscriptionId],
  );
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/** Worker side: the job payload carries only the id; the row says whose it is. */
export async function findSubscriptionById(db: Queryable, subscriptionId: string): Promise<SubscriptionRow | null> {
  const result = await db.query<DbSubscriptionRow>(
    `SELECT ${columns} FROM push_subscriptions WHERE subscription_id = $1 AND deleted_at IS NULL`,
    [subscriptionId],
  );
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

export async function listSubscriptions(db: Queryable, clientId: string): Promise<SubscriptionRow[]> {
  const result = await db.query<DbSubscriptionRow>(
    `SELECT ${columns} FROM push_subscriptions WHERE client_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC`,
    [clientId],
  );
  return result.rows.map(toRow);
}

/**
 * A stored result changed: every live subscription whose hotels and search grid hold it (and whose
 * client may see the hotel) has a new state. Returns their ids, to enqueue a push for each.
 */
export async function bumpSubscriptionsOfHotel(
  db: Queryable,
  search: { hotelId: string; checkIn: string; nights: number; guests: number },
  today: string,
): Promise<Array<{ subscriptionId: string; version: number }>> {
  // Only subscriptions whose grid holds this search: a change elsewhere is not a new state for them.
  const result = await db.query<{ subscription_id: string; state_version: string }>(
    `UPDATE push_subscriptions s SET state_version = state_version + 1
     WHERE s.deleted_at IS NULL AND s.hotel_ids @> ARRAY[$1]::text[]
       AND (s.searches -> 'nights') @> to_jsonb($3::int) AND (s.searches -> 'guests') @> to_jsonb($4::int)
       AND $2::date >= $5::date AND $2::date < $5::date + (s.searches ->> 'daysAhead')::int
       AND EXISTS (SELECT 1 FROM hotel_grants g WHERE g.client_id = s.client_id AND g.hotel_id = $1)
     RETURNING s.subscription_id, s.state_version`,
    [search.hotelId, search.checkIn, search.nights, search.guests, today],
  );
  return result.rows.map((row) => ({ subscriptionId: row.subscription_id, version: Number(row.state_version) }));
}

/** Grants changed for a client: all its subscriptions may now show more or fewer hotels. */
export async function bumpSubscriptionsOfClient(
  db: Queryable,
  clientId: string,
): Promise<Array<{ subscriptionId: string; version: number }>> {
  const result = await db.query<{ subscription_id: string; state_version: string }>(
    `UPDATE push_subscriptions SET state_version = state_version + 1 WHERE client_id = $1 AND deleted_at IS NULL RETURNING subscription_id, state_version`,
    [clientId],
  );
  return result.rows.map((row) => ({ subscriptionId: row.subscription_id, version: Number(row.state_version) }));
}

/**
 * Takes the subscription's single in-flight slot. Fails (null) when another push holds an unexpired
 * lease, when it is suspended, or when a retry is pending in backoff.
 */
export async function acquirePushLease(
  db: Queryable,
  subscriptionId: string,
  token: string,
  leaseMs: number,
  ignoreBackoff: boolean,
): Promise<SubscriptionRow | null> {
  const result = await db.query<DbSubscriptionRow>(
    `UPDATE push_subscriptions SET lease_token = $2, lease_until = now() + make_interval(secs => $3::double precision / 1000)
     WHERE subscription_id = $1 AND deleted_at IS NULL AND suspended_at IS NULL
       AND (lease_until IS NULL OR lease_until < now())
       AND ($4::boolean OR next_attempt_at IS NULL OR next_attempt_at <= now())
     RETURNING ${columns}`,
    [subscriptionId, token, leaseMs, ignoreBackoff],
  );
  return result.rows[0] ? toRow(result.rows[0]) : null;
}

/**
 * Success, in one round trip: logs the delivery, records the version sent, clears the failure
 * streak and frees the slot. Returns the current versions (null when the lease was lost).
 */
export async function completePushSuccess(
  db: Queryable,
  subscriptionId: string,
  token: string,
  delivery: Omit<DeliveryRow, 'deliveryId' | 'outcome' | 'error'>,
): Promise<{ stateVersion: number; deliveredVersion: number } | null> {
  const result = await db.query<{ state_version: string; delivered_version: string }>(
    `WITH logged AS (
       INSERT INTO push_deliveries (subscription_id, version, started_at, status, bytes, duration_ms, error, outcome)
       VALUES ($1, $3, $4, $5, $6, $7, NULL, 'delivered')
     )
     UPDATE push_subscriptions SET delivered_version = GREATEST(delivered_version, $3), failures = 0, failing_since = NULL,
       next_attempt_at = NULL, lease_token = NULL, lease_until = NULL
     WHERE subscription_id = $1 AND lease_token = $2 RETURNING state_version, delivered_version`,
    [subscriptionId, token, delivery.version, delivery.startedAt, delivery.status, delivery.bytes, delivery.durationMs],
  );
  const row = result.rows[0];
  return row ? { stateVersion: Number(row.state_version), deliveredVersion: Number(row.delivered_version) } : null;
}

/** Failure: schedules the next attempt, or suspends once the streak has lasted `suspendAfterMs`. */
export async function completePushFailure(
  db: Queryable,
  subscriptionId: string,
  token: string,
  retryInMs: number,
  suspendAfterMs: number,
): Promise<{ failures: number; suspended: boolean; nextAttemptAt: Date | null } | null> {
  const result = await db.query<{ failures: number; suspended_at: Date | null; next_attempt_at: Date | null }>(
    `UPDATE push_subscriptions SET failures = failures + 1, failing_since = COALESCE(failing_since, now()),
       suspended_at = CASE WHEN COALESCE(failing_since, now()) <= now() - make_interval(secs => $4::double precision / 1000) THEN now() END,
       next_attempt_at = CASE WHEN COALESCE(failing_since, now()) <= now() - make_interval(secs => $4::double precision / 1000) THEN NULL
                              ELSE now() + make_interval(secs => $3::double precision / 1000) END,
       lease_token = NULL, lease_until = NULL
     WHERE subscription_id = $1 AND lease_token = $2 RETURNING failures, suspended_at, next_attempt_at`,
    [subscriptionId, token, retryInMs, suspendAfterMs],
  );
  const row = result.rows[0];
  return row ? { failures: row.failures, suspended: row.suspended_at !== null, nextAttemptAt: row.next_attempt_at } : null;
}

/** Pushes the lease further while its push runs; false when it is no longer this token's. */
export async function renewPushLease(db: Queryable, subscriptionId: string, token: string, leaseMs: number): Promise<boolean> {
  const result = await db.query(
    `UPDATE push_subscriptions SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
     WHERE subscription_id = $1 AND lease_token = $2`,
    [subscriptionId, token, leaseMs],
  );
  return result.rowCount === 1;
}

/**
 * When another push holds the lease of a live subscription with state still to deliver: how long
 * until that lease runs out (null when it is not held, or nothing is left to deliver).
 */
export async function heldPushLease(db: Queryable, subscriptionId: string): Promise<{ leaseUntil: Date; remainingMs: number } | null> {
  const result = await db.query<{ lease_until: Date; remaining_ms: number }>(
    `SELECT lease_until, GREATEST(0, EXTRACT(EPOCH FROM lease_until - now()) * 1000)::float8 AS remaining_ms FROM push_subscriptions
     WHERE subscription_id = $1 AND deleted_at IS NULL AND suspended_at IS NULL AND lease_until >= now() AND state_version > delivered_version`,
    [subscriptionId],
  );
  const row = result.rows[0];
  return row ? { leaseUntil: row.lease_until, remainingMs: Math.ceil(row.remaining_ms) } : null;
}

export async function releasePushLease(db: Queryable, subscriptionId: string, token: string): Promise<void> {
  await db.query('UPDATE push_subscriptions SET lease_token = NULL, lease_until = NULL WHERE subscription_id = $1 AND lease_token = $2', [
    subscriptionId,
    token,
  ]);
}

/** Operator action: lifts a suspension and makes the subscription due now. */
export async function resumeSubscription(db: Queryable, subscriptionId: string): Promise<boolean> {
  const result = await db.query(
    `UPDATE push_subscriptions SET suspended_at = NULL, failing_since = NULL, failures = 0, next_attempt_at = NULL, state_version = state_version + 1
     WHERE subscription_id = $1 AND deleted_at IS NULL`,
    [subscriptionId],
  );
  return result.rowCount === 1;
}

export type DeliveryRow = {
  deliveryId: number;
  version: number;
  startedAt: Date;
  status: number | null;
  bytes: number;
  durationMs: number;
  error: string | null;
  outcome: 'delivered' | 'failed' | 'suspended';
};

export async function insertDelivery(db: Queryable, subscriptionId: string, delivery: Omit<DeliveryRow, 'deliveryId'>): Promise<void> {
  await db.query(
    `INSERT INTO push_deliveries (subscription_id, version, started_at, status, bytes, duration_ms, error, outcome)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      subscriptionId,
      delivery.version,
      delivery.startedAt,
      delivery.status,
      delivery.bytes,
      delivery.durationMs,
      delivery.error,
      delivery.outcome,
    ],
  );
}

export async function listDeliveries(db: Queryable, subscriptionId: string, limit: number): Promise<DeliveryRow[]> {
  const result = await db.query<{
    delivery_id: string;
    version: string;
    started_at: Date;
    status: number | null;
    bytes: string;
    duration_ms: number;
    error: string | null;
    outcome: DeliveryRow['outcome'];
  }>(
    `SELECT delivery_id, version, started_at, status, bytes, duration_ms, error, outcome FROM push_deliveries
     WHERE subscription_id = $1 ORDER BY delivery_id DESC LIMIT $2`,
    [subscriptionId, limit],
  );
  return result.rows.map((row) => ({
    deliveryId: Number(row.delivery_id),
    version: Number(row.version),
    startedAt: row.started_at,
    status: row.status,
    bytes: Number(row.bytes),
    durationMs: row.duration_ms,
    error: row.error,
    outcome: row.outcome,
  }));
}

/** Every client's subscriptions with the outcome of their latest push (operators' list). */
export async function listSubscriptionsWithLastDelivery(
  db: Queryable,
  limit: number,
): Promise<Array<{ subscription: SubscriptionRow; lastDelivery: Omit<DeliveryRow, 'deliveryId' | 'version' | 'bytes'> | null }>> {
  const result = await db.query<
    DbSubscriptionRow & {
      last_started_at: Date | null;
      last_status: number | null;
      last_outcome: DeliveryRow['outcome'] | null;
      last_error: string | null;
      last_duration_ms: number | null;
    }
  >(
    `SELECT ${columns
      .split(',')
      .map((column) => `s.${column.trim()}`)
      .join(', ')},
       d.started_at AS last_started_at, d.status AS last_status, d.outcome AS last_outcome, d.error AS last_error, d.duration_ms AS last_duration_ms
     FROM push_subscriptions s
     LEFT JOIN LATERAL (SELECT started_at, status, outcome, error, duration_ms FROM push_deliveries
                        WHERE subscription_id = s.subscription_id ORDER BY delivery_id DESC LIMIT 1) d ON true
     ORDER BY s.created_at DESC LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({
    subscription: toRow(row),
    lastDelivery: row.last_started_at
      ? {
          startedAt: row.last_started_at,
          status: row.last_status,
          outcome: row.last_outcome ?? 'failed',
          error: row.last_error,
          durationMs: row.last_duration_ms ?? 0,
        }
      : null,
  }));
}

/** Subscriptions with undelivered state and nothing in flight or pending: the scheduler's safety net for lost jobs. */
export async function findUndeliveredSubscriptions(
  db: Queryable,
  limit: number,
): Promise<Array<{ subscriptionId: string; version: number }>> {
  const result = await db.query<{ subscription_id: string; state_version: string }>(
    `SELECT subscription_id, state_version FROM push_subscriptions
     WHERE deleted_at IS NULL AND suspended_at IS NULL AND state_version > delivered_version
       AND (lease_until IS NULL OR lease_until < now()) AND (next_attempt_at IS NULL OR next_attempt_at <= now() - interval '1 minute')
     LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ subscriptionId: row.subscription_id, version: Number(row.state_version) }));
}
