import type { Queryable } from './pool.ts';

export type DeliveryKind = 'forward' | 'bounce' | 'srs-return';
export type DeliveryState = 'queued' | 'deferred' | 'delivered' | 'bounced';

export type NewDelivery = { deliveryId: string; recipient: string | null; forwardsTo: string; kind: DeliveryKind; keepSender: boolean };

/** A pending delivery with the message it carries, as the delivery worker needs it. */
export type DeliveryToSend = {
  deliveryId: string;
  messageId: string;
  recipient: string | null;
  forwardsTo: string;
  kind: DeliveryKind;
  keepSender: boolean;
  state: DeliveryState;
  attempts: number;
  envelopeFrom: string;
  raw: Buffer;
  acceptedAt: Date;
};

/** Stores an accepted message and its deliveries; run inside the caller's transaction. Returns the ids really inserted. */
export async function insertMessageWithDeliveries(
  db: Queryable,
  message: { messageId: string; envelopeFrom: string; raw: Buffer },
  deliveries: NewDelivery[],
): Promise<string[]> {
  await db.query('INSERT INTO mail_messages (message_id, envelope_from, raw, size_bytes) VALUES ($1, $2, $3, $4)', [
    message.messageId,
    message.envelopeFrom,
    message.raw,
    message.raw.length,
  ]);
  const result = await db.query<{ delivery_id: string }>(
    `INSERT INTO mail_deliveries (delivery_id, message_id, recipient, forwards_to, kind, keep_sender)
     SELECT d.id, $1, d.recipient, d.forwards_to, d.kind, d.keep_sender
     FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::boolean[]) AS d(id, recipient, forwards_to, kind, keep_sender)
     ON CONFLICT (message_id, forwards_to) DO NOTHING
     RETURNING delivery_id`,
    [
      message.messageId,
      deliveries.map((delivery) => delivery.deliveryId),
      deliveries.map((delivery) => delivery.recipient),
      deliveries.map((delivery) => delivery.forwardsTo),
      deliveries.map((delivery) => delivery.kind),
      deliveries.map((delivery) => delivery.keepSender),
    ],
  );
  return result.rows.map((row) => row.delivery_id);
}

type DbDeliveryToSend = {
  delivery_id: string;
  message_id: string;
  recipient: string | null;
  forwards_to: string;
  kind: DeliveryKind;
  keep_sender: boolean;
  state: DeliveryState;
  attempts: number;
  envelope_from: string;
  raw: Buffer;
  accepted_at: Date;
};

export async function findDeliveryToSend(db: Queryable, deliveryId: string): Promise<DeliveryToSend | null> {
  const result = await db.query<DbDeliveryToSend>(
    `SELECT d.delivery_id, d.message_id, d.recipient, d.forwards_to, d.kind, d.keep_sender, d.state, d.attempts,
            m.envelope_from, m.raw, m.accepted_at
     FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.delivery_id = $1`,
    [deliveryId],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    deliveryId: row.delivery_id,
    messageId: row.message_id,
    recipient: row.recipient,
    forwardsTo: row.forwards_to,
    kind: row.kind,
    keepSender: row.keep_sender,
    state: row.state,
    attempts: row.attempts,
    envelopeFrom: row.envelope_from,
    raw: row.raw,
    acceptedAt: row.accepted_at,
  };
}

/** Final outcome; false when the delivery was already final (a re-run must not count twice). */
export async function finishDelivery(db: Queryable, deliveryId: string, state: 'delivered' | 'bounced', error: string | null): Promise<boolean> {
  const result = await db.query(
    `UPDATE mail_deliveries SET state = $2, last_error = COALESCE($3, last_error), attempts = attempts + 1, finished_at = now()
     WHERE delivery_id = $1 AND state IN ('queued', 'deferred')`,
    [deliveryId, state, error],
  );
  return result.rowCount === 1;
}

/** A temporary failure: records it and when to try again; returns the attempt count so far. */
export async function deferDelivery(db: Queryable, deliveryId: string, nextAttemptAt: Date, error: string): Promise<number | null> {
  const result = await db.query<{ attempts: number }>(
    `UPDATE mail_deliveries SET state = 'deferred', attempts = attempts + 1, next_attempt_at = $2, last_error = $3
     WHERE delivery_id = $1 AND state IN ('queued', 'deferred') RETURNING attempts`,
    [deliveryId, nextAttemptAt, error],
  );
  return result.rows[0]?.attempts ?? null;
}

/** Drops the raw message once no delivery of it is pending (its deliveries go with it). */
export async function deleteMessageIfFinished(db: Queryable, messageId: string): Promise<boolean> {
  const result = await db.query(
    `DELETE FROM mail_messages m WHERE m.message_id = $1
     AND NOT EXISTS (SELECT 1 FROM mail_deliveries d WHERE d.message_id = m.message_id AND d.state IN ('queued', 'deferred'))`,
    [messageId],
  );
  return result.rowCount === 1;
}

/** Pending deliveries whose next attempt is overdue by `graceMs`: their job was lost (crash between commit and enqueue). */
export async function listOverdueDeliveries(db: Queryable, graceMs: number, limit: number): Promise<Array<{ deliveryId: string; attempts: number }>> {
  const result = await db.query<{ delivery_id: string; attempts: number }>(
    `SELECT delivery_id, attempts FROM mail_deliveries
     WHERE state IN ('queued', 'deferred') AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY next_attempt_at LIMIT $2`,
    [graceMs, limit],
  );
  return result.rows.map((row) => ({ deliveryId: row.delivery_id, attempts: row.attempts }));
}

export async function countPendingDeliveries(db: Queryable): Promise<number> {
  const result = await db.query<{ count: string }>(`SELECT count(*) FROM mail_deliveries WHERE state IN ('queued', 'deferred')`);
  return Number(result.rows[0]?.count ?? 0);
}
