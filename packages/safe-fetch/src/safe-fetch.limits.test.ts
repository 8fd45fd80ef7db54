import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchTimeoutError, ResponseTooLargeError } from './errors.ts';
import { createSafeFetch } from './safe-fetch.ts';
import type { SafeFetch, SafeFetchOptions } from './safe-fetch.ts';
import { startServer } from '@quarry/testing/safe-fetch';
import type { Handler, TestServer } from '@quarry/testing/safe-fetch';

// /declared/<n>: Content-Length n, then the headers only (the body never comes, so only an up-front
// refusal can settle in time). /chunked/<n>: n bytes in 100-byte chunks, no Content-Length.
// /trickle/<n>: the same, one chunk every 5 ms. /silent: never answers. /stall: headers and a first chunk, then nothing. /json/<n>: n-byte JSON, chunked.
const handler: Handler = (request, response) => {
  const [, route = '', size = '0'] = (request.url ?? '').split('/');
  const bytes = Number(size);
  if (route === 'declared') {
    response.writeHead(200, { 'content-length': String(bytes) });
    response.flushHeaders();
  } else if (route === 'chunked') {
    response.writeHead(200, { 'content-type': 'text/plain' });
    for (let sent = 0; sent < bytes; sent += 100) response.write('x'.repeat(Math.min(100, bytes - sent)));
    response.end();
  } else if (route === 'trickle') {
    response.writeHead(200);
    let sent = 0;
    const timer = setInterval(() => {
      sent += 100;
      if (sent > bytes) {
        clearInterval(timer);
        response.end();
      } else {
        response.write('y'.repeat(100));
      }
    }, 5);
    response.on('close', () => {
      clearInterval(timer);
      if (!response.writableFinished) abandoned.push(sent);
    });
  } else if (route === 'stall') {
    response.writeHead(200);
    response.write('first chunk');
  } else if (route === 'json') {
    response.setHeader('content-type', 'application/json');
    response.write('{"pad":');
    response.end(JSON.stringify('p'.repeat(Math.max(0, bytes - 10))) + '}');
  } else if (route !== 'silent') {
    response.end('ok');
  }
};

let server: TestServer;
/** Bytes a /trickle response had sent when the client hung up on it. */
const abandoned: number[] = [];

beforeAll(async () => {
  server = await startServer(handler);
});

afterAll(async () => {
  await server.close();
});

function makeFetch(options: Partial<SafeFetchOptions> = {}): SafeFetch {
  return createSafeFetch({ allowPrivate: ['127.0.0.1'], timeoutMs: 5_000, ...options });
}

describe('response size cap', () => {
  it('refuses up front when Content-Length exceeds maxBytes', async () => {
    const safeFetch = makeFetch({ maxBytes: 1_000 });
    const started = Date.now();
    const error = await safeFetch(`${server.origin}/declared/1001`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ host: '127.0.0.1', maxBytes: 1_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    await safeFetch.close();
  });

  it('errors the streamed body once a response without Content-Length passes maxBytes, and hangs up', async () => {
    const safeFetch = makeFetch({ maxBytes: 1_000 });
    const started = Date.now();
    const response = await safeFetch(`${server.origin}/trickle/100000`);
    expect(response.headers.get('content-length')).toBeNull();
    let received = 0;
    const error = await (async () => {
      for await (const chunk of response.body) received += (chunk as Buffer).length;
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThanOrEqual(1_000);
    // 100 000 bytes would take 5 s to trickle in; the socket is closed as soon as the cap is passed.
    await expect.poll(() => abandoned.length).toBe(1);
    expect(abandoned[0]).toBeLessThan(10_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    await safeFetch.close();
  });

  it('rejects text(), json() and arrayBuffer() past the cap', async () => {
    const safeFetch = makeFetch({ maxBytes: 1_000 });
    await expect((await safeFetch(`${server.origin}/chunked/1001`)).text()).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect((await safeFetch(`${server.origin}/json/2000`)).json()).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect((await safeFetch(`${server.origin}/chunked/3000`)).arrayBuffer()).rejects.toBeInstanceOf(ResponseTooLargeError);
    await safeFetch.close();
  });

  it('delivers a body of exactly maxBytes in full', async () => {
    const safeFetch = makeFetch({ maxBytes: 1_000 });
    expect(await (await safeFetch(`${server.origin}/chunked/1000`)).text()).toBe('x'.repeat(1_000));
    const buffer = await (await safeFetch(`${server.origin}/chunked/999`)).arrayBuffer();
    expect(buffer.byteLength).toBe(999);
    expect(await (await safeFetch(`${server.origin}/json/100`)).json()).toEqual({ pad: 'p'.repeat(90) });
    await safeFetch.close();
  });

  it('lets a call lower or raise the cap', async () => {
    const safeFetch = makeFetch({ maxBytes: 1_000 });
    await expect(safeFetch(`${server.origin}/declared/600`, { maxBytes: 500 })).rejects.toBeInstanceOf(ResponseTooLargeError);
    expect(await (await safeFetch(`${server.origin}/chunked/4000`, { maxBytes: 4_000 })).text()).toHaveLength(4_000);
    await safeFetch.close();
  });

  it('defaults to 10 MB', async () => {
    const safeFetch = makeFetch();
    await expect(safeFetch(`${server.origin}/declared/${10 * 1024 * 1024 + 1}`)).rejects.toBeInstanceOf(ResponseTooLargeError);
    const response = await safeFetch(`${server.origin}/chunked/${10 * 1024 * 1024}`);
    expect((await response.arrayBuffer()).byteLength).toBe(10 * 1024 * 1024);
    await safeFetch.close();
  });

  it('reads a body once', async () => {
    const safeFetch = makeFetch();
    const response = await safeFetch(`${server.origin}/`);
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe('ok');
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow('already been read');
    await safeFetch.close();
  });
});

describe('total time cap', () => {
  it('gives up on a server that never answers', async () => {
    const safeFetch = makeFetch({ timeoutMs: 200 });
    const started = Date.now();
    const error = await safeFetch(`${server.origin}/silent`).catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(FetchTimeoutError);
    expect(error).toMatchObject({ host: '127.0.0.1', timeoutMs: 200 });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2_000);
    await safeFetch.close();
  });

  it('also bounds the connect phase, here a DNS answer that never comes', async () => {
    // The per-call timeout is the shorter one, so undici's connect timeout (capped by the configured
    // 1 s) cannot be what ends this.
    const safeFetch = makeFetch({ timeoutMs: 1_000, lookup: () => new Promise(() => undefined) });
    const started = Date.now();
    await expect(safeFetch('http://slow-dns.test/', { timeoutMs: 100 })).rejects.toBeInstanceOf(FetchTimeoutError);
    expect(Date.now() - started).toBeLessThan(700);
    await safeFetch.close();
  });

  it('lets a call shorten the configured timeout', async () => {
    const safeFetch = makeFetch({ timeoutMs: 30_000 });
    const started = Date.now();
    await expect(safeFetch(`${server.origin}/silent`, { timeoutMs: 150 })).rejects.toBeInstanceOf(FetchTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    await safeFetch.close();
  });

  it('also bounds reading the body, since the cap is on the whole fetch', async () => {
    const safeFetch = makeFetch({ timeoutMs: 300 });
    const started = Date.now();
    const response = await safeFetch(`${server.origin}/stall`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toBeInstanceOf(FetchTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    await safeFetch.close();
  });

  it('passes an abort from the caller through', async () => {
    const safeFetch = makeFetch();
    const controller = new AbortController();
    const pending = safeFetch(`${server.origin}/silent`, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    await safeFetch.close();
  });
});
