import { randomUUID } from 'node:crypto';
import { type Pool, withTransaction } from '@quarry/db';
import type { JobPayload } from '@quarry/jobs';
import { countBindingOutcome } from './bindings.queries.ts';
import { deferDelivery, deleteMessageIfFinished, finishDelivery, insertAcceptedMessages, type DeliveryToSend } from './mail.queries.ts';
import { domainOf } from './addresses.ts';
import { composeBounce } from './bounce-message.ts';
import type { DeliveryStore } from './delivery-store.ts';
import { composeForwardedMessage, type DkimKey } from './forwarded-message.ts';
import type { DnsLookup } from './mail-dns.ts';
import type { MailSender, MessageForHop } from './mail-sender.ts';
import { downgradeTo7Bit } from './seven-bit.ts';
import type { Srs } from './srs.ts';

/** Enqueues one delivery job; `jobId` makes a repeated enqueue of the same attempt a no-op. The role wires it from the job catalog. */
export type EnqueueDelivery = (payload: JobPayload<'mail.deliver'>, options: { jobId: string; delayMs?: number }) => Promise<unknown>;
/** Enqueues many delivery jobs in one call (one Redis round trip). */
export type EnqueueDeliveries = (jobs: Array<{ payload: JobPayload<'mail.deliver'>; options: { jobId: string } }>) => Promise<unknown>;

export type DeliverySettings = {
  relaySender: string;
  hostname: string;
  dkim: DkimKey | undefined;
  retryBaseMs: number;
  retryMaxMs: number;
  maxQueueLifetimeMs: number;
};

export type DeliveryPorts = {
  pool: Pool;
  store: DeliveryStore;
  sender: MailSender;
  srs: Srs;
  /** DNS for ARC sealing of keepSender forwards (with a DKIM key only). */
  dns: DnsLookup;
  enqueue: EnqueueDelivery;
  now: () => Date;
  settings: DeliverySettings;
  /** Seconds from acceptance to the destination's 250, for the latency metric. */
  onDelivered?: (latencySeconds: number) => void;
  /** A forward that could not be ARC-sealed (it goes out unsealed). */
  onSealError?: (error: unknown) => void;
};

export type DeliveryResult = 'delivered' | 'deferred' | 'bounced' | 'already-final';

/** Raised when another worker holds this delivery right now; the job is retried later. */
export class DeliveryBusyError extends Error {
  constructor(deliveryId: string) {
    super(`delivery ${deliveryId} is being sent by another worker`);
    this.name = 'DeliveryBusyError';
  }
}

/** The job id of the n-th retry: attempts are separate jobs so each waits its own backoff. */
export const deliveryJobId = (deliveryId: string, attempts: number) => (attempts === 0 ? deliveryId : `${deliveryId}-r${attempts}`);

export function retryDelayMs(settings: Pick<DeliverySettings, 'retryBaseMs' | 'retryMaxMs'>, attempts: number): number {
  return Math.min(settings.retryBaseMs * 2 ** Math.max(0, attempts - 1), settings.retryMaxMs);
}

/**
 * Sends one stored message to one destination. Exactly once across retries and crashes because:
 * the delivery row is final before the job completes (a re-run finds it final and stops); a
 * session advisory lock on the delivery keeps two workers from sending it at once, and dies with
 * a killed worker's connection so recovery is immediate; a destination that never answered 250
 * before the connection dropped has not taken the message (RFC 5321 §6.1), so sending again is
 * right. The one window left, a crash between the destination's 250 and our commit of it, is
 * ADR 0011's: the record is sent from the callback that reads the 250, alone on its statement, and
 * everything else (the session's next command, metrics, the lock's release) waits for its commit.
 */
export async function deliverMail(ports: DeliveryPorts, payload: JobPayload<'mail.deliver'>): Promise<DeliveryResult> {
  const claim = await ports.store.claim(payload.deliveryId);
  if (!claim.locked) throw new DeliveryBusyError(payload.deliveryId);
  try {
    const delivery = claim.delivery;
    if (!delivery || delivery.state === 'delivered' || delivery.state === 'bounced') return 'already-final';

    const now = ports.now();
    const expired = now.getTime() - delivery.acceptedAt.getTime() > ports.settings.maxQueueLifetimeMs;
    if (expired) {
      await bounce(
        ports,
        delivery,
        '4.4.7',
        `gave up after ${Math.round(ports.settings.maxQueueLifetimeMs / 3600_000)} hours: ${delivery.state}`,
      );
      return 'bounced';
    }

    const forwarded = delivery.kind === 'forward';
    // Every forward with a sender goes out with an SRS sender on our domain: SPF passes at the
    // destination and its bounces come back to us to be reversed. Bounces keep the null sender.
    const envelopeFrom = forwarded ? ports.srs.forward(delivery.envelopeFrom) : '';
    const compose = (original: Buffer) =>
      forwarded
        ? composeForwardedMessage(original, {
            keepSender: delivery.keepSender,
            recipient: delivery.recipient,
            relaySender: ports.settings.relaySender,
            dkim: ports.settings.dkim,
            arc: { lookup: ports.dns, hostname: ports.settings.hostname, envelopeFrom: delivery.envelopeFrom, onError: ports.onSealError },
          })
        : Promise.resolve(original);
    // The 7-bit form is converted before our signatures are made, so they cover what is sent.
    const forms = new Map<'as-composed' | 'seven-bit', Promise<Buffer>>();
    const message: MessageForHop = (form) => {
      let bytes = forms.get(form);
      if (!bytes) {
        bytes = form === 'as-composed' ? compose(delivery.raw) : downgradeTo7Bit(delivery.raw).then(compose);
        forms.set(form, bytes);
      }
      return bytes;
    };
    // The destination's 250 is recorded from the callback that read it, while the session waits:
    // the crash window of ADR 0011 is then that one statement, nothing of ours runs inside it.
    let recording: Promise<boolean> | undefined;
    const recordAccepted = () => (recording ??= ports.store.recordDelivered(delivery));
    const outcome = await ports.sender.send(
      { from: envelopeFrom, to: delivery.forwardsTo, smtpUtf8: delivery.smtpUtf8 },
      message,
      recordAccepted,
    );

    if (outcome.outcome === 'delivered') {
      // A sender that reported the 250 without the hook still gets it recorded before anything else.
      await recordAccepted();
      ports.onDelivered?.((ports.now().getTime() - delivery.acceptedAt.getTime()) / 1000);
      return 'delivered';
    }
    if (outcome.outcome === 'permanent') {
      await bounce(
        ports,
        delivery,
        outcome.status ?? (outcome.responseCode >= 550 && outcome.responseCode <= 553 ? '5.1.1' : '5.0.0'),
        outcome.error,
      );
      return 'bounced';
    }
    const attempts = delivery.attempts + 1;
    const delayMs = retryDelayMs(ports.settings, attempts);
    if (now.getTime() + delayMs - delivery.acceptedAt.getTime() > ports.settings.maxQueueLifetimeMs) {
      await bounce(ports, delivery, '4.4.7', `gave up: ${outcome.error}`);
      return 'bounced';
    }
    const recorded = await deferDelivery(ports.pool, delivery.deliveryId, new Date(now.getTime() + delayMs), outcome.error);
    if (recorded !== null)
      await ports.enqueue({ deliveryId: delivery.deliveryId }, { jobId: deliveryJobId(delivery.deliveryId, recorded), delayMs });
    return 'deferred';
  } finally {
    await ports.store.release(payload.deliveryId).catch(() => {});
  }
}

/**
 * Final failure: the delivery becomes `bounced`, and the original sender gets a DSN unless the
 * message had the null sender or was itself a bounce (never bounce a bounce, RFC 3464 §2).
 */
async function bounce(ports: DeliveryPorts, delivery: DeliveryToSend, status: string, diagnostic: string): Promise<void> {
  const sendsDsn = delivery.kind === 'forward' && delivery.envelopeFrom !== '';
  const dsn = sendsDsn
    ? await composeBounce({
        original: delivery.raw,
        envelopeFrom: delivery.envelopeFrom,
        failedRecipient: delivery.recipient ?? delivery.forwardsTo,
        hostname: ports.settings.hostname,
        mailerDaemon: `mailer-daemon@${domainOf(ports.settings.relaySender)}`,
        status,
        // The destination's own words may name the forwardsTo address, which the sender must not learn.
        diagnostic: diagnostic.split(delivery.forwardsTo).join('<destination>'),
        acceptedAt: delivery.acceptedAt,
        now: ports.now(),
      })
    : null;
  const bounceDeliveryId = randomUUID();
  const created = await withTransaction(ports.pool, async (db) => {
    if (!(await finishDelivery(db, delivery.deliveryId, 'bounced', diagnostic.slice(0, 1000)))) return false;
    if (delivery.recipient) await countBindingOutcome(db, delivery.recipient, 'bounced');
    if (dsn) {
      await insertAcceptedMessages(db, [
        {
          messageId: randomUUID(),
          envelopeFrom: '',
          // Our report is ASCII in its headers; the original's headers travel in its body.
          smtpUtf8: false,
          raw: dsn,
          deliveries: [
            { deliveryId: bounceDeliveryId, recipient: null, forwardsTo: delivery.envelopeFrom, kind: 'bounce', keepSender: true },
          ],
          countRecipients: [],
        },
      ]);
    }
    await deleteMessageIfFinished(db, delivery.messageId);
    return dsn !== null;
  });
  if (created) await ports.enqueue({ deliveryId: bounceDeliveryId }, { jobId: bounceDeliveryId });
}
