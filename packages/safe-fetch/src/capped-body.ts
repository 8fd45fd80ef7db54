import { Transform, pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from './errors.ts';

/**
 * Counts bytes as they arrive rather than trusting Content-Length, which a chunked or lying server
 * can omit. Erroring the stream also destroys the source, so the socket stops reading at once.
 */
export function capBody(source: Readable, maxBytes: number, host: string): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > maxBytes) {
        callback(new ResponseTooLargeError(host, maxBytes));
        return;
      }
      callback(null, chunk);
    },
  });
  // pipeline owns error propagation in both directions; its callback has nothing left to do.
  pipeline(source, counter, () => {});
  return counter;
}

export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function declaredLength(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
