import { isAscii } from 'node:buffer';
import { Readable } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

export type SendOutcome =
  | { outcome: 'delivered'; response: string }
  /** 4xx or no answer at all (connection refused, dropped, timed out): try again later. */
  | { outcome: 'temporary'; error: string; responseCode?: number }
  /** 5xx, or a message this hop cannot take (`status` then says why, RFC 3463): refused for good. */
  | { outcome: 'permanent'; error: string; responseCode: number; status?: string };

/**
 * Called the moment a hop answers 250 to the message data, before the session does anything else
 * (no QUIT, no next message); the session waits until the returned promise settles. This is where
 * the caller records that the destination has the message: a crash before that record resends it.
 */
export type OnAccepted = (response: string) => Promise<unknown>;

/** Where a connection goes and how it introduces itself. */
export type HopAddress = {
  host: string;
  port: number;
  /** TLS from the first byte (smtps); otherwise STARTTLS is used whenever the hop offers it. */
  secure: boolean;
  /** Name checked against the hop's certificate, when `host` is an address. */
  servername?: string;
  /**
   * Opportunistic TLS (RFC 7435), as MTAs deliver to MX hosts: STARTTLS whenever offered, any
   * certificate accepted, and plaintext when the upgrade fails. Without it, TLS errors fail the
   * session: right for a configured smarthost, which has a name and a certificate we know.
   */
  opportunistic?: boolean;
  auth?: { user: string; pass: string };
  /** Our name in EHLO. */
  hostname: string;
  timeouts: { connectionTimeout: number; greetingTimeout: number; socketTimeout: number };
};

/** One open SMTP session to a next hop, with what it said it takes. */
export type HopConnection = {
  /** RFC 6152: the hop takes 8-bit message data. */
  eightBitMime: boolean;
  /** RFC 6531: the hop takes UTF-8 addresses and headers. */
  smtpUtf8: boolean;
  /** Messages sent over this SMTP connection so far (a reused connection has sent at least one). */
  sent: number;
  /** The hop or the network ended the session; it can send nothing more. */
  readonly closed: boolean;
  send(envelope: { from: string; to: string }, raw: Buffer, onAccepted?: OnAccepted): Promise<HopSendResult>;
  /** QUIT, then close. */
  quit(): void;
};

export type HopSendResult = {
  outcome: SendOutcome;
  /** The session may carry another message (after a refusal it was reset with RSET). */
  usable: boolean;
  /** No byte of the message went out: the hop cannot have taken it, so another session may send it. */
  unsent: boolean;
};

type SmtpError = Error & { responseCode?: number; response?: string; code?: string };

export function classifySmtpError(error: SmtpError): SendOutcome {
  const text = (error.response ?? error.message).slice(0, 500);
  // A smarthost refusing our credentials is our configuration, not the message: wait for it to
  // be fixed instead of bouncing every message (Postfix defers on SASL failures too).
  if (error.code === 'EAUTH')
    return { outcome: 'temporary', error: `EAUTH: ${text}`, ...(error.responseCode ? { responseCode: error.responseCode } : {}) };
  if (error.responseCode && error.responseCode >= 500) return { outcome: 'permanent', error: text, responseCode: error.responseCode };
  if (error.responseCode) return { outcome: 'temporary', error: text, responseCode: error.responseCode };
  return { outcome: 'temporary', error: error.code ? `${error.code}: ${text}` : text };
}

/** An extension keyword in an EHLO answer ("250-8BITMIME", "250 SMTPUTF8"). */
const advertises = (ehlo: string, keyword: string) => new RegExp(`^\\d{3}[ -]${keyword}\\b`, 'im').test(ehlo);

/**
 * Opens a session with nodemailer's SMTPConnection (the same client its transports use) instead of
 * a transport, for two reasons: the hop's EHLO extensions are known before a message is chosen
 * for it (8-bit data may go only to a hop that offers 8BITMIME), and a stored message is sent as
 * it is, without being parsed again into a MailComposer tree (bench smtp).
 */
export function openHopConnection(address: HopAddress): Promise<HopConnection> {
  const connection = new SMTPConnection({
    host: address.host,
    port: address.port,
    secure: address.secure,
    name: address.hostname,
    ...(address.opportunistic ? { opportunisticTLS: true } : {}),
    tls: {
      ...(address.servername ? { servername: address.servername } : {}),
      ...(address.opportunistic ? { rejectUnauthorized: false } : {}),
    },
    ...address.timeouts,
  });
  let closed = false;
  let failure: SmtpError | null = null;
  // The connection reports a dropped or timed-out session as an event; without a listener that
  // event would end the process. A send in flight gets the same error through its callback.
  connection.on('error', (error: SmtpError) => {
    failure ??= error;
    closed = true;
  });
  connection.on('end', () => {
    closed = true;
  });

  return new Promise<HopConnection>((resolve, reject) => {
    const fail = () => reject(failure ?? Object.assign(new Error('connection closed before the greeting'), { code: 'ECONNECTION' }));
    connection.once('error', fail);
    connection.once('end', fail);
    connection.connect(() => {
      // At 'connect' the last answer is the EHLO (or HELO) answer; a HELO answer advertises nothing.
      // After a refused STARTTLS (opportunistic TLS goes on in plaintext) it is that refusal: the
      // session then counts as offering neither extension, the safe side (7-bit, no UTF-8).
      const ehlo = String(connection.lastServerResponse || '');
      const opened: HopConnection = {
        eightBitMime: advertises(ehlo, '8BITMIME'),
        smtpUtf8: advertises(ehlo, 'SMTPUTF8'),
        sent: 0,
        get closed() {
          return closed;
        },
        send: (envelope, raw, onAccepted) => sendOn(connection, opened, envelope, raw, onAccepted),
        quit: () => {
          closed = true;
          connection.quit();
        },
      };
      const finishOpening = (error?: Error | null) => {
        connection.removeListener('error', fail);
        connection.removeListener('end', fail);
        if (!error) return resolve(opened);
        connection.close();
        reject(error);
      };
      if (!address.auth) return finishOpening();
      connection.login({ user: address.auth.user, pass: address.auth.pass }, finishOpening);
    });
  });
}

function sendOn(
  connection: SMTPConnection,
  hop: HopConnection,
  envelope: { from: string; to: string },
  raw: Buffer,
  onAccepted?: OnAccepted,
): Promise<HopSendResult> {
  hop.sent += 1;
  // A stream rather than the buffer, so a failure can tell whether any of the message went out.
  const data = Readable.from([raw]);
  return new Promise((resolve) => {
    // use8BitMime declares BODY=8BITMIME (RFC 6152) when the hop offers it; the caller has made
    // sure 8-bit data goes to no other hop.
    connection.send({ from: envelope.from, to: [envelope.to], size: raw.length, use8BitMime: !isAscii(raw) }, data, (error, info) => {
      if (!error) {
        const response = String(info?.response ?? '');
        // Called here, in the callback that read the 250, so the record is under way before any
        // other work of this process gets a turn. Its failure is the caller's to handle.
        let accepted: Promise<unknown>;
        try {
          accepted = onAccepted?.(response) ?? Promise.resolve();
        } catch (hookError) {
          accepted = Promise.reject(hookError);
        }
        const done = () => resolve({ outcome: { outcome: 'delivered', response }, usable: !hop.closed, unsent: false });
        void accepted.then(done, done);
        return;
      }
      const smtpError = error as SmtpError;
      const outcome = classifySmtpError(smtpError);
      const unsent = !data.readableDidRead;
      // A refusal of the envelope or the data leaves the session itself fine: RSET and keep it.
      const refusedOnly =
        (smtpError.code === 'EENVELOPE' || smtpError.code === 'EMESSAGE') && smtpError.responseCode !== 421 && !hop.closed;
      if (!refusedOnly) {
        connection.close();
        return resolve({ outcome, usable: false, unsent });
      }
      connection.reset((resetError) => {
        if (resetError) connection.close();
        resolve({ outcome, usable: !resetError && !hop.closed, unsent });
      });
    });
  });
}
