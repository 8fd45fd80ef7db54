import { connect, type Socket } from 'node:net';

export type SmtpReply = { code: number; text: string };

/**
 * A minimal SMTP client over a raw socket, so tests see every reply code and text exactly as the
 * server wrote it (nodemailer would fold failures into one error).
 */
export type SmtpClient = {
  greeting: SmtpReply;
  command(line: string): Promise<SmtpReply>;
  /** Sends the message text after a 354, dot-stuffed, and returns the final reply. */
  data(raw: Buffer | string): Promise<SmtpReply>;
  close(): Promise<void>;
};

export async function openSmtp(port: number, host = '127.0.0.1'): Promise<SmtpClient> {
  const socket: Socket = connect(port, host);
  let buffered = '';
  const waiting: Array<(reply: SmtpReply) => void> = [];
  const replies: SmtpReply[] = [];
  let current: string[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    let newline: number;
    while ((newline = buffered.indexOf('\r\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 2);
      current.push(line.slice(4));
      if (line[3] === '-') continue;
      const reply = { code: Number(line.slice(0, 3)), text: current.join('\n') };
      current = [];
      const next = waiting.shift();
      if (next) next(reply);
      else replies.push(reply);
    }
  });
  // A refused connection fails the open; errors after the greeting surface as missing replies.
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  const nextReply = () =>
    new Promise<SmtpReply>((resolve, reject) => {
      const queued = replies.shift();
      if (queued) return resolve(queued);
      const timer = setTimeout(() => reject(new Error('no SMTP reply within 20 s')), 20_000);
      waiting.push((reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  const greeting = await nextReply();
  const client: SmtpClient = {
    greeting,
    command(line) {
      socket.write(`${line}\r\n`);
      return nextReply();
    },
    async data(raw) {
      const start = await client.command('DATA');
      if (start.code !== 354) return start;
      const text = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      const normalized = text.toString('latin1').replace(/\r?\n/g, '\r\n');
      const stuffed = normalized.replace(/^\./gm, '..');
      socket.write(Buffer.from(`${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`, 'latin1'));
      return nextReply();
    },
    async close() {
      socket.end('QUIT\r\n');
      await new Promise((resolve) => socket.once('close', resolve));
    },
  };
  return client;
}

/** One whole transaction; returns the replies to MAIL, each RCPT and DATA (DATA only if a RCPT passed). */
export async function sendSmtp(
  port: number,
  message: { from: string; to: string[]; raw: Buffer | string; mailParams?: string },
): Promise<{ mail: SmtpReply; rcpt: SmtpReply[]; data: SmtpReply | null }> {
  const client = await openSmtp(port);
  try {
    await client.command('EHLO client.test');
    const mail = await client.command(`MAIL FROM:<${message.from}>${message.mailParams ? ` ${message.mailParams}` : ''}`);
    const rcpt: SmtpReply[] = [];
    for (const to of message.to) rcpt.push(await client.command(`RCPT TO:<${to}>`));
    const data = mail.code === 250 && rcpt.some((reply) => reply.code === 250) ? await client.data(message.raw) : null;
    return { mail, rcpt, data };
  } finally {
    await client.close();
  }
}
