import { createHash, randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '@quarry/db';
import { deliveryJobId, type EnqueueDeliveries } from './deliver-mail.ts';
import { groupCommit } from './group-commit.ts';
import { storeMailboxBatches, type MailboxBatchRow, type MailboxMessageRow, type MailboxStoreResult } from './mailbox-store.queries.ts';
import type { RecentMessages } from './recent-messages.ts';

export type MailboxStorePorts = {
  pool: Pool;
  enqueueMany: EnqueueDeliveries;
  /** Our host name, for the Received line each forwarded copy gets. */
  hostname: string;
  watcherId: string;
  /** Keeps what was just stored for this process's own deliveries (as the SMTP acceptor does). */
  recent?: RecentMessages;
  onEnqueueError?: (error: unknown) => void;
};

/**
 * Messages read from one folder, in UID order, for one transaction; `raw: null` moves the
 * checkpoint past a message without taking it (mail from before the hand-out).
 */
type MailboxBatch = {
  account: { email: string; alias: string; imapHost: string };
  folder: string;
  uidValidity: bigint;
  messages: Array<{ uid: number; raw: Buffer | null }>;
};

/** `forwarded`: the UIDs queued for forwarding; the others were seen before (same Message-ID), unbound, or passed over. */
type BatchOutcome = { leaseLost: true } | { leaseLost: false; forwarded: number[] };

function headerSection(raw: Buffer): string {
  const end = raw.indexOf('\r\n\r\n');
  return raw.subarray(0, end < 0 ? raw.length : end).toString('latin1');
}

function headerValue(headers: string, name: string): string | null {
  const match = new RegExp(`^${name}:[ \\t]*((?:.*)(?:\\r?\\n[ \\t].*)*)`, 'im').exec(headers);
  return match?.[1] ? match[1].replace(/\r?\n[ \t]+/g, ' ').trim() : null;
}

/**
 * What makes a message the same message when a folder is read again under a new UIDVALIDITY: its
 * Message-ID, or a digest of its bytes when it has none.
 */
function messageKey(raw: Buffer): string {
  const messageId = headerValue(headerSection(raw), 'Message-ID');
  return messageId ? `mid:${messageId.toLowerCase()}` : `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}

/** The envelope sender of the forwarded copy: the Return-Path the mailbox's server recorded, else none (`<>`: no bounces to a stranger). */
function envelopeSenderOf(headers: string): string {
  const returnPath = headerValue(headers, 'Return-Path');
  const address = returnPath ? (/<([^<>]*)>/.exec(returnPath)?.[1] ?? returnPath) : '';
  return /^[^\s@]+@[^\s@]+$/.test(address) ? address.toLowerCase() : '';
}

/** Fetches of several accounts go into one statement at most this many at a time, and this many bytes. */
const groupLimits = { maxInputs: 64, maxWeight: 16 * 1024 * 1024 };

/** Stores one fetch of one folder (see `createMailboxStore`). */
export type StoreMailboxBatch = (batch: MailboxBatch) => Promise<BatchOutcome>;

/** A fetch as the statement takes it, and the UID of each message by the delivery it would get. */
type PreparedBatch = { row: MailboxBatchRow; uids: Map<string, number> };

/**
 * Prepares a fetch for storing: each message's key, our Received line, and the ids its message
 * and delivery get if its key turns out new (the statement decides). A second message with a key
 * already in the fetch (the same Message-ID twice) is not taken; it only moves the checkpoint.
 */
function prepareBatch(hostname: string, batch: MailboxBatch): PreparedBatch | null {
  const last = batch.messages.at(-1);
  if (!last) return null;
  const { email, alias, imapHost } = batch.account;
  const uids = new Map<string, number>();
  const messages: MailboxMessageRow[] = [];
  const keys = new Set<string>();
  for (const { uid, raw } of batch.messages) {
    if (!raw) continue;
    const key = messageKey(raw);
    if (keys.has(key)) continue;
    keys.add(key);
    const headers = headerSection(raw);
    const received = `Received: from ${imapHost} by ${hostname} with IMAP id ${batch.uidValidity}.${uid}\r\n\tfor <${email}>; ${new Date().toUTCString().replace('GMT', '+0000')}\r\n`;
    const deliveryId = randomUUID();
    uids.set(deliveryId, uid);
    messages.push({
      key,
      messageId: randomUUID(),
      deliveryId,
      envelopeFrom: envelopeSenderOf(headers),
      // 8-bit header bytes are UTF-8 headers (RFC 6532): they need a hop that takes SMTPUTF8.
      smtpUtf8: /[\u0080-\u00ff]/.test(headers),
      raw: Buffer.concat([Buffer.from(received), raw]),
    });
  }
  return { row: { email, alias, folder: batch.folder, uidValidity: batch.uidValidity, lastUid: last.uid, messages }, uids };
}

/**
 * Stores messages read from an account's folder and moves the folder's checkpoint past the last of
 * them, atomically (`storeMailboxBatches`): the raw bytes, the forwards to the binding's
 * destination (its current rules: forwardsTo, keepSender) and the account's record of what it
 * took, by Message-ID. A crash before the commit leaves the checkpoint where it was and the
 * messages are read again; after it, never. Only while this watcher still holds the account's
 * lease: a watcher that lost its account stores nothing.
 *
 * The fetches that every session of the process finished while the previous statement ran go
 * into the next one together (group commit), so a thousand accounts each receiving a message cost
 * a statement per group rather than a transaction per message. As for SMTP mail, the stored bytes
 * stay at hand for this process's own deliveries, and the delivery jobs are enqueued after the
 * commit (housekeeping re-enqueues them if that is lost).
 */
export function createMailboxStore(ports: MailboxStorePorts): StoreMailboxBatch {
  // A transaction rather than the statement alone: a process killed while its statement waits
  // (on a row lock) must leave nothing behind, and an autocommitted statement would commit once
  // the wait ends, without the process that was to enqueue its deliveries.
  const storeGroup = (group: PreparedBatch[]): Promise<MailboxStoreResult> =>
    withTransaction(ports.pool, async (client) => {
      // One statement takes one fetch per account (its checkpoint row may change once): a second
      // fetch of the same account (a session ending while its successor starts) goes in the next.
      const leased = new Set<string>();
      const deliveries = new Set<string>();
      for (let rest = group; rest.length > 0;) {
        const emails = new Set<string>();
        const round = rest.filter((batch) => !emails.has(batch.row.email) && emails.add(batch.row.email));
        rest = rest.filter((batch) => !round.includes(batch));
        const stored = await storeMailboxBatches(
          client,
          ports.watcherId,
          round.map((batch) => batch.row),
        );
        for (const email of stored.leased) leased.add(email);
        for (const id of stored.deliveries) deliveries.add(id);
      }
      return { leased, deliveries };
    });
  const commit = groupCommit(
    async (group: PreparedBatch[]): Promise<BatchOutcome[]> => {
      const stored = await storeGroup(group);
      const jobs: Array<{ payload: { deliveryId: string }; options: { jobId: string } }> = [];
      const outcomes = group.map(({ row, uids }): BatchOutcome => {
        if (!stored.leased.has(row.email)) return { leaseLost: true };
        const forwarded: number[] = [];
        for (const message of row.messages) {
          if (!stored.deliveries.has(message.deliveryId)) continue;
          ports.recent?.remember([message.deliveryId], message.raw);
          jobs.push({ payload: { deliveryId: message.deliveryId }, options: { jobId: deliveryJobId(message.deliveryId, 0) } });
          const uid = uids.get(message.deliveryId);
          if (uid !== undefined) forwarded.push(uid);
        }
        return { leaseLost: false, forwarded };
      });
      // Not awaited, and never able to fail the commit: the rows are stored whatever Redis does.
      if (jobs.length > 0)
        void Promise.resolve()
          .then(() => ports.enqueueMany(jobs))
          .catch((error: unknown) => ports.onEnqueueError?.(error));
      return outcomes;
    },
    { ...groupLimits, weight: (batch) => batch.row.messages.reduce((bytes, message) => bytes + message.raw.length, 0) },
  );
  return async (batch) => {
    const prepared = prepareBatch(ports.hostname, batch);
    return prepared ? commit(prepared) : { leaseLost: false, forwarded: [] };
  };
}
