import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

type SinkMessage = {
  from: string;
  to: string[];
  raw: Buffer;
  /** The MAIL FROM parameters, as smtp-server parsed them (`BODY`, `SMTPUTF8`, `SIZE`). */
  mailArgs: Record<string, unknown>;
};

/** What the sink answers to one RCPT of `address`, given how many times it was tried before (0 first). */
type SinkRule = (attempt: number) => { code: number; message: string } | null;

export type SmtpSink = {
  port: number;
  messages: SinkMessage[];
  /** Messages whose DATA arrived (whether or not the sink then accepted them). */
  dataSeen: string[];
  onRcpt(address: string, rule: SinkRule): void;
  /** Delays the final reply to DATA for mail to `address`; a client gone by then gets nothing accepted. */
  delayData(address: string, ms: number): void;
  to(address: string): SinkMessage[];
  close(): Promise<void>;
};

/**
 * A real SMTP server standing in for the destination MX or the smarthost. Like any MTA it takes
 * responsibility for a message only by answering 250 after DATA: if the client disconnects before
 * that reply, the message is dropped (RFC 5321 §6.1), which is what the crash test relies on.
 */
export async function startSmtpSink(host = '127.0.0.1'): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const dataSeen: string[] = [];
  const rules = new Map<string, SinkRule>();
  const attempts = new Map<string, number>();
  const delays = new Map<string, number>();
  const closed = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    hideENHANCEDSTATUSCODES: false,
    logger: false,
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
        setTimeout(() => {
          if (closed.has(session.id)) return;
          const mailFrom = session.envelope.mailFrom;
          messages.push({ from: mailFrom ? mailFrom.address : '', to, raw: Buffer.concat(chunks), mailArgs: (mailFrom ? mailFrom.args : {}) as Record<string, unknown> });
          callback(null, 'Queued');
        }, delay);
      });
    },
    onClose(session) {
      closed.add(session.id);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    messages,
    dataSeen,
    onRcpt: (address, rule) => rules.set(address.toLowerCase(), rule),
    delayData: (address, ms) => delays.set(address.toLowerCase(), ms),
    to: (address) => messages.filter((message) => message.to.includes(address.toLowerCase())),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
