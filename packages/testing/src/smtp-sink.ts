import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

type SinkMessage = {
  from: string;
  to: string[];
  raw: Buffer;
  /** The MAIL FROM parameters, as smtp-server parsed them (`BODY`, `SMTPUTF8`, `SIZE`). */
  mailArgs: Record<string, unknown>;
  /** The session was under TLS. */
  secure: boolean;
};

/** What the sink answers to one RCPT of `address`, given how many times it was tried before (0 first). */
type SinkRule = (attempt: number) => { code: number; message: string } | null;

export type SmtpSink = {
  port: number;
  /** `smtp://host:port`, as MAIL_RELAY_URL takes it. */
  url: string;
  messages: SinkMessage[];
  /** Messages whose DATA arrived (whether or not the sink then accepted them). */
  dataSeen: string[];
  onRcpt(address: string, rule: SinkRule): void;
  /** Delays the final reply to DATA for mail to `address`; a client gone by then gets nothing accepted. */
  delayData(address: string, ms: number): void;
  /**
   * Holds the final reply to DATA for mail to `address` until the returned function is called:
   * the sink has the data and has not answered, the moment a sender can die in without a resend
   * being wrong. Replies held when it is called go out then.
   */
  holdData(address: string): () => void;
  /** When the sink sent 250 to DATA for each message it took, as `Date.now()`, in `messages` order. */
  acceptedAt: number[];
  to(address: string): SinkMessage[];
  /** Sessions opened so far, and the most that were open at once. */
  connections(): number;
  mostOpen(): number;
  close(): Promise<void>;
};

/**
 * A real SMTP server standing in for the destination MX or the smarthost. Like any MTA it takes
 * responsibility for a message only by answering 250 after DATA: if the client disconnects before
 * that reply, the message is dropped (RFC 5321 §6.1), which is what the crash test relies on.
 */
export async function startSmtpSink(options: { host?: string; server?: Partial<SMTPServerOptions> } = {}): Promise<SmtpSink> {
  const host = options.host ?? '127.0.0.1';
  const messages: SinkMessage[] = [];
  const dataSeen: string[] = [];
  const rules = new Map<string, SinkRule>();
  const attempts = new Map<string, number>();
  const delays = new Map<string, number>();
  const holds = new Map<string, Promise<void>>();
  const acceptedAt: number[] = [];
  const closed = new Set<string>();
  let connections = 0;
  let openNow = 0;
  let mostOpen = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    hideENHANCEDSTATUSCODES: false,
    logger: false,
    // A test's own settings and hooks (AUTH, hidden extensions, onMailFrom…); the sink keeps the
    // hooks below, which record what arrived.
    ...options.server,
    onConnect(_session, callback) {
      connections += 1;
      openNow += 1;
      mostOpen = Math.max(mostOpen, openNow);
      callback();
    },
    onRcptTo(address, _session, callback) {
      const key = address.address.toLowerCase();
      const attempt = attempts.get(key) ?? 0;
      attempts.set(key, attempt + 1);
      const verdict = rules.get(key)?.(attempt);
      if (verdict) return callback(Object.assign(new Error(verdict.message), { responseCode: verdict.code }));
      callback();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
        dataSeen.push(...to);
        const delay = Math.max(0, ...to.map((address) => delays.get(address) ?? 0));
        const held = Promise.all(to.map((address) => holds.get(address)));
        const answer = () => {
          if (closed.has(session.id)) return;
          const mailFrom = session.envelope.mailFrom;
          messages.push({
            from: mailFrom ? mailFrom.address : '',
            to,
            raw: Buffer.concat(chunks),
            mailArgs: (mailFrom ? mailFrom.args : {}) as Record<string, unknown>,
            secure: session.secure,
          });
          acceptedAt.push(Date.now());
          callback(null, 'Queued');
        };
        void held.then(() => setTimeout(answer, delay));
      });
    },
    onClose(session) {
      closed.add(session.id);
      openNow -= 1;
    },
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`,
    messages,
    dataSeen,
    onRcpt: (address, rule) => rules.set(address.toLowerCase(), rule),
    delayData: (address, ms) => delays.set(address.toLowerCase(), ms),
    holdData: (address) => {
      let release = () => {};
      const key = address.toLowerCase();
      const hold = new Promise<void>((resolve) => (release = resolve));
      holds.set(key, hold);
      return () => {
        if (holds.get(key) === hold) holds.delete(key);
        release();
      };
    },
    acceptedAt,
    to: (address) => messages.filter((message) => message.to.includes(address.toLowerCase())),
    connections: () => connections,
    mostOpen: () => mostOpen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
