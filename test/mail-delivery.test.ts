import { openSmtp, sendSmtp, waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivingDomain, startMailStack, type MailStack } from './support/smtp-stack.ts';

let stack: MailStack;
const at = (local: string) => `${local}@${receivingDomain}`;
const message = (subject: string) =>
  `From: Bob <bob@sender.test>\r\nTo: someone@fwd.test\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@sender.test>\r\n\r\nHello.\r\n`;

async function counters(recipient: string) {
  const result = await stack.db.query<{ received: string; delivered: string; bounced: string }>(
    `SELECT COALESCE(sum(received), 0) AS received, COALESCE(sum(delivered), 0) AS delivered, COALESCE(sum(bounced), 0) AS bounced
     FROM mail_binding_counters WHERE recipient = $1`,
    [recipient],
  );
  const row = result.rows[0];
  return { received: Number(row?.received), delivered: Number(row?.delivered), bounced: Number(row?.bounced) };
}

const storedMessages = async () => Number((await stack.db.query<{ count: string }>('SELECT count(*) FROM mail_messages')).rows[0]?.count);

beforeAll(async () => {
  stack = await startMailStack('mail_delivery');
});

afterAll(async () => {
  await stack?.stop();
});

describe('queued delivery', () => {
  it('retries a destination that answers 4xx for a while, then delivers exactly once', async () => {
    await stack.bind(at('patient'), 'greylisting@dest.test');
    stack.sink.onRcpt('greylisting@dest.test', (attempt) =>
      attempt < 3 ? { code: 451, message: '4.7.1 Greylisted, try again later' } : null,
    );
    const sent = await sendSmtp(stack.smtpPort, { from: 'bob@sender.test', to: [at('patient')], raw: message('greylisted') });
    expect(sent.data?.code).toBe(250);
    await waitFor('delivered after retries', () => stack.sink.to('greylisting@dest.test').length === 1, { timeoutMs: 20_000 });
    await waitFor('delivery recorded', async () => (await counters(at('patient'))).delivered === 1);
    // Time for any stray duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stack.sink.to('greylisting@dest.test')).toHaveLength(1);
    expect(await counters(at('patient'))).toEqual({ received: 1, delivered: 1, bounced: 0 });
    await waitFor('raw message deleted after final delivery', async () => (await storedMessages()) === 0);
    // Delivery latency is exported by the process that delivered (retries included, so > 0).
    const metrics = await (await fetch(`http://127.0.0.1:${stack.mail.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^quarry_mail_delivery_latency_seconds_count [1-9]/m);
  });

  it('bounces a message the destination refuses with 5xx back to the envelope sender, without naming the destination', async () => {
    await stack.bind(at('doomed'), 'gone@dest.test');
    stack.sink.onRcpt('gone@dest.test', () => ({ code: 550, message: '5.1.1 <gone@dest.test>: no such user' }));
    const sent = await sendSmtp(stack.smtpPort, { from: 'bob@sender.test', to: [at('doomed')], raw: message('refused') });
    expect(sent.data?.code).toBe(250);
    const [dsn] = await waitFor('bounce delivered to the sender', () =>
      stack.sink.to('bob@sender.test').length > 0 ? stack.sink.to('bob@sender.test') : undefined,
    );
    const text = dsn!.raw.toString('latin1');
    expect(dsn!.from).toBe(''); // a bounce has the null sender, so it can never bounce again
    expect(text).toMatch(/Content-Type: multipart\/report;\s+report-type=delivery-status/i);
    expect(text).toContain('Final-Recipient: rfc822; doomed@fwd.test');
    expect(text).toContain('Action: failed');
    expect(text).toContain('Status: 5.1.1');
    expect(text).toContain('Subject: refused');
    expect(text).not.toContain('gone@dest.test');
    await waitFor('bounce counted', async () => (await counters(at('doomed'))).bounced === 1);
    await waitFor('raw messages deleted', async () => (await storedMessages()) === 0);
  });

  it('drops a refused message that had the null sender instead of bouncing it', async () => {
    await stack.bind(at('nullsender'), 'refuses@dest.test');
    stack.sink.onRcpt('refuses@dest.test', () => ({ code: 554, message: '5.7.1 rejected' }));
    const before = stack.sink.messages.length;
    expect((await sendSmtp(stack.smtpPort, { from: '', to: [at('nullsender')], raw: message('null-sender') })).data?.code).toBe(250);
    await waitFor('bounce counted', async () => (await counters(at('nullsender'))).bounced === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stack.sink.messages.length).toBe(before);
  });

  it('loses nothing and duplicates nothing when the delivery worker is killed mid-delivery', async () => {
    await stack.bind(at('crash'), 'slow@dest.test');
    // The destination holds its reply to DATA; the worker dies while waiting for it.
    stack.sink.delayData('slow@dest.test', 2_500);
    const sent = await sendSmtp(stack.smtpPort, { from: 'bob@sender.test', to: [at('crash')], raw: message('crash') });
    expect(sent.data?.code).toBe(250);
    await waitFor('message data reached the destination', () => stack.sink.dataSeen.includes('slow@dest.test'));
    stack.mail.child.kill('SIGKILL');
    await stack.mail.exited;
    expect(stack.sink.to('slow@dest.test')).toHaveLength(0);

    stack.sink.delayData('slow@dest.test', 0);
    await stack.startMail();
    await waitFor('delivered by the next worker', () => stack.sink.to('slow@dest.test').length === 1, { timeoutMs: 30_000 });
    await waitFor('delivery recorded', async () => (await counters(at('crash'))).delivered === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(stack.sink.to('slow@dest.test')).toHaveLength(1);
    expect(stack.sink.dataSeen.filter((address) => address === 'slow@dest.test')).toHaveLength(2);
  });

  it('shuts down on SIGTERM: stops taking connections and exits cleanly', async () => {
    const { process: mail, smtpPort } = await stack.startMail();
    mail.child.kill('SIGTERM');
    expect((await mail.exited).code).toBe(0);
    await expect(openSmtp(smtpPort)).rejects.toThrow();
  });
});
