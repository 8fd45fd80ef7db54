import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeUrlError } from './errors.ts';
import { createSafeFetch } from './safe-fetch.ts';
import type { SafeFetchOptions } from './safe-fetch.ts';
import { mapLookup, startServer } from '@quarry/testing/safe-fetch';
import type { Handler, TestServer } from '@quarry/testing/safe-fetch';

// Each server would answer if a check let the request through, so every refusal below is a refusal
// of a request that would otherwise have succeeded, not of one that would have failed anyway.
let v4: TestServer;
let v4b: TestServer;
let v6: TestServer;

beforeAll(async () => {
  const reply: Handler = (_request, response) => response.end('reached');
  [v4, v4b, v6] = await Promise.all([startServer(reply), startServer(reply, { host: '127.0.0.2' }), startServer(reply, { host: '::1' })]);
});

afterAll(async () => {
  await Promise.all([v4.close(), v4b.close(), v6.close()]);
});

async function refusal(url: string, options: Partial<SafeFetchOptions> = {}): Promise<UnsafeUrlError> {
  // A short timeout keeps a broken check from hanging on an unroutable private address.
  const safeFetch = createSafeFetch({ allowPrivate: [], timeoutMs: 1_000, ...options });
  try {
    const response = await safeFetch(url);
    throw new Error(`expected a refusal, got HTTP ${response.status}`);
  } catch (error) {
    if (!(error instanceof UnsafeUrlError)) throw error;
    return error;
  } finally {
    await safeFetch.close();
  }
}

function hitCount(): number {
  return v4.hits.length + v4b.hits.length + v6.hits.length;
}

describe('IP-literal hosts', () => {
  it('refuses IPv4 loopback without connecting', async () => {
    const error = await refusal(`http://127.0.0.1:${v4.port}/`);
    expect(error).toMatchObject({ reason: 'private-address', host: '127.0.0.1', range: 'loopback' });
    expect(v4.connections()).toBe(0);
  });

  it('refuses IPv6 loopback without connecting', async () => {
    const error = await refusal(`http://[::1]:${v6.port}/`);
    expect(error).toMatchObject({ reason: 'private-address', address: '::1', range: 'loopback' });
    expect(v6.connections()).toBe(0);
  });

  it('sees decimal, hex, octal and short IPv4 forms as the dotted address WHATWG URL makes of them', async () => {
    for (const host of ['2130706433', '0x7f.1', '0x7f000001', '0177.0.0.1', '127.1', '127.0.1']) {
      expect(new URL(`http://${host}:${v4.port}/`).hostname).toBe('127.0.0.1');
      const error = await refusal(`http://${host}:${v4.port}/`);
      expect(error).toMatchObject({ reason: 'private-address', address: '127.0.0.1' });
    }
    expect(v4.connections()).toBe(0);
  });

  it('judges IPv4-mapped IPv6 literals by the embedded IPv4 (the kernel would reach 127.0.0.1)', async () => {
    for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:7f00:1]']) {
      const error = await refusal(`http://${host}:${v4.port}/`);
      expect(error).toMatchObject({ reason: 'private-address', range: 'loopback' });
    }
    expect(v4.connections()).toBe(0);
  });

  it('refuses the unspecified addresses, which Linux connects to the local host', async () => {
    expect(await refusal(`http://0.0.0.0:${v4.port}/`)).toMatchObject({ range: 'unspecified' });
    expect(await refusal(`http://0:${v4.port}/`)).toMatchObject({ range: 'unspecified' });
    expect(await refusal(`http://[::]:${v6.port}/`)).toMatchObject({ range: 'unspecified' });
    expect(v4.connections() + v6.connections()).toBe(0);
  });

  it.each([
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://172.31.255.254/', 'private'],
    ['http://192.168.0.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://100.100.100.200/latest/meta-data/', 'carrierGradeNat'],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'uniqueLocal'],
    ['http://[fc00::1]/', 'uniqueLocal'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://[64:ff9b::a00:1]/', 'rfc6052'],
    ['http://[2002:a00:1::1]/', '6to4'],
  ])('refuses %s (%s)', async (url, range) => {
    const lookup = mapLookup({});
    const error = await refusal(url, { lookup });
    expect(error).toMatchObject({ reason: 'private-address', range });
    expect(lookup.calls).toEqual([]);
  });
});

describe('hostnames, judged by every address they resolve to', () => {
  it('refuses a name that resolves to loopback', async () => {
    const lookup = mapLookup({ 'innocent.test': ['127.0.0.1'] });
    const error = await refusal(`http://innocent.test:${v4.port}/`, { lookup });
    expect(error).toMatchObject({ reason: 'private-address', host: 'innocent.test', address: '127.0.0.1' });
    expect(lookup.calls).toEqual(['innocent.test']);
    expect(v4.connections()).toBe(0);
  });

  it.each([
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:192.168.1.1', 'private'],
    ['::', 'unspecified'],
  ])('refuses a name that resolves to %s', async (address, range) => {
    const error = await refusal('http://internal.test/', { lookup: mapLookup({ 'internal.test': [address] }) });
    expect(error).toMatchObject({ reason: 'private-address', address, range });
  });

  it('refuses a name when one answer is public and another is private, whatever the order', async () => {
    for (const answers of [
      ['93.184.215.14', '127.0.0.2'],
      ['127.0.0.2', '93.184.215.14'],
    ]) {
      const lookup = mapLookup({ 'mixed.test': answers });
      const error = await refusal(`http://mixed.test:${v4b.port}/`, { lookup });
      expect(error).toMatchObject({ reason: 'private-address', address: '127.0.0.2' });
    }
    expect(v4b.connections()).toBe(0);
  });

  it('reports an unresolvable name as a dns refusal', async () => {
    const error = await refusal('http://nowhere.test/', { lookup: mapLookup({}) });
    expect(error).toMatchObject({ reason: 'dns', host: 'nowhere.test' });
    expect(error.message).toContain('ENOTFOUND');
    const empty = await refusal('http://empty.test/', { lookup: mapLookup({ 'empty.test': [] }) });
    expect(empty).toMatchObject({ reason: 'dns', host: 'empty.test' });
  });
});

describe('schemes and credentials', () => {
  it.each([
    'file:///etc/passwd',
    'ftp://127.0.0.1/',
    'data:text/plain,hello',
    'gopher://127.0.0.1:70/_',
    'javascript:alert(1)',
    'ws://127.0.0.1/',
    'blob:http://127.0.0.1/x',
  ])('refuses %s', async (url) => {
    const lookup = mapLookup({});
    const error = await refusal(url, { lookup, allowPrivate: ['127.0.0.0/8'] });
    expect(error.reason).toBe('scheme');
    expect(lookup.calls).toEqual([]);
  });

  it('refuses URLs with credentials, even to an allowed host, and never echoes them', async () => {
    for (const auth of ['user:hunter2@', 'user@', ':hunter2@']) {
      const error = await refusal(`http://${auth}127.0.0.1:${v4.port}/`, { allowPrivate: ['127.0.0.1'] });
      expect(error).toMatchObject({ reason: 'credentials', host: '127.0.0.1' });
      expect(error.message).not.toContain('hunter2');
    }
    expect(v4.connections()).toBe(0);
  });

  it('rejects an unparseable URL without carrying the input along', async () => {
    const safeFetch = createSafeFetch({ allowPrivate: [] });
    const error = await safeFetch('http://user:hunter2@exa mple.com/').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('hunter2');
    await safeFetch.close();
  });

  it('names the host and reason in the message but not the path or query', async () => {
    const error = await refusal(`http://127.0.0.1:${v4.port}/private/path?token=s3cr3t`);
    expect(error.message).toContain('"127.0.0.1"');
    expect(error.message).toContain('private-address');
    expect(error.message).not.toContain('s3cr3t');
    expect(error.message).not.toContain('/private/path');
  });
});

describe('allow-list entries permit the fetch', () => {
  async function fetchText(url: string, options: Partial<SafeFetchOptions>): Promise<string> {
    const safeFetch = createSafeFetch({ allowPrivate: [], timeoutMs: 2_000, ...options });
    try {
      const response = await safeFetch(url);
      expect(response.status).toBe(200);
      return await response.text();
    } finally {
      await safeFetch.close();
    }
  }

  it('by IP', async () => {
    expect(await fetchText(`http://127.0.0.1:${v4.port}/by-ip`, { allowPrivate: ['127.0.0.1'] })).toBe('reached');
    expect(v4.hits.at(-1)?.url).toBe('/by-ip');
  });

  it('by IPv6 address', async () => {
    expect(await fetchText(`http://[::1]:${v6.port}/v6`, { allowPrivate: ['::1'] })).toBe('reached');
  });

  it('by CIDR range', async () => {
    expect(await fetchText(`http://127.0.0.2:${v4b.port}/cidr`, { allowPrivate: ['127.0.0.0/8'] })).toBe('reached');
    const before = hitCount();
    expect(await refusal(`http://127.0.0.2:${v4b.port}/`, { allowPrivate: ['127.0.0.0/31'] })).toMatchObject({
      reason: 'private-address',
    });
    expect(hitCount()).toBe(before);
  });

  it('by hostname, for every address that name resolves to, and not for other names', async () => {
    const lookup = mapLookup({ localhost: ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    expect(await fetchText(`http://localhost:${v4.port}/name`, { allowPrivate: ['localhost'], lookup })).toBe('reached');
    expect(v4.hits.at(-1)?.headers.host).toBe(`localhost:${v4.port}`);
    const error = await refusal(`http://other.test:${v4.port}/`, { allowPrivate: ['localhost'], lookup });
    expect(error).toMatchObject({ reason: 'private-address', host: 'other.test' });
  });
});
