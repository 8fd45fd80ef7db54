// mailsplit ships no types; this declares what we use: header edits that keep the body bytes, and
// the split → rewrite → join pipeline of the 7-bit downgrade.
declare module 'mailsplit' {
  import type { Readable, Writable } from 'node:stream';
  import { Transform } from 'node:stream';

  export class Headers {
    constructor(headers: Buffer | string);
    get(key: string): string[];
    /** Every header in order: its lower-case key and its whole (folded) line. */
    getList(): Array<{ key: string; line: string }>;
    getFirst(key: string): string;
    hasHeader(key: string): boolean;
    add(key: string, value: string, index?: number): void;
    /** Adds an already formatted (folded, encoded) `Key: value` line as is. */
    addFormatted(key: string, line: string, index?: number): void;
    remove(key: string): void;
    update(key: string, value: string): void;
    build(lineEnd?: string): Buffer;
  }

  /** One MIME part as the splitter sees it (type 'node'). */
  export type MimePart = {
    type: 'node';
    multipart: string | false;
    contentType: string | false;
    /** Content-Transfer-Encoding, lower case ('' when absent). */
    encoding: string | false;
  };
  export class Splitter extends Transform {}
  export class Joiner extends Transform {}
  /**
   * Re-encodes the body of every part `filter` picks: it is decoded, handed over, and whatever is
   * written back is encoded as quoted-printable unless the part already was base64 or QP.
   */
  export class Rewriter extends Transform {
    constructor(filter: (part: MimePart) => boolean);
    on(event: 'node', listener: (pair: { node: MimePart; decoder: Readable; encoder: Writable }) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
