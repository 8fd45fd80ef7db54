import { randomUUID } from 'node:crypto';
import { type Queryable } from '@quarry/db';
import { insertAcceptedMessages, type AcceptedMessage, type DeliveryKind } from './mail.queries.ts';
import { deliveryJobId, type EnqueueDeliveries } from './deliver-mail.ts';
import { groupCommit } from './group-commit.ts';
import type { RecentMessages } from './recent-messages.ts';

/** Where one accepted recipient's copy goes, decided at RCPT time. */
export type DeliveryTarget = { recipient: string | null; forwardsTo: string; keepSender: boolean; kind: DeliveryKind };

export type AcceptPorts = {
  db: Queryable;
  enqueueMany: EnqueueDeliveries;
  onEnqueueError?: (error: unknown) => void;
  /** Keeps what was just stored for this process's own deliveries. */
  recent?: RecentMessages;
};

export type IncomingMessage = {
  envelopeFrom: string;
  /** The client asked for SMTPUTF8 at MAIL FROM (RFC 6531): its UTF-8 headers need a hop that offers it. */
  smtpUtf8: boolean;
  raw: Buffer;
  targets: DeliveryTarget[];
};
export type AcceptedIds = { messageId: string; deliveryIds: string[] };

function toAcceptedMessage(message: IncomingMessage): AcceptedMessage {
  // Two bound recipients forwarding to one address give that address one copy.
  const byDestination = new Map(message.targets.map((target) => [target.forwardsTo, target]));
  return {
    messageId: randomUUID(),
    envelopeFrom: message.envelopeFrom,
    smtpUtf8: message.smtpUtf8,
    raw: message.raw,
    deliveries: [...byDestination.values()].map((target) => ({ deliveryId: randomUUID(), ...target })),
    countRecipients: [...new Set(message.targets.flatMap((target) => (target.recipient ? [target.recipient] : [])))],
  };
}

/**
 * Makes accepted messages durable before the SMTP server may answer 250: the raw bytes, one
 * delivery per distinct destination and the recipients' counters, for every message that finished
 * DATA while the previous commit ran, in one statement (group commit; at most 64 messages or
 * 16 MB of them). The delivery jobs go to Redis in one call after the commit; if Redis fails right
 * then, the messages are still safe and housekeeping re-enqueues their overdue deliveries, so the
 * 250 stays true.
 */
export function createMessageAcceptor(ports: AcceptPorts): (message: IncomingMessage) => Promise<AcceptedIds> {
  const commit = groupCommit(
    async (messages: AcceptedMessage[]) => {
      await insertAcceptedMessages(ports.db, messages);
      for (const message of messages)
        ports.recent?.remember(
          message.deliveries.map((delivery) => delivery.deliveryId),
          message.raw,
        );
      const jobs = messages.flatMap((message) =>
        message.deliveries.map((delivery) => ({
          payload: { deliveryId: delivery.deliveryId },
          options: { jobId: deliveryJobId(delivery.deliveryId, 0) },
        })),
      );
      // Not awaited, and never able to fail the commit: the rows are stored whatever Redis does.
      if (jobs.length > 0)
        void Promise.resolve()
          .then(() => ports.enqueueMany(jobs))
          .catch((error: unknown) => ports.onEnqueueError?.(error));
      return messages.map((message) => ({
        messageId: message.messageId,
        deliveryIds: message.deliveries.map((delivery) => delivery.deliveryId),
      }));
    },
    { maxInputs: 64, maxWeight: 16 * 1024 * 1024, weight: (message) => message.raw.length },
  );
  return (message) => commit(toAcceptedMessage(message));
}
