import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Joiner, Rewriter, Splitter, type MimePart } from 'mailsplit';

/** Parts whose bytes go out as they are: containers, and parts already in a 7-bit encoding. */
const keepsItsEncoding = (part: MimePart) =>
  Boolean(part.multipart) || part.contentType === 'message/rfc822' || part.encoding === 'base64' || part.encoding === 'quoted-printable';

/**
 * mailsplit ends every rewritten part with a line break, and adds a bare LF when the part did not
 * end with one. A CRLF at the end of the decoded content keeps the output free of bare LFs (which
 * would be sent as CRLF, after our DKIM signature was made over LF).
 */
function endingWithLineBreak(): Transform {
  let last = -1;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (chunk.length > 0) last = chunk[chunk.length - 1] ?? -1;
      callback(null, chunk);
    },
    flush(callback) {
      callback(null, last === 0x0a ? null : Buffer.from('\r\n'));
    },
  });
}

/**
 * The 8-bit → 7-bit conversion of RFC 6152 §3 for a next hop without 8BITMIME: every leaf part
 * that is not base64 or quoted-printable already is re-encoded as quoted-printable, by mailsplit
 * (its Content-Transfer-Encoding is rewritten with it). Headers stay as they are, as Postfix
 * leaves them. Conversion changes the body, so a signature over it no longer verifies: the
 * caller converts before it signs.
 */
export async function downgradeTo7Bit(raw: Buffer): Promise<Buffer> {
  const rewriter = new Rewriter((part) => !keepsItsEncoding(part));
  rewriter.on('node', ({ decoder, encoder }) => {
    decoder.pipe(endingWithLineBreak()).pipe(encoder);
  });
  const chunks: Buffer[] = [];
  await pipeline(Readable.from([raw]), new Splitter(), rewriter, new Joiner(), async (joined: AsyncIterable<Buffer>) => {
    for await (const chunk of joined) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}
