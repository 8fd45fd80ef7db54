import { describe, expect, it } from 'vitest';
import { composeForwardedMessage, splitMessage, traceOf } from './forwarded-message.ts';

const raw = Buffer.from('From: =?UTF-8?Q?Zo=C3=AB?= <zoe@sender.test>\r\nSubject: hi\r\n\r\nbody\r\n.line\r\n');

describe('composeForwardedMessage', () => {
  it('keepSender: prepends the trace line and changes nothing else', async () => {
    const out = await composeForwardedMessage(raw, {
      keepSender: true,
      recipient: 'r@fwd.test',
      relaySender: 'f@relay.test',
      dkim: undefined,
    });
    expect(out.toString()).toBe(`Delivered-To: r@fwd.test\r\n${raw.toString()}`);
  });

  it('rewrites From keeping an encoded author name, copies the original field to Reply-To, keeps the body bytes', async () => {
    const out = (
      await composeForwardedMessage(raw, { keepSender: false, recipient: null, relaySender: 'f@relay.test', dkim: undefined })
    ).toString();
    expect(out).toMatch(/^From: =\?UTF-8\?Q\?Zo=C3=AB\?= "\(zoe at sender\.test\) via relay\.test"\s+<f@relay\.test>\r$/m);
    expect(out).toContain('Reply-To: =?UTF-8?Q?Zo=C3=AB?= <zoe@sender.test>\r\n');
    expect(splitMessage(Buffer.from(out)).body.toString()).toBe('body\r\n.line\r\n');
  });

  it('encodes a raw non-ASCII author name', async () => {
    const utf8 = Buffer.from('From: Zoë <zoe@sender.test>\r\n\r\nbody\r\n');
    const out = (
      await composeForwardedMessage(utf8, { keepSender: false, recipient: null, relaySender: 'f@relay.test', dkim: undefined })
    ).toString();
    expect(out).toMatch(/^From: =\?UTF-8\?Q\?Zo=C3=AB/m);
  });

  it('reads the loop-detection trace of a header', () => {
    const header = Buffer.from('Received: a\r\nReceived: b\r\nDelivered-To: X@Fwd.test\r\n\r\n');
    expect(traceOf(header)).toEqual({ received: 2, deliveredTo: ['x@fwd.test'] });
  });
});
