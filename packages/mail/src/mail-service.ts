import { createHmac } from 'node:crypto';
import type { DeliverMailJobPayload } from '@quarry/contracts';
import type { MailSettings } from '@quarry/config';
import type { Pool } from '@quarry/db';
import { domainOf } from './addresses.ts';
import { createMessageAcceptor } from './accept-message.ts';
import { deliverMail, type DeliveryResult, type EnqueueDeliveries, type EnqueueDelivery } from './deliver-mail.ts';
import { createDeliveryStore } from './delivery-store.ts';
import { runMailHousekeeping } from './housekeeping.ts';
import { createInboundSmtpServer, type InboundSettings, type InboundSmtpServer } from './inbound-smtp.server.ts';
import { createMailDns } from './mail-dns.ts';
import { createMailSender, type MxResolver } from './mail-sender.ts';
import { createRecentMessages, type RecentMessages } from './recent-messages.ts';
import { createSrs } from './srs.ts';

/**
 * Messages accepted here and not yet delivered (recent-messages.ts): at most 64 MB, and none older
 * than a minute (a delivery starts milliseconds after its commit unless it waits for a worker).
 */
const recentMessages = { maxBytes: 64 * 1024 * 1024, maxAgeMs: 60_000 };

/** The SMTP settings of `SmtpSettings` (packages/config) the inbound server reads. */
export type SmtpSettings = Omit<InboundSettings, 'hostname' | 'domains' | 'srsDomain'>;

export type MailService = {
  smtp: InboundSmtpServer;
  deliver(payload: DeliverMailJobPayload): Promise<DeliveryResult>;
  housekeeping(): Promise<{ expired: number; requeued: number; forgotten: number }>;
  /** The bytes of messages stored here and not delivered yet, for this process's deliveries; the mailbox watcher keeps what it stores there too. */
  recent: RecentMessages;
  close(): void;
};

/**
 * Everything the `mail` role runs, wired from settings: the inbound SMTP server, the delivery
 * handler and housekeeping. The SRS key is derived from the deployment's secret key, so every
 * process can reverse what any other wrote and there is no extra secret to manage.
 */
export function createMailService(options: {
  pool: Pool;
  /**
   * Deliveries' statements and the one connection that holds their advisory locks (ADR 0011); a
   * pool of their own keeps slow destinations from starving SMTP intake.
   */
  deliveryPool?: Pool;
  enqueue: EnqueueDelivery;
  /** The accepted messages' first jobs, in one call per group commit. */
  enqueueMany: EnqueueDeliveries;
  secretKey: Buffer;
  /** Domains whose bound recipients the SMTP server accepts (`MAIL_DOMAINS`). */
  domains: readonly string[];
  mail: MailSettings;
  smtp: SmtpSettings;
  /** How long the keys of messages taken from pool mailboxes are kept (`MAILBOX_SEEN_RETENTION_DAYS`). */
  mailboxSeenRetentionMs?: number;
  resolver?: MxResolver;
  now?: () => Date;
  onError?: (error: unknown, where: string) => void;
  onDelivered?: (latencySeconds: number) => void;
}): MailService {
  const now = options.now ?? (() => new Date());
  const relayDomain = domainOf(options.mail.relaySender);
  const srs = createSrs({ secret: createHmac('sha256', options.secretKey).update('quarry mail srs').digest(), domain: relayDomain, now });
  const dns = createMailDns(options.mail.dnsServers);
  const sender = createMailSender({
    relayUrl: options.mail.relayUrl,
    hostname: options.mail.hostname,
    mxPort: options.mail.mxPort,
    resolver: options.resolver ?? dns.mx,
    maxConnections: options.mail.deliveryConcurrency,
  });
  const dkim = options.mail.dkim.privateKey
    ? { domain: relayDomain, selector: options.mail.dkim.selector, privateKey: options.mail.dkim.privateKey }
    : undefined;
  const recent = createRecentMessages(recentMessages);
  const accept = createMessageAcceptor({
    db: options.pool,
    recent,
    enqueueMany: options.enqueueMany,
    onEnqueueError: (error) => options.onError?.(error, 'mail enqueue'),
  });
  const smtp = createInboundSmtpServer(
    {
      db: options.pool,
      srs,
      now,
      accept,
      ...(options.onError ? { onError: options.onError } : {}),
    },
    { ...options.smtp, hostname: options.mail.hostname, domains: options.domains, srsDomain: relayDomain },
  );
  const deliveryPool = options.deliveryPool ?? options.pool;
  const store = createDeliveryStore(deliveryPool, recent);
  return {
    smtp,
    recent,
    deliver: (payload) =>
      deliverMail(
        {
          pool: deliveryPool,
          store,
          sender,
          srs,
          enqueue: options.enqueue,
          now,
          dns: dns.lookup,
          settings: { ...options.mail, dkim },
          ...(options.onDelivered ? { onDelivered: options.onDelivered } : {}),
          ...(options.onError ? { onSealError: (error: unknown) => options.onError?.(error, 'arc seal') } : {}),
        },
        payload,
      ),
    housekeeping: () =>
      runMailHousekeeping(
        { db: options.pool, enqueue: options.enqueue },
        options.mailboxSeenRetentionMs === undefined ? {} : { seenRetentionMs: options.mailboxSeenRetentionMs },
      ),
    close: () => {
      sender.close();
      store.close();
    },
  };
}
