import { authenticate, dkimSign } from 'mailauth';
import { Headers } from 'mailsplit';
import addressparser from 'nodemailer/lib/addressparser';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import { domainOf } from './addresses.ts';
import type { DnsLookup } from './mail-dns.ts';

export type DkimKey = { domain: string; selector: string; privateKey: string };

/** Splits a raw message at the blank line ending its header (CRLF or bare LF), without touching a byte. */
export function splitMessage(raw: Buffer): { header: Buffer; body: Buffer } {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return { header: raw, body: Buffer.alloc(0) };
  const end = crlf !== -1 && (lf === -1 || crlf < lf) ? crlf + 4 : lf + 2;
  return { header: raw.subarray(0, end), body: raw.subarray(end) };
}

/** The `Received:` line we prepend when we accept a message (RFC 5321 §4.4). */
export function receivedHeader(trace: {
  helo: string;
  clientHostname: string;
  remoteAddress: string;
  hostname: string;
  protocol: string;
  id: string;
  recipient: string | null;
  at: Date;
}): string {
  const clean = (value: string) => value.replace(/[^\x21-\x7e]/g, '').slice(0, 255) || 'unknown';
  const date = trace.at.toUTCString().replace('GMT', '+0000');
  const forClause = trace.recipient ? `\r\n\tfor <${clean(trace.recipient)}>` : '';
  return (
    `Received: from ${clean(trace.helo)} (${clean(trace.clientHostname)} [${clean(trace.remoteAddress)}])\r\n` +
    `\tby ${clean(trace.hostname)} (Quarry) with ${trace.protocol} id ${trace.id}${forClause};\r\n\t${date}\r\n`
  );
}

/** What ARC sealing needs besides the relay domain's key: DNS, our name, and the message's envelope sender. */
export type ArcSealing = { lookup: DnsLookup; hostname: string; envelopeFrom: string; onError: ((error: unknown) => void) | undefined };

/**
 * The ARC set (RFC 8617) for a forwarded message: what we can verify of it as it reached us (SPF
 * of the client that sent it, taken from our own Received line; the author's DKIM; DMARC), sealed
 * with the relay domain's key. A destination that trusts our seal can accept mail whose author
 * DMARC fails only because we forwarded it (SPF no longer aligns). mailauth does the whole
 * verification and the seal; only the ARC-* lines of its answer are kept. A message whose own ARC
 * chain is broken gets no seal (mailauth's rule), and a failure leaves the message unsealed rather
 * than undelivered.
 */
async function arcSet(message: Buffer, dkim: DkimKey, arc: ArcSealing): Promise<Buffer> {
  try {
    const key = { signingDomain: dkim.domain, selector: dkim.selector, privateKey: dkim.privateKey };
    const result = await authenticate(message, {
      trustReceived: true,
      sender: arc.envelopeFrom,
      mta: arc.hostname,
      resolver: arc.lookup as never,
      seal: key,
      disableBimi: true,
    });
    const sealHeaders = new Headers(Buffer.from(result.headers)).getList().filter((header) => header.key.startsWith('arc-'));
    return Buffer.from(sealHeaders.map((header) => `${header.line}\r\n`).join(''), 'binary');
  } catch (error) {
    arc.onError?.(error);
    return Buffer.alloc(0);
  }
}

/**
 * The bytes sent to one destination.
 *
 * keepSender: our trace header is prepended and nothing else changes, so the author's DKIM
 * signature still verifies (headers and body are byte-identical below the new lines). With a
 * DKIM key configured, an ARC set on top says what we verified on arrival (`arcSet`).
 *
 * otherwise: `From` becomes the relay sender (display name naming the author), the author goes to
 * `Reply-To` (unless the message already names one) and `X-Original-From`; the header is rebuilt
 * by mailsplit while the body bytes stay as they are, and the result is DKIM-signed for the relay
 * sender's domain so DMARC aligns with the new From.
 */
export async function composeForwardedMessage(
  raw: Buffer,
  options: { keepSender: boolean; recipient: string | null; relaySender: string; dkim: DkimKey | undefined; arc?: ArcSealing },
): Promise<Buffer> {
  const trace = options.recipient ? `Delivered-To: ${options.recipient}\r\n` : '';
  if (options.keepSender) {
    const forwarded = Buffer.concat([Buffer.from(trace), raw]);
    return options.dkim && options.arc ? Buffer.concat([await arcSet(forwarded, options.dkim, options.arc), forwarded]) : forwarded;
  }

  const { header, body } = splitMessage(raw);
  const headers = new Headers(header);
  const originalFrom = headers.getFirst('from');
  const author = addressparser(originalFrom, { flatten: true })[0];
  const address = author ? author.address.replace('@', ' at ') : 'unknown sender';
  const suffix = `via ${domainOf(options.relaySender)}`;
  const clean = (text: string) => text.replace(/["\\\r\n]/g, '');
  // The original field value is copied as it was (encoded words and all), not re-encoded.
  const fromLine = headers.get('from')[0];
  const rawFrom = fromLine ? fromLine.slice(fromLine.indexOf(':') + 1).trim() : '';
  if (rawFrom && !headers.hasHeader('reply-to')) headers.addFormatted('Reply-To', `Reply-To: ${rawFrom}`);
  if (rawFrom) headers.addFormatted('X-Original-From', `X-Original-From: ${rawFrom}`);
  headers.remove('from');
  headers.remove('sender');
  // The display name names the author. An already encoded name (RFC 2047) is kept as its encoded
  // words; a non-ASCII one is encoded, so 7-bit destinations always get a valid header.
  // mailsplit hands header text over as a binary string: raw UTF-8 bytes become one char each.
  const rawName = author?.name ?? '';
  const name = [...rawName].every((char) => char.charCodeAt(0) <= 0xff) ? Buffer.from(rawName, 'latin1').toString('utf8') : rawName;
  let phrase: string;
  if (/^(=\?[^?\s]+\?[bq]\?[^?\s]*\?=\s*)+$/i.test(name)) phrase = `${name} "(${clean(address)}) ${suffix}"`;
  else {
    const text = clean(name ? `${name} (${address}) ${suffix}` : `${address} ${suffix}`);
    phrase = /[^\x20-\x7e]/.test(text) ? encodeWord(text, 'Q', 52) : `"${text}"`;
  }
  headers.add('From', `${phrase} <${options.relaySender}>`);
  if (options.recipient) headers.add('Delivered-To', options.recipient);
  const rewritten = Buffer.concat([headers.build(), body]);
  if (!options.dkim) return rewritten;
  const key = { signingDomain: options.dkim.domain, selector: options.dkim.selector, privateKey: options.dkim.privateKey };
  // mailauth 7 signs what `signatureData` lists; the top-level key fields only satisfy its types.
  const signed = await dkimSign(rewritten, { ...key, signatureData: [key], canonicalization: 'relaxed/relaxed' });
  if (signed.errors.length > 0) throw new Error(`DKIM signing failed: ${signed.errors.map((error) => error.err.message).join('; ')}`);
  return Buffer.concat([Buffer.from(signed.signatures), rewritten]);
}

/** Counts `Received:` lines and lists `Delivered-To:` addresses of a header block (loop detection). */
export function traceOf(header: Buffer): { received: number; deliveredTo: string[] } {
  const headers = new Headers(header);
  return {
    received: headers.get('received').length,
    deliveredTo: headers.get('delivered-to').map((line) =>
      line
        .slice(line.indexOf(':') + 1)
        .trim()
        .toLowerCase(),
    ),
  };
}
