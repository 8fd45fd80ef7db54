import { createHash, randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '@quarry/db';
import { findActiveBinding } from './bindings.queries.ts';
import { deliveryJobId, type EnqueueDeliveries } from './deliver-mail.ts';
import { insertAcceptedMessages, type AcceptedMessage } from './mail.queries.ts';
import { countForwarded, lockLeasedAccount, markSeen, moveProgress } from './mailbox-watch.queries.ts';

export type MailboxStorePorts = {
  pool: Pool;
  enqueueMany: EnqueueDeliveries;
  /** Our host name, for the Received line each forwarded copy gets. */
  hostname: string;
  watcherId: string;
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
  const address = returnPath ? /<([^<>]*)>/.exec(returnPath)?.[1] ?? returnPath : '';
  return /^[^\s@]+@[^\s@]+$/.test(address) ? address.toLowerCase() : '';
}

/**
 * Stores messages read from an account's folder and moves the folder's checkpoint past the last of
 * them, in ONE transaction: the raw bytes, the forwards to the binding's destination (its current
 * rules: forwardsTo, keepSender) and the account's record of what it took, by Message-ID. A crash
 * before the commit leaves the checkpoint where it was and the messages are read again; after it,
 * never. The transaction holds the account's row lock only while this watcher still holds the
 * lease, so a watcher that lost its account stores nothing. The delivery jobs are enqueued after
 * the commit (housekeeping re-enqueues them if that is lost), as for SMTP mail. A burst of mail
 * costs one transaction per fetch, not one per message.
 */
export async function storeMailboxMessages(ports: MailboxStorePorts, batch: MailboxBatch): Promise<BatchOutcome> {
  const { email, alias } = batch.account;
  const last = batch.messages.at(-1);
  if (!last) return { leaseLost: false, forwarded: [] };
  const stored = await withTransaction(ports.pool, async (client): Promise<{ leaseLost: boolean; accepted: Array<{ uid: number; message: AcceptedMessage }> }> => {
    if (!(await lockLeasedAccount(client, email, ports.watcherId))) return { leaseLost: true, accepted: [] };
    const taken = batch.messages.flatMap((message) => (message.raw ? [{ uid: message.uid, raw: message.raw, key: messageKey(message.raw) }] : []));
    const newKeys = taken.length > 0 ? await markSeen(client, email, taken.map((message) => message.key)) : new Set<string>();
    // The first message of each new key is taken; a copy in the same batch (same Message-ID) is not.
    const fresh = taken.filter((message) => newKeys.delete(message.key));
    const binding = fresh.length > 0 ? await findActiveBinding(client, alias) : null;
    const accepted = binding
      ? fresh.map(({ uid, raw }) => {
          const headers = headerSection(raw);
          const received = `Received: from ${batch.account.imapHost} by ${ports.hostname} with IMAP id ${batch.uidValidity}.${uid}\r\n\tfor <${email}>; ${new Date().toUTCString().replace('GMT', '+0000')}\r\n`;
          const message: AcceptedMessage = {
            messageId: randomUUID(),
            envelopeFrom: envelopeSenderOf(headers),
            // 8-bit header bytes are UTF-8 headers (RFC 6532): they need a hop that takes SMTPUTF8.
            smtpUtf8: /[\u0080-\u00ff]/.test(headers),
            raw: Buffer.concat([Buffer.from(received), raw]),
            deliveries: [{ deliveryId: randomUUID(), recipient: alias, forwardsTo: binding.forwardsTo, keepSender: binding.keepSender, kind: 'forward' }],
            countRecipients: [alias],
          };
          return { uid, message };
        })
      : [];
    if (accepted.length > 0) {
      await insertAcceptedMessages(
        client,
        accepted.map((entry) => entry.message),
      );
      await countForwarded(client, email, accepted.length);
    }
    await moveProgress(client, email, batch.folder, { uidValidity: batch.uidValidity, lastUid: last.uid });
    return { leaseLost: false, accepted };
  });
  if (stored.leaseLost) return { leaseLost: true };
  const jobs = stored.accepted.flatMap(({ message }) =>
    message.deliveries.map((delivery) => ({ payload: { deliveryId: delivery.deliveryId }, options: { jobId: deliveryJobId(delivery.deliveryId, 0) } })),
  );
  if (jobs.length > 0) {
    await Promise.resolve()
      .then(() => ports.enqueueMany(jobs))
      .catch((error: unknown) => ports.onEnqueueError?.(error));
  }
  return { leaseLost: false, forwarded: stored.accepted.map((entry) => entry.uid) };
}
