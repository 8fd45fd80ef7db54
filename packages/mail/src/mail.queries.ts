import { randomCounterShard } from './bindings.queries.ts';
import type { Queryable } from '@quarry/db';

export type DeliveryKind = 'forward' | 'bounce' | 'srs-return';
type DeliveryState = 'queued' | 'deferred' | 'delivered' | 'bounced';

type NewDelivery = { deliveryId: string; recipient: string | null; forwardsTo: string; kind: DeliveryKind; keepSender: boolean };

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
  /** The client asked for SMTPUTF8 at MAIL FROM (RFC 6531). */
  smtpUtf8: boolean;
  raw: Buffer;
  acceptedAt: Date;
};

export type AcceptedMessage = {
  messageId: string;
  envelopeFrom: string;
  smtpUtf8: boolean;
  raw: Buffer;
  /** Distinct `forwardsTo` within one message. */
  deliveries: NewDelivery[];
  /** The bound recipients whose "received" counter moves, distinct within one message. */
  countRecipients: string[];
};

/**
 * Stores accepted messages, their deliveries and the recipients' "received" counters in ONE
 * statement: one round trip and one commit for however many messages the SMTP sessions finished
 * meanwhile (group commit, see createMessageAcceptor). Counter increments are summed per recipient
 * first, because one statement may not upsert the same counter row twice.
 */
export async function insertAcceptedMessages(db: Queryable, messages: AcceptedMessage[]): Promise<void> {
  const deliveries = messages.flatMap((message) => message.deliveries.map((delivery) => ({ ...delivery, messageId: message.messageId })));
  const received = new Map<string, number>();
  for (const message of messages)
    for (const recipient of message.countRecipients) received.set(recipient, (received.get(recipient) ?? 0) + 1);
  await db.query({
    name: 'insert-accepted-messages',
    text: `WITH m AS (
       INSERT INTO mail_messages (message_id, envelope_from, smtputf8, raw, size_bytes)
       SELECT x.id, x.envelope_from, x.smtputf8, substring($3::bytea FROM x.start FOR x.size), x.size
       FROM unnest($1::uuid[], $2::text[], $15::boolean[], $13::integer[], $14::integer[]) AS x(id, envelope_from, smtputf8, start, size)
       RETURNING message_id
     ), d AS (
       INSERT INTO mail_deliveries (delivery_id, message_id, recipient, forwards_to, kind, keep_sender)
       SELECT x.id, m.message_id, x.recipient, x.forwards_to, x.kind, x.keep_sender
       FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::boolean[]) AS x(id, message_id, recipient, forwards_to, kind, keep_sender)
       JOIN m ON m.message_id = x.message_id
     )
     INSERT INTO mail_binding_counters (recipient, shard, received)
     SELECT x.recipient, $12::smallint, x.n FROM unnest($10::text[], $11::integer[]) AS x(recipient, n)
     ON CONFLICT (recipient, shard) DO UPDATE SET received = mail_binding_counters.received + EXCLUDED.received`,
    values: [
      messages.map((message) => message.messageId),
      messages.map((message) => message.envelopeFrom),
      // One binary parameter for all the raw messages, cut apart by offset in SQL: an array of
      // bytea would travel as hex text (twice the bytes) and be parsed character by character by
      // array_in (bench smtp).
      Buffer.concat(messages.map((message) => message.raw)),
      deliveries.map((delivery) => delivery.deliveryId),
      deliveries.map((delivery) => delivery.messageId),
      deliveries.map((delivery) => delivery.recipient),
      deliveries.map((delivery) => delivery.forwardsTo),
      deliveries.map((delivery) => delivery.kind),
      deliveries.map((delivery) => delivery.keepSender),
      [...received.keys()],
      [...received.values()],
      randomCounterShard(),
      rawStarts(messages),
      messages.map((message) => message.raw.length),
      messages.map((message) => message.smtpUtf8),
    ],
  });
}

/** Where each message's bytes start (1-based, as SQL's substring counts) in their concatenation. */
export function rawStarts(messages: ReadonlyArray<{ raw: Buffer }>): number[] {
  let next = 1;
  return messages.map((message) => {
    const start = next;
    next += message.raw.length;
    return start;
  });
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
  smtputf8: boolean;
  raw: Buffer;
  accepted_at: Date;
};

function toDeliveryToSend(row: DbDeliveryToSend): DeliveryToSend {
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
    smtpUtf8: row.smtputf8,
    raw: row.raw,
    acceptedAt: row.accepted_at,
  };
}

export type DeliveryClaim = { locked: boolean; delivery: DeliveryToSend | null };

/**
 * Takes the session advisory lock of each delivery and, for those it got, reads the delivery with
 * its message (the raw bytes only where the caller does not have them at hand): one round trip
 * for a group. `locked: false` means another session is sending it
 * right now. The caller must unlock on the same connection (`unlockDeliveries`). A session takes
 * its own advisory lock again without waiting, so one session must not claim one id twice.
 */
export async function lockDeliveriesToSend(
  db: Queryable,
  deliveryIds: string[],
  rawAtHand: Map<string, Buffer> = new Map(),
): Promise<Map<string, DeliveryClaim>> {
  const result = await db.query<Omit<DbDeliveryToSend, 'raw'> & { raw: Buffer | null; id: string; locked: boolean }>({
    name: 'lock-deliveries-to-send',
    text: `SELECT l.id, l.locked, d.* FROM (
       SELECT x.id, pg_try_advisory_lock(hashtextextended(x.id, 5)) AS locked FROM unnest($1::text[]) AS x(id)
     ) l
     LEFT JOIN LATERAL (
       SELECT d.delivery_id, d.message_id, d.recipient, d.forwards_to, d.kind, d.keep_sender, d.state, d.attempts,
              m.envelope_from, m.smtputf8, CASE WHEN l.id = ANY($2::text[]) THEN NULL ELSE m.raw END AS raw, m.accepted_at
       FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.delivery_id = l.id::uuid
     ) d ON l.locked`,
    values: [deliveryIds, [...rawAtHand.keys()]],
  });
  return new Map(
    result.rows.map((row) => {
      const raw = row.raw ?? rawAtHand.get(row.id);
      const delivery = row.locked && row.delivery_id && raw ? toDeliveryToSend({ ...row, raw }) : null;
      return [row.id, { locked: row.locked, delivery }];
    }),
  );
}

export async function unlockDeliveries(db: Queryable, deliveryIds: string[]): Promise<void> {
  await db.query({
    name: 'unlock-deliveries',
    text: 'SELECT pg_advisory_unlock(hashtextextended(x.id, 5)) FROM unnest($1::text[]) AS x(id)',
    values: [deliveryIds],
  });
}

/**
 * Records successful deliveries in ONE statement: each becomes final, the bindings' counters move,
 * and a message is deleted when no other delivery of it is pending. Returns the ids that changed;
 * one that was already final changes nothing. All parts of one statement read the same snapshot,
 * so the message check leaves out this group's own deliveries by id.
 */
export async function recordDelivered(
  db: Queryable,
  deliveries: Array<{ deliveryId: string; messageId: string; recipient: string | null }>,
): Promise<Set<string>> {
  const result = await db.query<{ delivery_id: string }>({
    name: 'record-delivered',
    text: `WITH f AS (
       UPDATE mail_deliveries SET state = 'delivered', attempts = attempts + 1, finished_at = now()
       WHERE delivery_id = ANY($1::uuid[]) AND state IN ('queued', 'deferred') RETURNING delivery_id, message_id, recipient
     ), c AS (
       INSERT INTO mail_binding_counters (recipient, shard, delivered, last_delivered_at)
       SELECT f.recipient, $2::smallint, count(*), now() FROM f WHERE f.recipient IS NOT NULL GROUP BY f.recipient
       ON CONFLICT (recipient, shard) DO UPDATE SET
         delivered = mail_binding_counters.delivered + EXCLUDED.delivered, last_delivered_at = EXCLUDED.last_delivered_at
     ), x AS (
       DELETE FROM mail_messages m WHERE m.message_id IN (SELECT message_id FROM f)
       AND NOT EXISTS (
         SELECT 1 FROM mail_deliveries o WHERE o.message_id = m.message_id AND o.delivery_id <> ALL($1::uuid[]) AND o.state IN ('queued', 'deferred'))
     )
     SELECT delivery_id FROM f`,
    values: [deliveries.map((delivery) => delivery.deliveryId), randomCounterShard()],
  });
  return new Set(result.rows.map((row) => String(row.delivery_id)));
}

/** Messages none of whose deliveries is pending (two last deliveries finishing at once each leave the message to the other). */
export async function deleteFinishedMessages(db: Queryable, olderThanMs: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM mail_messages m WHERE m.accepted_at < now() - make_interval(secs => $1::double precision / 1000)
     AND NOT EXISTS (SELECT 1 FROM mail_deliveries d WHERE d.message_id = m.message_id AND d.state IN ('queued', 'deferred'))`,
    [olderThanMs],
  );
  return result.rowCount ?? 0;
}

/** Final outcome; false when the delivery was already final (a re-run must not count twice). */
export async function finishDelivery(
  db: Queryable,
  deliveryId: string,
  state: 'delivered' | 'bounced',
  error: string | null,
): Promise<boolean> {
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
export async function listOverdueDeliveries(
  db: Queryable,
  graceMs: number,
  limit: number,
): Promise<Array<{ deliveryId: string; attempts: number }>> {
  const result = await db.query<{ delivery_id: string; attempts: number }>(
    `SELECT delivery_id, attempts FROM mail_deliveries
     WHERE state IN ('queued', 'deferred') AND next_attempt_at < now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY next_attempt_at LIMIT $2`,
    [graceMs, limit],
  );
  return result.rows.map((row) => ({ deliveryId: row.delivery_id, attempts: row.attempts }));
}
