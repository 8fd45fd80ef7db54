import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushSender } from './push-sender.ts';

let server: Server;
let base: string;
const received = new Map<string, { sha256: string; bytes: number }>();

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/too-large') {
      response.writeHead(413).end();
      request.resume();
      return;
    }
    const hash = createHash('sha256');
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    request.on('end', () => {
      received.set(request.url ?? '', { sha256: hash.digest('hex'), bytes });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const group = Array.from({ length: 40 }, (_, index) => Buffer.alloc(100_000, 97 + (index % 26)));

describe('push sender', () => {
  it('sends corked groups and single buffers intact, whenever the source pauses', async () => {
    const sender = createPushSender({ allowPrivate: ['127.0.0.1'] });
    const sources = {
      // Pauses before, between and after big groups: each group may be written before the socket
      // connects, while it is busy, or when it is idle (uncorking then flushes it at once).
      '/before': async function* () {
        yield Buffer.from('[');
        await sleep(20);
        yield group;
        yield group;
        yield Buffer.from(']');
      },
      '/between': async function* () {
        yield Buffer.from('[');
        yield group;
        await sleep(20);
        yield group;
        await sleep(20);
        yield Buffer.from(']');
      },
      '/singles': async function* () {
        for (const part of group) yield part;
      },
    };
    for (const [path, source] of Object.entries(sources)) {
      const expected = createHash('sha256');
      let bytes = 0;
      for await (const chunk of source()) {
        for (const part of [chunk].flat()) {
          expected.update(part);
          bytes += part.length;
        }
      }
      const result = await sender.put(`${base}${path}`, { 'content-type': 'application/json' }, source(), 5_000);
      expect(result).toEqual({ status: 204, bytes });
      expect(received.get(path)).toEqual({ sha256: expected.digest('hex'), bytes });
    }
    await sender.close();
  });

  it('reports the status of a receiver that answers before reading the body', async () => {
    const sender = createPushSender({ allowPrivate: ['127.0.0.1'] });
    const result = await sender.put(
      `${base}/too-large`,
      {},
      (async function* () {
        for (let index = 0; index < 20; index++) yield group;
      })(),
      5_000,
    );
    expect(result.status).toBe(413);
    await sender.close();
  });

  it('refuses a name that resolves to a private address, and an address literal', async () => {
    const sender = createPushSender({ allowPrivate: [], lookup: async () => [{ address: '10.1.2.3', family: 4 }] });
    await expect(
      sender.put(
        'http://receiver.example/',
        {},
        (async function* () {
          yield Buffer.from('[]');
        })(),
        1_000,
      ),
    ).rejects.toThrow(/10\.1\.2\.3/);
    await expect(
      sender.put(
        `${base}/never`,
        {},
        (async function* () {
          yield Buffer.from('[]');
        })(),
        1_000,
      ),
    ).rejects.toThrow(/Refused/);
    expect(received.has('/never')).toBe(false);
    await sender.close();
  });
});
