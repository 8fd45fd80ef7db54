import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeUrlError } from './errors.ts';
import { createSafeFetch } from './safe-fetch.ts';
import type { SafeFetch, SafeFetchInit, SafeFetchOptions } from './safe-fetch.ts';
import { mapLookup, startServer } from '@quarry/testing/safe-fetch';
import type { Handler, TestServer } from '@quarry/testing/safe-fetch';

// Routes: /redirect?status=302&to=<url> answers with that redirect; /chain/<n> redirects n more
// times; /loop redirects to itself; anything else echoes what arrived as JSON.
const handler: Handler = (request, response, body) => {
  const url = new URL(request.url ?? '/', 'http://server.invalid');
  const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
  if (url.pathname === '/loop') {
    response.writeHead(307, { location: '/loop' });
    response.end();
  } else if (url.pathname === '/redirect') {
    response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' });
    response.end('moved');
  } else if (chain !== null) {
    const remaining = Number(chain[1]);
    if (remaining === 0) {
      response.end('end of chain');
    } else {
      response.writeHead(302, { location: `/chain/${remaining - 1}` });
      response.end();
    }
  } else {
    const { authorization, cookie } = request.headers;
    const echo = { method: request.method, path: url.pathname, body, authorization, cookie, type: request.headers['content-type'] };
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(echo));
  }
};

let allowed: TestServer; // 127.0.0.1, the only allow-listed address
let refused: TestServer; // 127.0.0.2, reachable but not allow-listed

beforeAll(async () => {
  [allowed, refused] = await Promise.all([startServer(handler), startServer(handler, { host: '127.0.0.2' })]);
});

afterAll(async () => {
  await Promise.all([allowed.close(), refused.close()]);
});

// localhost deliberately resolves to the refused address, as /etc/hosts could make it for 127.0.0.2.
const lookup = mapLookup({ localhost: ['127.0.0.2'], 'allowed.test': ['127.0.0.1'] });

function makeFetch(options: Partial<SafeFetchOptions> = {}): SafeFetch {
  return createSafeFetch({ allowPrivate: ['127.0.0.1'], lookup, timeoutMs: 2_000, ...options });
}

function redirectUrl(to: string, status = 302): string {
  return `${allowed.origin}/redirect?status=${status}&to=${encodeURIComponent(to)}`;
}

async function refusal(safeFetch: SafeFetch, url: string, init?: SafeFetchInit): Promise<UnsafeUrlError> {
  try {
    const response = await safeFetch(url, init);
    throw new Error(`expected a refusal, got HTTP ${response.status} from ${response.url}`);
  } catch (error) {
    if (!(error instanceof UnsafeUrlError)) throw error;
    return error;
  } finally {
    await safeFetch.close();
  }
}

describe('redirects to refused destinations', () => {
  it('follows a redirect between allowed hosts (the control for the refusals below)', async () => {
    const safeFetch = makeFetch({ allowPrivate: ['127.0.0.1', '127.0.0.2'] });
    const response = await safeFetch(redirectUrl(`http://localhost:${refused.port}/landed`));
    expect(response.url).toBe(`http://localhost:${refused.port}/landed`);
    expect(response.redirected).toBe(true);
    expect(await response.json()).toMatchObject({ method: 'GET', path: '/landed' });
    await safeFetch.close();
  });

  it('refuses a hop to a hostname that resolves to a refused address, before connecting to it', async () => {
    const connections = refused.connections();
    const error = await refusal(makeFetch(), redirectUrl(`http://localhost:${refused.port}/landed`));
    expect(error).toMatchObject({ reason: 'private-address', host: 'localhost', address: '127.0.0.2' });
    expect(refused.connections()).toBe(connections);
  });

  it('refuses a hop to a refused IP literal, for every redirect status', async () => {
    const connections = refused.connections();
    for (const status of [301, 302, 303, 307, 308]) {
      const error = await refusal(makeFetch(), redirectUrl(`${refused.origin}/landed`, status));
      expect(error).toMatchObject({ reason: 'private-address', address: '127.0.0.2' });
    }
    expect(refused.connections()).toBe(connections);
  });

  it('refuses a hop to cloud metadata', async () => {
    const error = await refusal(makeFetch(), redirectUrl('http://169.254.169.254/latest/meta-data/'));
    expect(error).toMatchObject({ reason: 'private-address', range: 'linkLocal' });
  });

  it.each(['file:///etc/passwd', 'gopher://127.0.0.1:70/_', 'data:text/plain,hi', 'ftp://127.0.0.1/'])(
    'refuses a hop to %s as redirect-scheme, naming the redirecting host',
    async (target) => {
      const error = await refusal(makeFetch(), redirectUrl(target));
      expect(error).toMatchObject({ reason: 'redirect-scheme', host: '127.0.0.1' });
      expect(error.message).not.toContain('passwd');
    },
  );

  it('refuses a hop to a URL with credentials', async () => {
    const error = await refusal(makeFetch(), redirectUrl(`http://user:hunter2@127.0.0.1:${allowed.port}/`));
    expect(error.reason).toBe('credentials');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('redirect limits', () => {
  it('follows five redirects by default and refuses the sixth', async () => {
    const safeFetch = makeFetch();
    const response = await safeFetch(`${allowed.origin}/chain/5`);
    expect(await response.text()).toBe('end of chain');
    expect(response.url).toBe(`${allowed.origin}/chain/0`);
    const error = await refusal(safeFetch, `${allowed.origin}/chain/6`);
    expect(error).toMatchObject({ reason: 'too-many-redirects', host: '127.0.0.1' });
  });

  it('honours maxRedirects, including 0', async () => {
    const twice = makeFetch({ maxRedirects: 2 });
    expect((await twice(`${allowed.origin}/chain/2`)).status).toBe(200);
    expect(await refusal(twice, `${allowed.origin}/chain/3`)).toMatchObject({ reason: 'too-many-redirects' });
    expect(await refusal(makeFetch({ maxRedirects: 0 }), `${allowed.origin}/chain/1`)).toMatchObject({
      reason: 'too-many-redirects',
    });
  });

  it('stops a redirect loop', async () => {
    const before = allowed.hits.length;
    expect(await refusal(makeFetch(), `${allowed.origin}/loop`)).toMatchObject({ reason: 'too-many-redirects' });
    expect(allowed.hits.length - before).toBe(6);
  });

  it("returns the redirect itself with redirect: 'manual', without following it", async () => {
    const safeFetch = makeFetch();
    const before = refused.hits.length;
    const response = await safeFetch(redirectUrl(`${refused.origin}/never`), { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${refused.origin}/never`);
    expect(await response.text()).toBe('moved');
    expect(refused.hits.length).toBe(before);
    await safeFetch.close();
  });
});

describe('method and header rewriting on redirects', () => {
  const post: SafeFetchInit = {
    method: 'POST',
    body: 'payload',
    headers: { 'Content-Type': 'text/plain', Authorization: 'Bearer t0ken', Cookie: 'c=1' },
  };

  it.each([
    [301, 'GET', ''],
    [302, 'GET', ''],
    [303, 'GET', ''],
    [307, 'POST', 'payload'],
    [308, 'POST', 'payload'],
  ])('after a %i a POST becomes %s', async (status, method, body) => {
    const safeFetch = makeFetch();
    const response = await safeFetch(redirectUrl('/echo', status), post);
    const echo = await response.json();
    expect(echo).toMatchObject({ method, body, path: '/echo' });
    expect((echo as { type?: string }).type).toBe(method === 'GET' ? undefined : 'text/plain');
    await safeFetch.close();
  });

  it('keeps PUT and its body across a 301, as browsers do, but turns it into GET on a 303', async () => {
    const safeFetch = makeFetch();
    const put = { ...post, method: 'PUT' };
    expect(await (await safeFetch(redirectUrl('/echo', 301), put)).json()).toMatchObject({ method: 'PUT', body: 'payload' });
    expect(await (await safeFetch(redirectUrl('/echo', 303), put)).json()).toMatchObject({ method: 'GET', body: '' });
    await safeFetch.close();
  });

  it('keeps credentials on a same-origin hop and drops them on a cross-origin one', async () => {
    const safeFetch = makeFetch({ allowPrivate: ['127.0.0.1', '127.0.0.2'] });
    const same = await (await safeFetch(redirectUrl('/echo', 307), post)).json();
    expect(same).toMatchObject({ authorization: 'Bearer t0ken', cookie: 'c=1' });
    const cross = await (await safeFetch(redirectUrl(`${refused.origin}/echo`, 307), post)).json();
    expect(cross).toMatchObject({ method: 'POST', body: 'payload', path: '/echo' });
    expect(cross).not.toHaveProperty('authorization');
    expect(cross).not.toHaveProperty('cookie');
    await safeFetch.close();
  });
});
