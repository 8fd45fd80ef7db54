import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, sendSmtp, startSmtpSink, type TestDatabase } from '@quarry/testing';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMailHousekeeping } from './housekeeping.ts';
import { createMailService, type MailService } from './mail-service.ts';
import type { MxResolver } from './mail-sender.ts';

// In-process integration: the real inbound server, Postgres and a destination MX found through an
// injected resolver (never real DNS). The queue is our own port, captured here, so each test
// decides when the "worker" runs a delivery.
let database: TestDatabase;
let pool: Pool;
let destination: SMTPServer;
let destinationPort = 0;
const received: Array<{ from: string; to: string[]; raw: string }> = [];
const jobs: Array<{ deliveryId: string; jobId: string }> = [];
/** The job queue as a mail service sees it, recording what it would enqueue. */
const recordingQueue = {
  enqueue: async (payload: { deliveryId: string }, options: { jobId: string }) =>
    void jobs.push({ deliveryId: payload.deliveryId, jobId: options.jobId }),
  enqueueMany: async (many: Array<{ payload: { deliveryId: string }; options: { jobId: string } }>) =>
    void jobs.push(...many.map((job) => ({ deliveryId: job.payload.deliveryId, jobId: job.options.jobId }))),
};
const discardingQueue = { enqueue: async () => {}, enqueueMany: async () => {} };
let service: MailService;
let smtpPort = 0;

/** The domain the service receives mail for (`MAIL_DOMAINS`). */
const domains = ['fwd.test'];

const settings = (mxPort: number) => ({
  relaySender: 'forwarder@relay.test',
  relayUrl: undefined,
  hostname: 'mx.quarry.test',
  dkim: { selector: 'quarry', privateKey: undefined },
  mxPort,
  deliveryConcurrency: 2,
  retryBaseMs: 1_000,
  retryMaxMs: 5_000,
  maxQueueLifetimeMs: 60_000,
});

const smtpSettings = {
  maxMessageBytes: 1_000_000,
  maxRecipients: 10,
  maxClients: 10,
  maxMessagesPerMinutePerIp: 1000,
  greetingDelayMs: 0,
  maxReceivedHeaders: 30,
  tls: undefined,
};

async function send(to: string, subject: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true });
  await transport.sendMail({
    envelope: { from: 'bob@sender.test', to: [to] },
    raw: `From: bob@sender.test\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nHi\r\n`,
  });
  transport.close();
}

const directResolver: MxResolver = {
  mx: async (domain) => (domain === 'dest.test' ? [{ exchange: 'mx.dest.test', priority: 10 }] : []),
  addresses: async (host) => {
    if (host === 'mx.dest.test') return ['127.0.0.1'];
    throw Object.assign(new Error(`no A record for ${host}`), { code: 'ENOTFOUND' });
  },
};

beforeAll(async () => {
  database = await createTestDatabase('mail_service');
  pool = createPool(database.url, 6);
  await pool.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ('cl_mail', 'mail', '{forwarding}', '\\x01', '\\x01')`,
  );
  destination = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          from: from ? from.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString(),
        });
        // Slow enough that two workers racing for one delivery overlap.
        setTimeout(() => callback(), 300);
      });
    },
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', () => resolve()));
  const address = destination.server.address();
  destinationPort = typeof address === 'object' && address ? address.port : 0;
  service = createMailService({
    pool,
    ...recordingQueue,
    secretKey: Buffer.alloc(32, 3),
    domains,
    mail: settings(destinationPort),
    smtp: smtpSettings,
    resolver: directResolver,
  });
  smtpPort = await service.smtp.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await service?.smtp.close();
  service?.close();
  await new Promise<void>((resolve) => destination.close(() => resolve()));
  await pool?.end();
  await database?.drop();
});

async function bindRecipient(recipient: string, forwardsTo: string, expiresIn = "interval '1 day'") {
  await pool.query(
    `INSERT INTO mail_bindings (recipient, client_id, forwards_to, expires_at) VALUES ($1, 'cl_mail', $2, now() + ${expiresIn})`,
    [recipient, forwardsTo],
  );
}

/** Binds `<name>@fwd.test`, sends it one message, and runs its delivery on every service at once; outcomes sorted, errors by name. */
async function deliverOneMessageAtOnce(name: string, runners: MailService[]): Promise<{ deliveryId: string; outcomes: string[] }> {
  await bindRecipient(`${name}@fwd.test`, `${name}@dest.test`);
  await send(`${name}@fwd.test`, name);
  const { deliveryId } = jobs.pop()!;
  const settled = await Promise.allSettled(runners.map((runner) => runner.deliver({ deliveryId })));
  const outcomes = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).name));
  return { deliveryId, outcomes: outcomes.sort() };
}

describe('mail service', () => {
  it('delivers straight to the MX the resolver names when no smarthost is configured', async () => {
    await bindRecipient('direct@fwd.test', 'someone@dest.test');
    await send('direct@fwd.test', 'direct');
    const job = jobs.pop();
    expect(job).toBeDefined();
    expect(job?.jobId).toBe(job?.deliveryId);
    expect(await service.deliver({ deliveryId: job!.deliveryId })).toBe('delivered');
    const copy = received.find((message) => message.raw.includes('Subject: direct'));
    expect(copy?.to).toEqual(['someone@dest.test']);
    expect(copy?.from).toMatch(/^SRS0=.*=sender\.test=bob@relay\.test$/);
    // A re-run of a finished job (crash after commit, or a stalled duplicate) sends nothing.
    expect(await service.deliver({ deliveryId: job!.deliveryId })).toBe('already-final');
    expect(received.filter((message) => message.raw.includes('Subject: direct'))).toHaveLength(1);
  });

  it('sends a delivery once when two workers run it at the same moment', async () => {
    const { outcomes } = await deliverOneMessageAtOnce('race', [service, service]);
    expect(outcomes).toEqual(['DeliveryBusyError', 'delivered']);
    expect(received.filter((message) => message.raw.includes('Subject: race'))).toHaveLength(1);
  });

  it('opens a new lock session when Postgres drops the one holding the delivery locks', async () => {
    await bindRecipient('session@fwd.test', 'session@dest.test');
    await send('session@fwd.test', 'session-1');
    expect(await service.deliver({ deliveryId: jobs.pop()!.deliveryId })).toBe('delivered');
    // The lock session's last statement was the group unlock.
    const dropped = await pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_advisory_unlock%'`,
    );
    expect(dropped.rowCount).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await send('session@fwd.test', 'session-2');
    expect(await service.deliver({ deliveryId: jobs.pop()!.deliveryId })).toBe('delivered');
    expect(received.filter((message) => message.raw.includes('Subject: session-2'))).toHaveLength(1);
  });

  it('sends a delivery once when workers of two processes (two lock sessions) run it at the same moment', async () => {
    // Another process's service: its own delivery store, so its own advisory-lock session.
    const otherProcess = createMailService({
      pool,
      ...discardingQueue,
      secretKey: Buffer.alloc(32, 3),
      domains,
      mail: settings(destinationPort),
      smtp: smtpSettings,
      resolver: directResolver,
    });
    try {
      const { deliveryId, outcomes } = await deliverOneMessageAtOnce('race2', [service, otherProcess]);
      expect(outcomes).toEqual(['DeliveryBusyError', 'delivered']);
      expect(received.filter((message) => message.raw.includes('Subject: race2'))).toHaveLength(1);
      // Its lock was given back: the finished delivery reads as final from either process.
      expect(await otherProcess.deliver({ deliveryId })).toBe('already-final');
    } finally {
      otherProcess.close();
    }
  });

  it('housekeeping marks expired bindings and re-enqueues a delivery whose job never reached the queue', async () => {
    await bindRecipient('lost@fwd.test', 'lost@dest.test');
    await bindRecipient('old@fwd.test', 'old@dest.test', "interval '-1 minute'");
    await send('lost@fwd.test', 'lost');
    const lost = jobs.pop()!; // as if Redis had failed right after the commit
    const result = await runMailHousekeeping(
      { db: pool, enqueue: async (payload, options) => void jobs.push({ deliveryId: payload.deliveryId, jobId: options.jobId }) },
      { overdueGraceMs: 0 },
    );
    expect(result.expired).toBe(1);
    expect(jobs.at(-1)).toEqual({ deliveryId: lost.deliveryId, jobId: lost.deliveryId });
    const state = await pool.query(`SELECT state FROM mail_bindings WHERE recipient = 'old@fwd.test'`);
    expect(state.rows[0]).toEqual({ state: 'expired' });
  });

  it('remembers whether the client asked for SMTPUTF8: such mail with UTF-8 headers is returned (5.6.7) by a destination without it, the same mail sent without it goes as it is', async () => {
    const mx = await startSmtpSink({ server: { hideSMTPUTF8: true } });
    const strict = createMailService({
      pool,
      ...recordingQueue,
      secretKey: Buffer.alloc(32, 3),
      domains,
      mail: settings(mx.port),
      smtp: smtpSettings,
      resolver: directResolver,
    });
    try {
      const strictPort = await strict.smtp.listen(0, '127.0.0.1');
      await bindRecipient('utf8@fwd.test', 'utf8@dest.test');
      const original = Buffer.from('From: Jörg <joerg@sender.test>\r\nTo: utf8@fwd.test\r\nSubject: Grüße\r\n\r\nHi\r\n');
      for (const mailParams of ['SMTPUTF8', undefined]) {
        expect(
          (
            await sendSmtp(strictPort, {
              from: 'joerg@sender.test',
              to: ['utf8@fwd.test'],
              raw: original,
              ...(mailParams ? { mailParams } : {}),
            })
          ).data?.code,
        ).toBe(250);
      }
      const asciiHeaders = Buffer.from('From: joerg@sender.test\r\nTo: utf8@fwd.test\r\nSubject: plain\r\n\r\nHi\r\n');
      expect(
        (await sendSmtp(strictPort, { from: 'joerg@sender.test', to: ['utf8@fwd.test'], raw: asciiHeaders, mailParams: 'SMTPUTF8' })).data
          ?.code,
      ).toBe(250);
      const [requested, legacy, requestedAscii] = jobs.splice(-3);

      expect(await strict.deliver({ deliveryId: requested!.deliveryId })).toBe('bounced');
      // The sender gets a DSN saying why.
      const {
        rows: [dsn],
      } = await pool.query<{ forwards_to: string; raw: Buffer }>(
        'SELECT d.forwards_to, m.raw FROM mail_deliveries d JOIN mail_messages m USING (message_id) WHERE d.delivery_id = $1',
        [jobs.at(-1)!.deliveryId],
      );
      expect(dsn?.forwards_to).toBe('joerg@sender.test');
      expect(dsn?.raw.toString()).toMatch(/^Status: 5\.6\.7$/m);
      expect(await strict.deliver({ deliveryId: legacy!.deliveryId })).toBe('delivered');
      // SMTPUTF8 asked for, but nothing in the headers needs it: delivered, as Postfix does.
      expect(await strict.deliver({ deliveryId: requestedAscii!.deliveryId })).toBe('delivered');
      const [legacyCopy, asciiCopy] = mx.to('utf8@dest.test').map((message) => message.raw.toString());
      expect(mx.to('utf8@dest.test')).toHaveLength(2);
      // The 8-bit header as it came: legacy mail, not converted (as with Postfix).
      expect(legacyCopy).toMatch(/^Subject: Grüße\r$/m);
      // Our trace line names the protocol each was received with (RFC 6531 §4.3).
      expect(legacyCopy).toMatch(/\(Quarry\) with ESMTP id /);
      expect(asciiCopy).toMatch(/\(Quarry\) with UTF8SMTP id /);
    } finally {
      await strict.smtp.close();
      strict.close();
      await mx.close();
    }
  });

  it('defers when the destination is unreachable and schedules the next attempt as its own job', async () => {
    await bindRecipient('nowhere@fwd.test', 'x@unreachable.test');
    await send('nowhere@fwd.test', 'nowhere');
    const job = jobs.pop()!;
    expect(await service.deliver({ deliveryId: job.deliveryId })).toBe('deferred');
    expect(jobs.at(-1)).toEqual({ deliveryId: job.deliveryId, jobId: `${job.deliveryId}-r1` });
    const row = await pool.query(`SELECT state, attempts, last_error FROM mail_deliveries WHERE delivery_id = $1`, [job.deliveryId]);
    expect(row.rows[0]).toMatchObject({ state: 'deferred', attempts: 1 });
  });

  it('offers STARTTLS when a certificate is configured, and accepts mail over it', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
    const tlsService = createMailService({
      pool,
      ...recordingQueue,
      secretKey: Buffer.alloc(32, 3),
      domains,
      mail: settings(destinationPort),
      smtp: {
        ...smtpSettings,
        tls: { key: fixture('test-tls.key.pem'), cert: fixture('test-tls.cert.pem') },
      },
    });
    const port = await tlsService.smtp.listen(0, '127.0.0.1');
    try {
      await bindRecipient('tls@fwd.test', 'tls@dest.test');
      // requireTLS: nodemailer fails unless the server offers STARTTLS and the upgrade succeeds.
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, requireTLS: true, tls: { rejectUnauthorized: false } });
      const info = await transport.sendMail({
        envelope: { from: 'bob@sender.test', to: ['tls@fwd.test'] },
        raw: 'From: bob@sender.test\r\nSubject: tls\r\n\r\nHi\r\n',
      });
      transport.close();
      expect(info.accepted).toEqual(['tls@fwd.test']);
      const stored = await pool.query<{ raw: Buffer }>(
        `SELECT m.raw FROM mail_messages m JOIN mail_deliveries d USING (message_id) WHERE d.forwards_to = 'tls@dest.test'`,
      );
      expect(stored.rows[0]?.raw.toString()).toMatch(/with ESMTPS id/);
    } finally {
      await tlsService.smtp.close();
      tlsService.close();
    }
  });

  it('waits SMTP_GREETING_DELAY_MS (not the fixed 100 ms of smtp-server) and refuses a client that talks first', async () => {
    const delayed = createMailService({
      pool,
      ...discardingQueue,
      secretKey: Buffer.alloc(32, 3),
      domains,
      mail: settings(destinationPort),
      smtp: { ...smtpSettings, greetingDelayMs: 600 },
    });
    const port = await delayed.smtp.listen(0, '127.0.0.1');
    const firstLine = (talkFirst: boolean) =>
      new Promise<{ line: string; ms: number }>((resolve, reject) => {
        const started = Date.now();
        const socket = connect(port, '127.0.0.1', () => {
          if (talkFirst) socket.write('EHLO early.test\r\n');
        });
        socket.once('data', (chunk: Buffer) => {
          resolve({ line: chunk.toString().split('\r\n')[0] ?? '', ms: Date.now() - started });
          socket.destroy();
        });
        socket.once('error', reject);
      });
    try {
      const polite = await firstLine(false);
      expect(polite.line).toMatch(/^220 /);
      expect(polite.ms).toBeGreaterThanOrEqual(550);
      expect((await firstLine(true)).line).toMatch(/^421 .*too soon/);
    } finally {
      await delayed.smtp.close();
      delayed.close();
    }
  });
});
