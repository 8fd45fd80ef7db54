import { sendSmtp, waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receivingDomain, startMailStack, type MailStack } from './support/smtp-stack.ts';

// No smarthost: the mail process looks the destination up in DNS (a server on loopback) and
// delivers to its MX host, which here has only an IPv6 address.
let stack: MailStack;

beforeAll(async () => {
  stack = await startMailStack('mail_mx', {}, 'direct-mx');
});

afterAll(async () => {
  await stack?.stop();
});

describe('delivery to the destination’s MX', () => {
  it('follows the MX records in preference order, past a host without an address, to an IPv6-only host', async () => {
    stack.dns.serve({
      // Listed out of order; the preferred host has no address at all, the next one only AAAA.
      'MX:dest.test': ['20 mx2.dest.test', '10 mx1.dest.test'],
      'AAAA:mx2.dest.test': '::1',
    });
    await stack.bind(`direct@${receivingDomain}`, 'someone@dest.test');
    const sent = await sendSmtp(stack.smtpPort, {
      from: 'bob@sender.test',
      to: [`direct@${receivingDomain}`],
      raw: 'From: Bob <bob@sender.test>\r\nTo: direct@fwd.test\r\nSubject: via MX\r\n\r\nHello.\r\n',
    });
    expect(sent.data?.code).toBe(250);
    const [received] = await waitFor('delivered over IPv6', () =>
      stack.sink.to('someone@dest.test').length > 0 ? stack.sink.to('someone@dest.test') : undefined,
    );
    expect(received?.raw.toString()).toContain('Subject: via MX');
  });
});
