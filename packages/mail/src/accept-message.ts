import { randomUUID } from 'node:crypto';
import { insertAcceptedMessage, type DeliveryKind, type Queryable } from '@quarry/db';
import { deliveryJobId, type EnqueueDelivery } from './deliver-mail.ts';

/** Where one accepted recipient's copy goes, decided at RCPT time. */
export type DeliveryTarget = { recipient: string | null; forwardsTo: string; keepSender: boolean; kind: DeliveryKind };

export type AcceptPorts = {
  db: Queryable;
  enqueue: EnqueueDelivery;
  onEnqueueError?: (error: unknown) => void;
};

/**
 * Makes an accepted message durable: the raw bytes, one delivery per distinct destination and the
 * recipients' counters commit in one statement, and only then may the SMTP server answer 250.
 * The jobs are enqueued after the commit; if Redis fails right then, the message is still safe
 * and housekeeping re-enqueues its overdue deliveries, so the 250 stays true.
 */
export async function acceptMessage(
  ports: AcceptPorts,
  message: { envelopeFrom: string; raw: Buffer; targets: DeliveryTarget[] },
): Promise<{ messageId: string; deliveryIds: string[] }> {
  const messageId = randomUUID();
  // Two bound recipients forwarding to one address give that address one copy.
  const byDestination = new Map(message.targets.map((target) => [target.forwardsTo, target]));
  const deliveries = [...byDestination.values()].map((target) => ({ deliveryId: randomUUID(), ...target }));
  const recipients = [...new Set(message.targets.flatMap((target) => (target.recipient ? [target.recipient] : [])))];
  const deliveryIds = await insertAcceptedMessage(ports.db, { messageId, envelopeFrom: message.envelopeFrom, raw: message.raw }, deliveries, recipients);
  try {
    await Promise.all(deliveryIds.map((deliveryId) => ports.enqueue({ deliveryId }, { jobId: deliveryJobId(deliveryId, 0) })));
  } catch (error) {
    ports.onEnqueueError?.(error);
  }
  return { messageId, deliveryIds };
}
