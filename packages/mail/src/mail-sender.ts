import { isAscii } from 'node:buffer';
import { domainOf } from './addresses.ts';
import {
  classifySmtpError,
  openHopConnection,
  type HopAddress,
  type HopConnection,
  type HopSendResult,
  type OnAccepted,
  type SendOutcome,
} from './hop-connection.ts';

export type { SendOutcome } from './hop-connection.ts';

/**
 * The bytes of a message for one hop: `'as-composed'`, or `'seven-bit'` when the hop lacks
 * 8BITMIME and the composed form holds 8-bit data (RFC 6152 §3). Asked for only when needed.
 */
export type MessageForHop = (form: 'as-composed' | 'seven-bit') => Promise<Buffer>;

/**
 * One message's envelope for the next hop. `smtpUtf8`: the client asked for SMTPUTF8 when it gave
 * us the message (RFC 6531), so UTF-8 in its headers is meant as such.
 */
type OutboundEnvelope = { from: string; to: string; smtpUtf8?: boolean };

/**
 * The outbound side as the delivery use case needs it. `onAccepted` runs on the destination's 250
 * before the session is released, quit or reused, and `send` answers `delivered` once it settled.
 */
export type MailSender = {
  send(envelope: OutboundEnvelope, message: MessageForHop, onAccepted?: OnAccepted): Promise<SendOutcome>;
  close(): void;
};

/** DNS as the sender needs it; injected in tests, which never use real DNS. */
export type MxResolver = {
  mx(domain: string): Promise<Array<{ exchange: string; priority: number }>>;
  /** The host's A and AAAA addresses, in the order to try them. */
  addresses(host: string): Promise<string[]>;
};

const isAsciiText = (text: string) => !/[\u0080-\uffff]/.test(text);

/** Messages one relay session carries before it is replaced, as nodemailer's pool did. */
const maxMessagesPerSession = 1000;

/**
 * What a hop can take decides what it is sent. UTF-8 addresses need SMTPUTF8, and so do UTF-8
 * headers of a message sent to us with SMTPUTF8: RFC 6531 §3.4 has no downgrade, the message is
 * returned (Postfix: "SMTPUTF8 is required, but was not offered"). 8-bit headers of a message sent
 * without it are legacy mail and go as they are, as with Postfix. 8-bit data without 8BITMIME is
 * converted to 7 bits.
 */
async function sendToHop(
  hop: HopConnection,
  envelope: OutboundEnvelope,
  message: MessageForHop,
  onAccepted: OnAccepted | undefined,
): Promise<HopSendResult> {
  const needsSmtpUtf8 = (error: string, responseCode: number): HopSendResult => ({
    outcome: { outcome: 'permanent', error, responseCode, status: '5.6.7' },
    usable: true,
    unsent: true,
  });
  if (!hop.smtpUtf8 && !(isAsciiText(envelope.from) && isAsciiText(envelope.to))) {
    return needsSmtpUtf8('the next hop does not accept internationalized addresses (no SMTPUTF8)', 553);
  }
  let raw = await message('as-composed');
  if (!hop.smtpUtf8 && envelope.smtpUtf8 === true && !isAscii(headerSection(raw))) {
    return needsSmtpUtf8('the message has UTF-8 headers and was sent with SMTPUTF8, which the next hop does not offer', 554);
  }
  if (!hop.eightBitMime && !isAscii(raw)) raw = await message('seven-bit');
  return hop.send({ from: envelope.from, to: envelope.to }, raw, onAccepted);
}

/** The header section of a message: up to and including the blank line, or all of it if none. */
function headerSection(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  return end === -1 ? raw : raw.subarray(0, end + 4);
}

/** Sessions to one smarthost, reused up to `maxConnections` at once. */
function createHopPool(address: HopAddress, maxConnections: number) {
  // The most recently used session goes out first: the least likely to have been timed out by the hop.
  const idle: HopConnection[] = [];
  const waiting: Array<() => void> = [];
  let open = 0;
  let closed = false;

  const acquire = async (): Promise<HopConnection> => {
    for (;;) {
      // A send still waiting when the pool closes fails as a connection failure: retried later.
      if (closed) throw Object.assign(new Error('the mail sender is closing'), { code: 'ECONNECTION' });
      const reused = idle.pop();
      if (reused) {
        if (!reused.closed) return reused;
        open -= 1;
        continue;
      }
      if (open < maxConnections) {
        open += 1;
        try {
          return await openHopConnection(address);
        } catch (error) {
          open -= 1;
          waiting.shift()?.();
          throw error;
        }
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const release = (hop: HopConnection, usable: boolean) => {
    if (!closed && usable && !hop.closed && hop.sent < maxMessagesPerSession) idle.push(hop);
    else {
      if (!hop.closed) hop.quit();
      open -= 1;
    }
    waiting.shift()?.();
  };

  return {
    async send(envelope: OutboundEnvelope, message: MessageForHop, onAccepted: OnAccepted | undefined): Promise<SendOutcome> {
      for (let attempt = 0; ; attempt += 1) {
        let hop: HopConnection;
        try {
          hop = await acquire();
        } catch (error) {
          return classifySmtpError(error as Error);
        }
        const reused = hop.sent > 0;
        let result: HopSendResult;
        try {
          result = await sendToHop(hop, envelope, message, onAccepted);
        } catch (error) {
          release(hop, true);
          throw error;
        }
        release(hop, result.usable);
        // A reused session the hop dropped before any of the message went out (an idle timeout
        // racing our MAIL FROM, a 421) says nothing about this message: send it on a fresh session.
        // A 4xx refusal on a session that goes on (greylisting) is an answer, kept for the retry.
        const droppedBeforeData = result.outcome.outcome === 'temporary' && !result.usable && reused && result.unsent && attempt === 0;
        if (!droppedBeforeData) return result.outcome;
      }
    },
    close() {
      closed = true;
      for (const hop of idle.splice(0)) hop.quit();
      for (const wake of waiting.splice(0)) wake();
    },
  };
}

/**
 * Sends through the configured smarthost (`MAIL_RELAY_URL`, a pool of reused sessions) or straight
 * to the destination's MX hosts in preference order (a session per try).
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
  const relayPool = relay
    ? createHopPool(
        {
          host: relay.hostname,
          port: Number(relay.port || (relay.protocol === 'smtps:' ? 465 : 25)),
          secure: relay.protocol === 'smtps:',
          hostname: options.hostname,
          ...(relay.username ? { auth: { user: decodeURIComponent(relay.username), pass: decodeURIComponent(relay.password) } } : {}),
          timeouts,
        },
        options.maxConnections,
      )
    : null;

  const sendVia = async (
    address: HopAddress,
    envelope: OutboundEnvelope,
    message: MessageForHop,
    onAccepted: OnAccepted | undefined,
  ): Promise<SendOutcome> => {
    let hop: HopConnection;
    try {
      hop = await openHopConnection(address);
    } catch (error) {
      return classifySmtpError(error as Error);
    }
    try {
      return (await sendToHop(hop, envelope, message, onAccepted)).outcome;
    } finally {
      hop.quit();
    }
  };

  const sendDirect = async (
    envelope: OutboundEnvelope,
    message: MessageForHop,
    onAccepted: OnAccepted | undefined,
  ): Promise<SendOutcome> => {
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
        addresses = await options.resolver.addresses(host);
      } catch (error) {
        last = { outcome: 'temporary', error: `address lookup for ${host} failed: ${(error as Error).message}` };
        continue;
      }
      for (const address of addresses) {
        last = await sendVia(
          {
            host: address,
            port: options.mxPort,
            secure: false,
            servername: host,
            opportunistic: true,
            hostname: options.hostname,
            timeouts,
          },
          envelope,
          message,
          onAccepted,
        );
        // Only a connection-level failure moves on to the next host; an answer is final for this try.
        if (last.outcome !== 'temporary' || last.responseCode) return last;
      }
    }
    return last;
  };

  return {
    send: (envelope, message, onAccepted) =>
      relayPool ? relayPool.send(envelope, message, onAccepted) : sendDirect(envelope, message, onAccepted),
    close: () => relayPool?.close(),
  };
}
