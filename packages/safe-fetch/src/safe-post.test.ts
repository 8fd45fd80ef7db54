import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchTimeoutError, UnsafeUrlError } from './errors.ts';
import { createSafeFetch } from './safe-fetch.ts';
import { mapLookup, startServer } from '@quarry/testing/safe-fetch';
import type { Handler, TestServer } from '@quarry/testing/safe-fetch';

// /ok: 204. /moved: a 302 to /ok. /silent: never answers. /big/<n>: 200 and an n-byte body.
const handler: Handler = (request, response) => {
  const [, route = '', size = '0'] = (request.url ?? '').split('?')[0]?.split('/') ?? [];
  if (route === 'ok') response.writeHead(204).end();
  else if (route === 'moved') response.writeHead(302, { location: '/ok' }).end();
  else if (route === 'big') response.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(Number(size)));
  else if (route !== 'silent') response.writeHead(404).end();
};

let server: TestServer;

beforeAll(async () => {
  server = await startServer(handler);
});

afterAll(async () => {
  await server.close();
});

const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1' };

describe('SafeFetch.post', () => {
  it('sends the body and headers with the user agent, and answers with the status only', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], userAgent: 'Quarry/test' });
    try {
      const before = server.hits.length;
      const answer = await safeFetch.post(`${server.origin}/ok?x=1`, { headers, body: '{"a":1}' });
      expect(answer).toEqual({ status: 204 });
      const hit = server.hits[before];
      expect(hit).toMatchObject({ method: 'POST', url: '/ok?x=1', body: '{"a":1}' });
      expect(hit?.headers).toMatchObject({ 'user-agent': 'Quarry/test', 'content-type': 'application/json', 'webhook-id': 'msg_1' });
    } finally {
      await safeFetch.close();
    }
  });

  it('does not follow a redirect: its status is the answer', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    try {
      const before = server.hits.length;
      expect(await safeFetch.post(`${server.origin}/moved`, { headers, body: '{}' })).toEqual({ status: 302 });
      expect(server.hits.slice(before).map((hit) => hit.url)).toEqual(['/moved']);
    } finally {
      await safeFetch.close();
    }
  });

  it('refuses a private address outside the policy before any connection, literal or resolved', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: [], lookup: mapLookup({ 'hooks.example': ['127.0.0.1'] }) });
    try {
      const connections = server.connections();
      await expect(safeFetch.post(`${server.origin}/ok`, { headers, body: '{}' })).rejects.toThrow(UnsafeUrlError);
      await expect(safeFetch.post(`http://hooks.example:${server.port}/ok`, { headers, body: '{}' })).rejects.toMatchObject({
        reason: 'private-address',
      });
      await expect(safeFetch.post('file:///etc/passwd', { headers, body: '{}' })).rejects.toMatchObject({ reason: 'scheme' });
      expect(server.connections()).toBe(connections);
    } finally {
      await safeFetch.close();
    }
  });

  it('gives up on an answer that does not come within timeoutMs, with a FetchTimeoutError naming the host', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    try {
      const started = Date.now();
      const error = await safeFetch
        .post(`${server.origin}/silent`, { headers, body: '{}', timeoutMs: 300 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FetchTimeoutError);
      expect((error as FetchTimeoutError).message).toContain('127.0.0.1');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await safeFetch.close();
    }
  });

  it("stops at its caller's signal", async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    try {
      const controller = new AbortController();
      const pending = safeFetch.post(`${server.origin}/silent`, { headers, body: '{}', signal: controller.signal, timeoutMs: 10_000 });
      setTimeout(() => controller.abort(new Error('shutting down')), 100);
      await expect(pending).rejects.toThrow('shutting down');
    } finally {
      await safeFetch.close();
    }
  });

  it('reuses its keep-alive connections across many POSTs, drops an answer past maxBytes, and keeps going', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const connections = server.connections();
      // One caller's signal shared by every POST in flight, as a delivery job's is.
      const { signal } = new AbortController();
      for (let round = 0; round < 4; round += 1) {
        const answers = await Promise.all(
          Array.from({ length: 25 }, () => safeFetch.post(`${server.origin}/ok`, { headers, body: '{}', signal })),
        );
        expect(answers.every((answer) => answer.status === 204)).toBe(true);
      }
      // Keep-alive: far fewer connections than POSTs (undici opens a few more when a round starts before the last answer's socket is free).
      expect(server.connections() - connections).toBeLessThanOrEqual(60);
      expect(await safeFetch.post(`${server.origin}/big/100000`, { headers, body: '{}', maxBytes: 1_000 })).toEqual({ status: 200 });
      expect(await safeFetch.post(`${server.origin}/ok`, { headers, body: '{}' })).toEqual({ status: 204 });
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await safeFetch.close();
    }
  });
});
