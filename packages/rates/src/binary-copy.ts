/**
 * Rows of a binary COPY stream (`COPY (…) TO STDOUT (FORMAT binary)`), each field as the bytes
 * Postgres sent: a `text` value is its UTF-8, a `bytea` its bytes, an `int4` four big-endian bytes.
 * Nothing is decoded into a string, and a large field comes back as the views of the chunks it
 * arrived in, in order, not copied into one buffer (see the file format:
 * https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4).
 */
export type CopiedField = Buffer[] | null;

const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

export class BinaryCopyError extends Error {
  override name = 'BinaryCopyError';
}

/** A cursor over the stream's chunks: small reads may span chunks (then copied), large ones are sliced. */
class ChunkCursor {
  private chunk: Buffer = Buffer.alloc(0);
  private at = 0;
  private readonly source: AsyncIterator<Buffer>;

  constructor(source: AsyncIterator<Buffer>) {
    this.source = source;
  }

  private async advance(): Promise<void> {
    const next = await this.source.next();
    if (next.done) throw new BinaryCopyError('the binary COPY stream ended in the middle of a row');
    this.chunk = next.value;
    this.at = 0;
  }

  /** `length` bytes as one buffer: a view when they are within one chunk (headers, lengths, hashes). */
  async bytes(length: number): Promise<Buffer> {
    if (this.chunk.length - this.at >= length) {
      this.at += length;
      return this.chunk.subarray(this.at - length, this.at);
    }
    const out = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      if (this.at === this.chunk.length) await this.advance();
      const count = Math.min(length - filled, this.chunk.length - this.at);
      this.chunk.copy(out, filled, this.at, this.at + count);
      filled += count;
      this.at += count;
    }
    return out;
  }

  /** `length` bytes as the views of the chunks they are in. */
  async slices(length: number): Promise<Buffer[]> {
    const parts: Buffer[] = [];
    let left = length;
    while (left > 0) {
      if (this.at === this.chunk.length) await this.advance();
      const count = Math.min(left, this.chunk.length - this.at);
      parts.push(this.chunk.subarray(this.at, this.at + count));
      this.at += count;
      left -= count;
    }
    return parts;
  }
}

export async function* binaryCopyRows(chunks: AsyncIterable<Buffer>): AsyncGenerator<CopiedField[]> {
  const cursor = new ChunkCursor(chunks[Symbol.asyncIterator]());
  if (!(await cursor.bytes(signature.length)).equals(signature)) throw new BinaryCopyError('not a binary COPY stream');
  await cursor.bytes(4); // flags: only bit 16 (OIDs included) is defined, and no query here asks for OIDs
  await cursor.bytes((await cursor.bytes(4)).readUInt32BE(0)); // header extension, skipped as the format says
  for (;;) {
    const fieldCount = (await cursor.bytes(2)).readInt16BE(0);
    if (fieldCount === -1) return; // the trailer
    const row: CopiedField[] = [];
    for (let field = 0; field < fieldCount; field++) {
      const length = (await cursor.bytes(4)).readInt32BE(0);
      row.push(length === -1 ? null : await cursor.slices(length));
    }
    yield row;
  }
}
