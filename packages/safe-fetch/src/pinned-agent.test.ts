import type { TLSSocket } from 'node:tls';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeUrlError } from './errors.ts';
import type { Lookup, LookupAddress } from './pinned-agent.ts';
import { createSafeFetch } from './safe-fetch.ts';
import { createTestCertificate } from '@quarry/testing/safe-fetch';
import { mapLookup, startServer } from '@quarry/testing/safe-fetch';
import type { Handler, TestServer } from '@quarry/testing/safe-fetch';

describe('DNS rebinding', () => {
  // Two servers on the same port: whichever address the socket dials is the one that answers.
  let vetted: TestServer;
  let rebound: TestServer;

  beforeAll(async () => {
    const answer =
      (name: string): Handler =>
      (_request, response) => {
        // Closing makes the next fetch open (and therefore resolve for) a new connection.
        response.setHeader('connection', 'close');
        response.end(name);
      };
    rebound = await startServer(answer('rebound'), { host: '127.0.0.2' });
    vetted = await startServer(answer('vetted'), { port: rebound.port });
  });

  afterAll(async () => {
    await Promise.all([vetted.close(), rebound.close()]);
  });

  /** The classic rebinding resolver: a harmless answer for the check, a different one afterwards. */
  function rebindingLookup(): { lookup: Lookup; calls: () => number } {
    let calls = 0;
    const lookup = async (): Promise<LookupAddress[]> => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    };
    return { lookup, calls: () => calls };
  }

  it('resolves once per connection and dials exactly the vetted answer', async () => {
    const { lookup, calls } = rebindingLookup();
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], lookup, timeoutMs: 2_000 });
    const response = await safeFetch(`http://rebind.test:${vetted.port}/`);
    // A check-then-connect implementation would resolve twice here and land on "rebound".
    expect(await response.text()).toBe('vetted');
    expect(calls()).toBe(1);
    expect(rebound.connections()).toBe(0);
    await safeFetch.close();
  });

  it('vets the new answer when a later connection re-resolves, refusing the rebound address', async () => {
    const { lookup, calls } = rebindingLookup();
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], lookup, timeoutMs: 2_000 });
    expect(await (await safeFetch(`http://rebind.test:${vetted.port}/`)).text()).toBe('vetted');
    const error = await safeFetch(`http://rebind.test:${vetted.port}/`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect(error).toMatchObject({ reason: 'private-address', host: 'rebind.test', address: '127.0.0.2' });
    expect(calls()).toBe(2);
    expect(rebound.connections()).toBe(0);
    await safeFetch.close();
  });

  it('dials an allowed IPv6 answer too, passing family through to the socket', async () => {
    const v6 = await startServer((_request, response) => response.end('six'), { host: '::1' });
    const lookup = mapLookup({ 'six.test': ['::1'] });
    const safeFetch = createSafeFetch({ allowPrivate: ['::1'], lookup, timeoutMs: 2_000 });
    expect(await (await safeFetch(`http://six.test:${v6.port}/`)).text()).toBe('six');
    expect(lookup.calls).toEqual(['six.test']);
    await safeFetch.close();
    await v6.close();
  });
});

describe('TLS to a pinned address', () => {
  const certificate = createTestCertificate('safe.test');
  const defaultCertificates = tls.getCACertificates('default');
  let server: TestServer;

  beforeAll(async () => {
    // Trusting the test certificate process-wide (this test file runs in its own worker) keeps the
    // production code free of a test-only `ca` option.
    tls.setDefaultCACertificates([...defaultCertificates, certificate.cert]);
    server = await startServer((request, response) => response.end(`sni=${String((request.socket as TLSSocket).servername)}`), {
      tls: certificate,
    });
  });

  afterAll(async () => {
    tls.setDefaultCACertificates(defaultCertificates);
    await server.close();
  });

  const lookup = mapLookup({ 'safe.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });

  it('sends the original hostname as SNI and accepts its certificate', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], lookup, timeoutMs: 2_000 });
    const response = await safeFetch(`https://safe.test:${server.port}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('sni=safe.test');
    await safeFetch.close();
  });

  it('still checks the certificate against the hostname, not the pinned IP', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'], lookup, timeoutMs: 2_000 });
    const before = server.hits.length;
    await expect(safeFetch(`https://other.test:${server.port}/`)).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    await expect(safeFetch(`https://127.0.0.1:${server.port}/`)).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    expect(server.hits.length).toBe(before);
    await safeFetch.close();
  });

  it('refuses an https name resolving to a refused address before any handshake', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: [], lookup, timeoutMs: 2_000 });
    const handshakes = server.connections();
    await expect(safeFetch(`https://safe.test:${server.port}/`)).rejects.toMatchObject({ reason: 'private-address' });
    expect(server.connections()).toBe(handshakes);
    await safeFetch.close();
  });
});
