import { randomUUID } from 'node:crypto';
import { insertAcceptedMessages, type AcceptedMessage, type DeliveryKind, type Queryable } from '@quarry/db';
import { deliveryJobId, type EnqueueDeliveries } from './deliver-mail.ts';

/** Where one accepted recipient's copy goes, decided at RCPT time. */
export type DeliveryTarget = { recipient: string | null; forwardsTo: string; keepSender: boolean; kind: DeliveryKind };

export type AcceptPorts = {
  db: Queryable;
  enqueueMany: EnqueueDeliveries;
  onEnqueueError?: (error: unknown) => void;
};

export type IncomingMessage = { envelopeFrom: string; raw: Buffer; targets: DeliveryTarget[] };
export type AcceptedIds = { messageId: string; deliveryIds: string[] };

/** One statement carries at most this many messages, and past this many bytes of them no more. */
const maxMessagesPerCommit = 64;
const maxBytesPerCommit = 16 * 1024 * 1024;

function toAcceptedMessage(message: IncomingMessage): AcceptedMessage {
  // Two bound recipients forwarding to one address give that address one copy.
  const byDestination = new Map(message.targets.map((target) => [target.forwardsTo, target]));
  return {
    messageId: randomUUID(),
    envelopeFrom: message.envelopeFrom,
    raw: message.raw,
    deliveries: [...byDestination.values()].map((target) => ({ deliveryId: randomUUID(), ...target })),
    countRecipients: [...new Set(message.targets.flatMap((target) => (target.recipient ? [target.recipient] : [])))],
  };
}

type Waiting = { message: AcceptedMessage; resolve: (ids: AcceptedIds) => void; reject: (error: unknown) => void };

/**
 * Makes accepted messages durable with group commit: the raw bytes, one delivery per distinct
 * destination and the recipients' counters of every message that finished DATA while the previous
 * commit ran go into ONE statement, and each SMTP session may answer 250 once it has committed.
 * Under load that is one round trip and one WAL flush for many messages; alone, a message waits
 * for nothing but its own commit. The delivery jobs are enqueued in one call after the commit; if
 * Redis fails right then the messages are still safe, and housekeeping re-enqueues their overdue
 * deliveries, so the 250 stays true. A failed group is retried one message at a time, so one
 * message the database refuses cannot fail the others.
 */
export function createMessageAcceptor(ports: AcceptPorts): (message: IncomingMessage) => Promise<AcceptedIds> {
  let waiting: Waiting[] = [];
  let committing = false;

  const enqueue = (messages: AcceptedMessage[]) => {
    const jobs = messages.flatMap((message) => message.deliveries.map((delivery) => ({
      payload: { deliveryId: delivery.deliveryId },
      options: { jobId: deliveryJobId(delivery.deliveryId, 0) },
    })));
    if (jobs.length > 0) ports.enqueueMany(jobs).catch((error: unknown) => ports.onEnqueueError?.(error));
  };
  const settle = (group: Waiting[]) => {
    for (const { message, resolve } of group) resolve({ messageId: message.messageId, deliveryIds: message.deliveries.map((delivery) => delivery.deliveryId) });
  };

  const commitGroup = async (group: Waiting[]): Promise<void> => {
    try {
      await insertAcceptedMessages(ports.db, group.map((entry) => entry.message));
    } catch (error) {
      if (group.length === 1) group[0]?.reject(error);
      else for (const entry of group) await commitGroup([entry]);
      return;
    }
    enqueue(group.map((entry) => entry.message));
    settle(group);
  };

  const commitWhileWaiting = async () => {
    committing = true;
    try {
      await commitAll();
    } finally {
      committing = false;
    }
  };
  const commitAll = async () => {
    while (waiting.length > 0) {
      let bytes = 0;
      let take = 0;
      while (take < waiting.length && take < maxMessagesPerCommit && (take === 0 || bytes + (waiting[take]?.message.raw.length ?? 0) <= maxBytesPerCommit)) {
        bytes += waiting[take]?.message.raw.length ?? 0;
        take += 1;
      }
      const group = waiting.slice(0, take);
      waiting = waiting.slice(take);
      await commitGroup(group);
    }
  };

  return (message) =>
    new Promise<AcceptedIds>((resolve, reject) => {
      waiting.push({ message: toAcceptedMessage(message), resolve, reject });
      if (!committing) void commitWhileWaiting();
    });
}
