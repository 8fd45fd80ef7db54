import type { Queryable } from '@quarry/db';
import { randomCounterShard } from './bindings.queries.ts';
import { rawStarts } from './mail.queries.ts';

/** A message read from a pool mailbox, ready to be stored if its key is new to the account. */
export type MailboxMessageRow = {
  /** What makes it the same message when read again (its Message-ID, else a digest). */
  key: string;
  messageId: string;
  deliveryId: string;
  envelopeFrom: string;
  smtpUtf8: boolean;
  raw: Buffer;
};

/**
 * What one fetch of one folder stores, and the checkpoint it moves the folder to. `messages` hold
 * one message per key: a copy in the same fetch is left out by the caller.
 */
export type MailboxBatchRow = {
  email: string;
  alias: string;
  folder: string;
  uidValidity: bigint;
  lastUid: number;
  messages: MailboxMessageRow[];
};

/** The accounts this watcher still held (the others stored nothing), and the deliveries created. */
export type MailboxStoreResult = { leased: Set<string>; deliveries: Set<string> };

/**
 * Stores fetches of several accounts (at most one per account) in ONE statement, for each account
 * only while `watcherId` still holds its lease:
 *
 * 1. `leased` locks the accounts' rows this watcher holds, in address order (two statements never
 *    wait on each other in a cycle); a row whose lease moved meanwhile is re-read after the other
 *    transaction's commit and left out, so a watcher that lost an account stores nothing of it;
 * 2. `seen` records the messages' keys; only the keys new to the account come back;
 * 3. `taken`, the messages of new keys whose alias has an active binding, are stored with their
 *    delivery to the binding's current destination, exactly as SMTP-accepted messages are
 *    (`insertAcceptedMessages`), counted on the binding and on the account;
 * 4. `progress` moves each held folder's checkpoint, forward only (or to a new UIDVALIDITY).
 *
 * All of it commits together (the caller's transaction): a crash before the commit leaves the
 * checkpoints behind the messages, which are read again; after it, step 2 finds their keys. One
 * statement for the fetches of every account that finished one meanwhile (group commit), where
 * seven statements per fetch spent the mail process's time in round trips.
 */
export async function storeMailboxBatches(db: Queryable, watcherId: string, batches: MailboxBatchRow[]): Promise<MailboxStoreResult> {
  const messages = batches.flatMap((batch, index) => batch.messages.map((message) => ({ ...message, batch: index + 1 })));
  const result = await db.query<{ kind: 'leased' | 'delivery'; value: string }>({
    name: 'store-mailbox-batches',
    text: `WITH batch AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[]) WITH ORDINALITY AS b(email, alias, folder, uidvalidity, last_uid, batch)
     ), leased AS MATERIALIZED (
       SELECT a.email FROM mail_outlook_accounts a
       WHERE a.email IN (SELECT email FROM batch) AND a.lease_owner = $1
       ORDER BY a.email FOR NO KEY UPDATE
     ), incoming AS MATERIALIZED (
       SELECT b.email, b.alias, m.* FROM unnest($7::bigint[], $8::text[], $9::uuid[], $10::uuid[], $11::text[], $12::boolean[], $13::integer[], $14::integer[])
         AS m(batch, key, message_id, delivery_id, envelope_from, smtputf8, start, size)
       JOIN batch b USING (batch) JOIN leased USING (email)
     ), seen AS (
       INSERT INTO mail_mailbox_seen (email, message_key) SELECT email, key FROM incoming
       ON CONFLICT DO NOTHING RETURNING email, message_key
     ), taken AS MATERIALIZED (
       SELECT i.*, bd.forwards_to, bd.keep_sender FROM incoming i
       JOIN seen s ON s.email = i.email AND s.message_key = i.key
       JOIN mail_bindings bd ON bd.recipient = i.alias AND bd.expires_at > now()
     ), stored AS (
       INSERT INTO mail_messages (message_id, envelope_from, smtputf8, raw, size_bytes)
       SELECT message_id, envelope_from, smtputf8, substring($15::bytea FROM start FOR size), size FROM taken
       RETURNING message_id
     ), deliveries AS (
       INSERT INTO mail_deliveries (delivery_id, message_id, recipient, forwards_to, kind, keep_sender)
       SELECT t.delivery_id, s.message_id, t.alias, t.forwards_to, 'forward', t.keep_sender FROM taken t JOIN stored s USING (message_id)
     ), received AS (
       INSERT INTO mail_binding_counters (recipient, shard, received)
       SELECT alias, $16::smallint, count(*) FROM taken GROUP BY alias
       ON CONFLICT (recipient, shard) DO UPDATE SET received = mail_binding_counters.received + EXCLUDED.received
     ), forwarded AS (
       UPDATE mail_outlook_accounts a SET forwarded = a.forwarded + t.n, last_message_at = now()
       FROM (SELECT email, count(*)::integer AS n FROM taken GROUP BY email) t WHERE a.email = t.email
     ), progress AS (
       INSERT INTO mail_mailbox_progress (email, folder, uidvalidity, last_uid)
       SELECT b.email, b.folder, b.uidvalidity, b.last_uid FROM batch b JOIN leased USING (email)
       ON CONFLICT (email, folder) DO UPDATE SET uidvalidity = EXCLUDED.uidvalidity, last_uid = EXCLUDED.last_uid, updated_at = now()
       WHERE mail_mailbox_progress.uidvalidity <> EXCLUDED.uidvalidity OR mail_mailbox_progress.last_uid < EXCLUDED.last_uid
     )
     SELECT 'leased' AS kind, email AS value FROM leased
     UNION ALL SELECT 'delivery', delivery_id::text FROM taken`,
    values: [
      watcherId,
      batches.map((batch) => batch.email),
      batches.map((batch) => batch.alias),
      batches.map((batch) => batch.folder),
      batches.map((batch) => batch.uidValidity.toString()),
      batches.map((batch) => batch.lastUid),
      messages.map((message) => message.batch),
      messages.map((message) => message.key),
      messages.map((message) => message.messageId),
      messages.map((message) => message.deliveryId),
      messages.map((message) => message.envelopeFrom),
      messages.map((message) => message.smtpUtf8),
      rawStarts(messages),
      messages.map((message) => message.raw.length),
      // One binary parameter for all the raw messages, cut apart by offset in SQL (as insertAcceptedMessages does).
      Buffer.concat(messages.map((message) => message.raw)),
      randomCounterShard(),
    ],
  });
  const leased = new Set<string>();
  const deliveries = new Set<string>();
  for (const row of result.rows) (row.kind === 'leased' ? leased : deliveries).add(row.value);
  return { leased, deliveries };
}
