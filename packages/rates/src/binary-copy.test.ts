import { describe, expect, it } from 'vitest';
import { BinaryCopyError, binaryCopyRows, type CopiedField } from './binary-copy.ts';

/** A binary COPY stream as Postgres writes it: signature, flags, an extension, tuples, trailer. */
function copyStream(rows: Array<Array<Buffer | null>>, extension = Buffer.from('ext')): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4), Buffer.alloc(4)];
  parts[2]?.writeUInt32BE(extension.length, 0);
  parts.push(extension);
  for (const row of rows) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(row.length, 0);
    parts.push(count);
    for (const field of row) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field === null ? -1 : field.length, 0);
      parts.push(length, ...(field === null ? [] : [field]));
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

async function* chunked(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
}

async function read(source: AsyncIterable<Buffer>): Promise<Array<Array<string | null>>> {
  const rows: Array<Array<string | null>> = [];
  for await (const row of binaryCopyRows(source))
    rows.push(row.map((field: CopiedField) => (field === null ? null : Buffer.concat(field).toString('utf8'))));
  return rows;
}

describe('binaryCopyRows', () => {
  const rows = [
    [Buffer.from([0, 0, 0, 1]), Buffer.from('{"hotel":"Zürich 日本"}'), null],
    [Buffer.from([0, 0, 0, 2]), Buffer.alloc(0), Buffer.from('x'.repeat(300))],
  ];
  const expected = [
    ['\0\0\0\x01', '{"hotel":"Zürich 日本"}', null],
    ['\0\0\0\x02', '', 'x'.repeat(300)],
  ];
  const bytes = copyStream(rows);

  it('reads every field as the bytes sent, however the stream is cut into chunks', async () => {
    expect(await read(chunked(bytes, []))).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++) expect(await read(chunked(bytes, [cut]))).toEqual(expected);
    expect(
      await read(
        chunked(
          bytes,
          Array.from({ length: bytes.length - 1 }, (_, index) => index + 1),
        ),
      ),
    ).toEqual(expected);
  });

  it('hands a field back as views of the chunks it arrived in, not a copy', async () => {
    const source = Buffer.from(bytes);
    const fields: Buffer[][] = [];
    for await (const row of binaryCopyRows(chunked(source, [40]))) if (row[2]) fields.push(row[2]);
    const [large] = fields.slice(-1);
    expect(large?.every((part) => part.buffer === source.buffer)).toBe(true);
  });

  it('refuses a stream that is not binary COPY, or ends in the middle of a row', async () => {
    await expect(read(chunked(Buffer.from('hotel\tbody\n'), []))).rejects.toThrow(BinaryCopyError);
    await expect(read(chunked(bytes.subarray(0, bytes.length - 10), []))).rejects.toThrow(/ended in the middle of a row/);
  });
});
