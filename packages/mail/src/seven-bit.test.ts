import { isAscii } from 'node:buffer';
import { generateKeyPairSync } from 'node:crypto';
import { authenticate } from 'mailauth';
import { describe, expect, it } from 'vitest';
import { composeForwardedMessage, splitMessage } from './forwarded-message.ts';
import { multipartSample } from '@quarry/testing';
import { downgradeTo7Bit } from './seven-bit.ts';

// A raw UTF-8 author (headers are not converted), a preamble, and a line that starts with a dot.
const multipart = multipartSample({
  from: 'Zoë <zoe@sender.test>',
  preamble: 'preamble',
  textEncoding: '8bit',
  text: 'Grüße aus Köln,\r\n.à bientôt.',
});

const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

describe('downgradeTo7Bit', () => {
  it('re-encodes 8-bit parts as quoted-printable and leaves headers, containers and base64 parts as they were', async () => {
    const out = await downgradeTo7Bit(multipart);
    const text = out.toString('latin1');
    expect(isAscii(out.subarray(text.indexOf('\r\n\r\n')))).toBe(true);
    // Headers are not converted (Postfix leaves them too).
    expect(splitMessage(out).header.equals(splitMessage(multipart).header)).toBe(true);
    const textPart = /Content-Transfer-Encoding: quoted-printable\r\n\r\n([\s\S]*?)\r\n--b1\r\n/.exec(text)?.[1];
    // The part gains the line break mailsplit ends every rewritten part with, as CRLF.
    expect(textPart && decodeQuotedPrintable(textPart)).toBe('Grüße aus Köln,\r\n.à bientôt.\r\n');
    expect(text).not.toMatch(/[^\r]\n/);
    expect(text).toContain('Content-Transfer-Encoding: base64\r\n\r\nAAECAwQF\r\n--b1--');
    expect(text).toContain('\r\n\r\npreamble\r\n--b1\r\n');
  });

  it('labels a message without MIME headers that carries 8-bit data', async () => {
    const out = await downgradeTo7Bit(Buffer.from('Subject: hi\r\n\r\nÀ bientôt.\r\n'));
    const text = out.toString('latin1');
    expect(text).toMatch(/^Content-Transfer-Encoding: quoted-printable\r$/m);
    expect(isAscii(out)).toBe(true);
    expect(text).not.toMatch(/[^\r]\n/);
    expect(decodeQuotedPrintable(text.slice(text.indexOf('\r\n\r\n') + 4))).toBe('À bientôt.\r\n');
  });

  it('converts before our DKIM signature is made, so the signature holds for what a 7-bit hop gets', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const dkim = { domain: 'relay.test', selector: 'quarry', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    const sent = await composeForwardedMessage(await downgradeTo7Bit(multipart), {
      keepSender: false,
      recipient: 'r@fwd.test',
      relaySender: 'f@relay.test',
      dkim,
    });
    const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    const resolver = async (name: string, type: string) => {
      if (type === 'TXT' && name === 'quarry._domainkey.relay.test') return [[record]];
      throw Object.assign(new Error(`no ${type} ${name}`), { code: 'ENOTFOUND' });
    };
    const result = await authenticate(sent, {
      ip: '127.0.0.1',
      helo: 'mx.test',
      sender: 'f@relay.test',
      mta: 'dest.test',
      resolver,
      disableArc: true,
      disableBimi: true,
    });
    expect(result.dkim.results.find((entry) => entry.signingDomain === 'relay.test')?.status.result).toBe('pass');
    expect(isAscii(splitMessage(sent).body)).toBe(true);
  });
});
