import nodemailer, { type Transporter } from 'nodemailer';
import { domainOf } from './addresses.ts';

export type SendOutcome =
  | { outcome: 'delivered'; response: string }
  /** 4xx or no answer at all (connection refused, dropped, timed out): try again later. */
  | { outcome: 'temporary'; error: string; responseCode?: number }
  /** 5xx: the destination refused for good. */
  | { outcome: 'permanent'; error: string; responseCode: number };

/** The outbound side as the delivery use case needs it. */
export type MailSender = {
  send(envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome>;
  close(): void;
};

/** DNS as the sender needs it; injected in tests, which never use real DNS. */
export type MxResolver = {
  mx(domain: string): Promise<Array<{ exchange: string; priority: number }>>;
  a(host: string): Promise<string[]>;
};

type NodemailerError = Error & { responseCode?: number; response?: string; code?: string };

function classify(error: NodemailerError): SendOutcome {
  const text = (error.response ?? error.message).slice(0, 500);
  if (error.responseCode && error.responseCode >= 500) return { outcome: 'permanent', error: text, responseCode: error.responseCode };
  if (error.responseCode) return { outcome: 'temporary', error: text, responseCode: error.responseCode };
  return { outcome: 'temporary', error: error.code ? `${error.code}: ${text}` : text };
}

/**
 * Sends through the configured smarthost (`MAIL_RELAY_URL`, one pool of reused connections) or
 * straight to the destination's MX hosts in preference order.
 */
export function createMailSender(options: {
  relayUrl: string | undefined;
  hostname: string;
  mxPort: number;
  resolver: MxResolver;
  maxConnections: number;
  timeoutMs?: number;
}): MailSender {
  const timeouts = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: options.timeoutMs ?? 10 * 60_000 };
  const relay = options.relayUrl ? new URL(options.relayUrl) : null;
  const relayTransport = relay
    ? nodemailer.createTransport({
        pool: true,
        maxConnections: options.maxConnections,
        maxMessages: 1000,
        host: relay.hostname,
        port: Number(relay.port || (relay.protocol === 'smtps:' ? 465 : 25)),
        secure: relay.protocol === 'smtps:',
        name: options.hostname,
        ...(relay.username ? { auth: { user: decodeURIComponent(relay.username), pass: decodeURIComponent(relay.password) } } : {}),
        ...timeouts,
      })
    : null;

  const sendVia = async (transport: Transporter, envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> => {
    try {
      const info = await transport.sendMail({ envelope: { from: envelope.from, to: [envelope.to] }, raw });
      return { outcome: 'delivered', response: String(info.response ?? '') };
    } catch (error) {
      return classify(error as NodemailerError);
    }
  };

  const sendDirect = async (envelope: { from: string; to: string }, raw: Buffer): Promise<SendOutcome> => {
    const domain = domainOf(envelope.to);
    let hosts: string[];
    try {
      const records = await options.resolver.mx(domain);
      // RFC 5321 §5.1: no MX records means the domain itself is the mail host.
      hosts = records.length > 0 ? [...records].sort((a, b) => a.priority - b.priority).map((record) => record.exchange) : [domain];
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') hosts = [domain];
      else return { outcome: 'temporary', error: `MX lookup for ${domain} failed: ${(error as Error).message}` };
    }
    let last: SendOutcome = { outcome: 'temporary', error: `no mail host for ${domain}` };
    for (const host of hosts) {
      let addresses: string[];
      try {
        addresses = await options.resolver.a(host);
      } catch (error) {
        last = { outcome: 'temporary', error: `address lookup for ${host} failed: ${(error as Error).message}` };
        continue;
      }
      for (const address of addresses) {
        const transport = nodemailer.createTransport({ host: address, port: options.mxPort, name: options.hostname, tls: { servername: host }, ...timeouts });
        try {
          last = await sendVia(transport, envelope, raw);
        } finally {
          transport.close();
        }
        // Only a connection-level failure moves on to the next host; an answer is final for this try.
        if (last.outcome !== 'temporary' || last.responseCode) return last;
      }
    }
    return last;
  };

  return {
    send: (envelope, raw) => (relayTransport ? sendVia(relayTransport, envelope, raw) : sendDirect(envelope, raw)),
    close: () => relayTransport?.close(),
  };
}
