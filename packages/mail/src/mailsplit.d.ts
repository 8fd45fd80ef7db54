// mailsplit ships no types; this declares the one class we use (header edits that keep the body bytes).
declare module 'mailsplit' {
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
}
