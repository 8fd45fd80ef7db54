import { randomUUID } from 'node:crypto';
import { countBindingsReceived, insertMessageWithDeliveries, withTransaction, type DeliveryKind, type Pool } from '@quarry/db';
import { deliveryJobId, type EnqueueDelivery } from './deliver-mail.ts';

/** Where one accepted recipient's copy goes, decided at RCPT time. */
export type DeliveryTarget = { recipient: string | null; forwardsTo: string; keepSender: boolean; kind: DeliveryKind };

export type AcceptPorts = {
  pool: Pool;
  enqueue: EnqueueDelivery;
  onEnqueueError?: (error: unknown) => void;
};

/**
 * Makes an accepted message durable: the raw bytes and one delivery per destination commit in one
 * transaction, and only then may the SMTP server answer 250. The jobs are enqueued after the
 * commit; if Redis fails right then, the message is still safe and housekeeping re-enqueues its
 * overdue deliveries, so the 250 stays true.
 */
export async function acceptMessage(
  ports: AcceptPorts,
  message: { envelopeFrom: string; raw: Buffer; targets: DeliveryTarget[] },
): Promise<{ messageId: string; deliveryIds: string[] }> {
  const messageId = randomUUID();
  const deliveries = message.targets.map((target) => ({ deliveryId: randomUUID(), ...target }));
  const deliveryIds = await withTransaction(ports.pool, async (client) => {
    const inserted = await insertMessageWithDeliveries(client, { messageId, envelopeFrom: message.envelopeFrom, raw: message.raw }, deliveries);
    await countBindingsReceived(
      client,
      message.targets.flatMap((target) => (target.recipient ? [target.recipient] : [])),
    );
    return inserted;
  });
  try {
    await Promise.all(deliveryIds.map((deliveryId) => ports.enqueue({ deliveryId }, { jobId: deliveryJobId(deliveryId, 0) })));
  } catch (error) {
    ports.onEnqueueError?.(error);
  }
  return { messageId, deliveryIds };
}
