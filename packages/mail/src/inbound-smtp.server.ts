import type net from 'node:net';
import type tls from 'node:tls';
import { type Queryable } from '@quarry/db';
import { findActiveBinding } from './bindings.queries.ts';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { SMTPConnection, type SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';
import { domainOf, normalizeAddress } from './addresses.ts';
import type { DeliveryTarget, IncomingMessage } from './accept-message.ts';
import { receivedHeader, splitMessage, traceOf } from './forwarded-message.ts';
import type { Srs } from './srs.ts';

export type InboundSettings = {
  hostname: string;
  /** Domains whose bound recipients we accept, plus the relay sender's domain (SRS bounces). */
  domains: readonly string[];
  srsDomain: string;
  maxMessageBytes: number;
  maxRecipients: number;
  maxClients: number;
  /** Connections one client address may hold at once (Postfix's smtpd_client_connection_count_limit: 50). */
  maxConnectionsPerClient?: number;
  /** Idle timeout while every slot is taken (Postfix under stress: 10 s instead of 300 s). */
  busyIdleTimeoutMs?: number;
  maxMessagesPerMinutePerIp: number;
  greetingDelayMs: number;
  maxReceivedHeaders: number;
  tls: { key: string; cert: string } | undefined;
  reusePort?: boolean;
};

export type InboundPorts = {
  db: Queryable;
  srs: Srs;
  accept: (message: IncomingMessage) => Promise<{ messageId: string }>;
  now: () => Date;
  onError?: (error: unknown, where: string) => void;
};

export type InboundSmtpServer = { listen(port: number, host: string): Promise<number>; close(): Promise<void> };

const IDLE_TIMEOUT_MS = 5 * 60_000;

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * smtp-server holds every new connection 100 ms before its greeting to catch clients that talk
 * first, a fixed delay that caps one sending session at ~10 connections a second. Postfix's smtpd
 * greets at once (its pregreet test lives in postscreen and is off by default), and our server is
 * no open relay, so the delay is ours to choose: `SMTP_GREETING_DELAY_MS` (default 0, ADR 0013).
 * This replaces `connect()` of smtp-server 3.21 with the same steps and a configurable delay; an
 * early talker is still refused with 421 while the delay runs.
 */
class QuarrySmtpServer extends SMTPServer {
  greetingDelayMs = 0;
  maxConnectionsPerClient = 50;
  idleTimeoutMs = IDLE_TIMEOUT_MS;
  busyIdleTimeoutMs = 10_000;
  private busy = false;

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new SMTPConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on('error', (error: Error) => this._onError(error));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection._setListeners(() => {
      if (this.options.maxClients && this.connections.size > this.options.maxClients) {
        connection.send(421, `${connection.name} Too many connected clients, try again in a moment`, false);
        return;
      }
      // One address must not hold every slot and lock all other senders out (Postfix's anvil
      // limit). Counted per process, like maxClients.
      let fromAddress = 0;
      for (const other of this.connections) if (other.remoteAddress === connection.remoteAddress) fromAddress += 1;
      if (fromAddress > this.maxConnectionsPerClient) {
        connection.send(421, `4.7.0 ${connection.name} Error: too many connections from ${connection.remoteAddress}`, false);
        return;
      }
      const timer = setTimeout(() => connection.connectionReady(), this.greetingDelayMs);
      timer.unref();
    });
    // _setListeners has registered smtp-server's own close listener: this one runs after the
    // connection left `connections`.
    socket.once('close', () => this.followLoad());
    this.followLoad();
  }

  /**
   * While every slot is taken, idle clients get the short timeout (Postfix's stress mode), so slots
   * held by silent connections come free within seconds for senders with mail; once a slot is
   * free again, the normal timeout applies. A connection waiting for our answer (a handler, the
   * commit of DATA) is never timed out by smtp-server, busy or not.
   */
  private followLoad(): void {
    const busy = this.connections.size >= (this.options.maxClients ?? Number.POSITIVE_INFINITY);
    if (busy === this.busy) return;
    this.busy = busy;
    this.options.socketTimeout = busy ? this.busyIdleTimeoutMs : this.idleTimeoutMs;
    // Re-arms each idle timer with the new length, counted from now.
    for (const connection of this.connections) connection._armTimeout();
  }
}

/** Per-IP message rate over a rolling minute; in memory, so per process. */
function createRateLimiter(perMinute: number, now: () => number) {
  let windowStart = now();
  let counts = new Map<string, number>();
  return (ip: string): boolean => {
    if (now() - windowStart >= 60_000) {
      windowStart = now();
      counts = new Map();
    }
    const count = (counts.get(ip) ?? 0) + 1;
    counts.set(ip, count);
    return count <= perMinute;
  };
}

/**
 * The inbound MX. Recipients are checked at RCPT time against active, unexpired bindings in
 * Postgres (no cache: a deletion or extension made by any process applies to the next RCPT), so
 * the server is never an open relay and rejects before DATA, leaving bounces to the sender's MTA.
 * 250 after DATA is answered only once the message is committed (see `acceptMessage`).
 */
export function createInboundSmtpServer(ports: InboundPorts, settings: InboundSettings): InboundSmtpServer {
  const targetsBySession = new WeakMap<SMTPServerSession, Map<string, DeliveryTarget>>();
  const allowMessage = createRateLimiter(settings.maxMessagesPerMinutePerIp, () => ports.now().getTime());

  const resolveTarget = async (address: string, session: SMTPServerSession): Promise<DeliveryTarget> => {
    const recipient = normalizeAddress(address);
    const domain = domainOf(recipient);
    if (domain === settings.srsDomain && ports.srs.isSrsAddress(recipient)) {
      // A bounce coming back for mail we forwarded with an SRS sender: relay it to the original
      // sender, but only bounces (null sender) and only with a valid, fresh hash, or anyone could
      // use us as a relay through a harvested SRS address.
      const original = ports.srs.reverse(address.trim());
      if (!original) throw smtpError(553, 'Invalid or expired SRS address');
      if (session.envelope.mailFrom && session.envelope.mailFrom.address)
        throw smtpError(550, 'Only bounces are accepted for this address');
      return { recipient: null, forwardsTo: original, keepSender: true, kind: 'srs-return' };
    }
    if (!settings.domains.includes(domain)) throw smtpError(550, `<${recipient}>: Recipient address rejected: relay access denied`);
    const binding = await findActiveBinding(ports.db, recipient);
    if (!binding) throw smtpError(550, `<${recipient}>: Recipient address rejected: no such user`);
    return { recipient, forwardsTo: binding.forwardsTo, keepSender: binding.keepSender, kind: 'forward' };
  };

  const server = new QuarrySmtpServer({
    name: settings.hostname,
    banner: 'Quarry ESMTP',
    size: settings.maxMessageBytes,
    rejectOversized: true,
    maxRecipients: settings.maxRecipients,
    maxClients: settings.maxClients,
    authOptional: true,
    disabledCommands: settings.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(settings.tls ? { key: settings.tls.key, cert: settings.tls.cert } : {}),
    hideENHANCEDSTATUSCODES: false,
    hideDSN: true,
    // Reverse DNS of every client would leave loopback in tests and slow every connection.
    disableReverseLookup: true,
    logger: false,
    socketTimeout: IDLE_TIMEOUT_MS,
    closeTimeout: 30_000,
    onMailFrom(address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void) {
      targetsBySession.set(session, new Map());
      if (!allowMessage(session.remoteAddress)) {
        callback(smtpError(450, 'Too many messages from your address, slow down'));
        return;
      }
      callback();
    },
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (error?: Error | null) => void) {
      resolveTarget(address.address, session).then(
        (target) => {
          let targets = targetsBySession.get(session);
          if (!targets) targetsBySession.set(session, (targets = new Map()));
          targets.set(normalizeAddress(address.address), target);
          callback();
        },
        (error: Error & { responseCode?: number }) => {
          if (error.responseCode) {
            callback(error);
            return;
          }
          ports.onError?.(error, 'smtp rcpt');
          callback(smtpError(451, 'Temporary lookup failure, try again later'));
        },
      );
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, reply: (error?: Error | null, message?: string) => void) {
      // A stream error may be followed by 'end': the client gets exactly one answer.
      let answered = false;
      const callback = (error?: Error | null, message?: string) => {
        if (answered) return;
        answered = true;
        reply(error, message);
      };
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', () => {
        // Oversize is answered 552 5.3.4 by smtp-server itself (rejectOversized).
        if (stream.sizeExceeded) {
          callback(smtpError(552, 'Message exceeds fixed maximum message size'));
          return;
        }
        const raw = Buffer.concat(chunks);
        const targets = [...(targetsBySession.get(session)?.values() ?? [])];
        const trace = traceOf(splitMessage(raw).header);
        if (trace.received >= settings.maxReceivedHeaders) {
          callback(smtpError(554, `Routing loop detected: ${trace.received} Received headers`));
          return;
        }
        if (targets.some((target) => target.recipient && trace.deliveredTo.includes(target.recipient))) {
          callback(smtpError(554, 'Routing loop detected: this message was already delivered to this address'));
          return;
        }
        const firstRecipient = session.envelope.rcptTo.length === 1 ? (session.envelope.rcptTo[0]?.address ?? null) : null;
        const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
        const received = receivedHeader({
          helo: session.hostNameAppearsAs || 'unknown',
          // Without reverse DNS smtp-server reports "[ip]"; Postfix writes "unknown" there.
          clientHostname: session.clientHostname === `[${session.remoteAddress}]` ? 'unknown' : session.clientHostname,
          remoteAddress: session.remoteAddress,
          hostname: settings.hostname,
          protocol: receivedWith(session),
          id,
          recipient: firstRecipient,
          at: ports.now(),
        });
        const mailFrom = session.envelope.mailFrom;
        ports
          .accept({
            envelopeFrom: mailFrom ? normalizeAddress(mailFrom.address) : '',
            smtpUtf8: session.envelope.smtpUtf8 === true,
            raw: Buffer.concat([Buffer.from(received), raw]),
            targets,
          })
          .then(
            ({ messageId }) => callback(null, `Message queued as ${messageId}`),
            (error: unknown) => {
              ports.onError?.(error, 'smtp accept');
              callback(smtpError(451, 'Local error in processing, try again later'));
            },
          );
      });
    },
  });
  server.greetingDelayMs = settings.greetingDelayMs;
  server.maxConnectionsPerClient = settings.maxConnectionsPerClient ?? 50;
  server.busyIdleTimeoutMs = settings.busyIdleTimeoutMs ?? 10_000;
  server.on('error', (error) => ports.onError?.(error, 'smtp server'));

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.server.once('error', reject);
        server.listen({ port, host, reusePort: settings.reusePort === true }, () => {
          server.server.off('error', reject);
          const address = server.server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    // Stops accepting; sessions in progress get "421 Server shutting down" at their next command.
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The protocol our Received line names. RFC 6531 §4.3: a transaction that used SMTPUTF8 is "UTF8SMTP" (…S, …A, …SA), not "ESMTP". */
function receivedWith(session: SMTPServerSession): string {
  const protocol = session.transmissionType || 'ESMTP';
  return session.envelope.smtpUtf8 === true ? protocol.replace(/^ESMTP/, 'UTF8SMTP') : protocol;
}
