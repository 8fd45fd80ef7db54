import { SMTPServer } from 'smtp-server';

/** A message the demo mailbox received: the envelope and the headers a reader looks at first. */
export type ReceivedMail = { receivedAt: string; from: string; to: string[]; subject: string; bytes: number; headers: string };

/**
 * The demo's smarthost (MAIL_RELAY_URL in demo mode): accepts every message Quarry forwards and
 * keeps the last ones, so a forwarded mail can be seen without a real mail server.
 */
export async function startDemoMailbox(
  host: string,
  port: number,
  maxKept = 50,
): Promise<{ port: number; messages: ReceivedMail[]; close: () => Promise<void> }> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'Quarry demo mailbox',
    size: 26_214_400,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        const headerEnd = text.search(/\r?\n\r?\n/);
        const headers = headerEnd < 0 ? text : text.slice(0, headerEnd);
        const subject = /^subject:[ \t]*(.*(?:\r?\n[ \t].*)*)/im.exec(headers)?.[1]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
        messages.unshift({
          receivedAt: new Date().toISOString(),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          subject,
          bytes: raw.length,
          headers,
        });
        messages.splice(maxKept);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
