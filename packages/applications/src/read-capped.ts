import type { Readable } from 'node:stream';

/** Reads a response body whose size the safe fetch already caps (it errors past `maxBytes`). */
export async function readAllCapped(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
