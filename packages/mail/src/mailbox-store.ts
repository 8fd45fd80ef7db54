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

/** One message read from a folder; `raw: null` moves the checkpoint past it without taking it (mail from before the hand-out). */
export type MailboxMessage = {
  account: { email: string; alias: string; imapHost: string };
  folder: string;
  uidValidity: bigint;
  uid: number;
  raw: Buffer | null;
};

export type StoreOutcome = 'forwarded' | 'already-seen' | 'unbound' | 'passed' | 'lease-lost';

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
 * Stores one message read from an account's folder and moves the folder's checkpoint past it, in
 * ONE transaction: the raw bytes, the forward to the binding's destination (its current rules:
 * forwardsTo, keepSender) and the account's record of what it took, by Message-ID. A crash before
 * the commit leaves the checkpoint where it was and the message is read again; after it, never.
 * The transaction holds the account's row lock only while this watcher still holds the lease, so
 * a watcher that lost its account stores nothing. The delivery job is enqueued after the commit
 * (housekeeping re-enqueues it if that is lost), as for SMTP mail.
 */
export async function storeMailboxMessage(ports: MailboxStorePorts, message: MailboxMessage): Promise<StoreOutcome> {
  const { email, alias } = message.account;
  const stored = await withTransaction(ports.pool, async (client): Promise<{ outcome: StoreOutcome; accepted?: AcceptedMessage }> => {
    if (!(await lockLeasedAccount(client, email, ports.watcherId))) return { outcome: 'lease-lost' };
    let outcome: StoreOutcome = 'passed';
    let accepted: AcceptedMessage | undefined;
    if (message.raw) {
      if (!(await markSeen(client, email, messageKey(message.raw)))) {
        outcome = 'already-seen';
      } else {
        const binding = await findActiveBinding(client, alias);
        if (!binding) {
          outcome = 'unbound';
        } else {
          const headers = headerSection(message.raw);
          const received = `Received: from ${message.account.imapHost} by ${ports.hostname} with IMAP id ${message.uidValidity}.${message.uid}\r\n\tfor <${email}>; ${new Date().toUTCString().replace('GMT', '+0000')}\r\n`;
          accepted = {
            messageId: randomUUID(),
            envelopeFrom: envelopeSenderOf(headers),
            // 8-bit header bytes are UTF-8 headers (RFC 6532): they need a hop that takes SMTPUTF8.
            smtpUtf8: /[\u0080-\u00ff]/.test(headers),
            raw: Buffer.concat([Buffer.from(received), message.raw]),
            deliveries: [{ deliveryId: randomUUID(), recipient: alias, forwardsTo: binding.forwardsTo, keepSender: binding.keepSender, kind: 'forward' }],
            countRecipients: [alias],
          };
          await insertAcceptedMessages(client, [accepted]);
          await countForwarded(client, email);
          outcome = 'forwarded';
        }
      }
    }
    await moveProgress(client, email, message.folder, { uidValidity: message.uidValidity, lastUid: message.uid });
    return accepted ? { outcome, accepted } : { outcome };
  });
  if (stored.accepted) {
    const jobs = stored.accepted.deliveries.map((delivery) => ({ payload: { deliveryId: delivery.deliveryId }, options: { jobId: deliveryJobId(delivery.deliveryId, 0) } }));
    await Promise.resolve()
      .then(() => ports.enqueueMany(jobs))
      .catch((error: unknown) => ports.onEnqueueError?.(error));
  }
  return stored.outcome;
}
