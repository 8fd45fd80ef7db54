import { finished } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { parseAllowList } from './address-policy.ts';
import { capBody, declaredLength, readAll } from './capped-body.ts';
import { FetchTimeoutError, ResponseTooLargeError, UnsafeUrlError } from './errors.ts';
import { createPinnedAgent, systemLookup } from './pinned-agent.ts';
import type { Lookup } from './pinned-agent.ts';
import { createSafePost, type SafePostAnswer } from './safe-post.ts';

export type SafeFetchOptions = {
  /** Hostnames, IPs or CIDR ranges that may be private (e.g. the parsed ALLOW_PRIVATE_URLS). */
  allowPrivate: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
  /** Injectable resolver; it is called once per new connection and its answer is what gets dialled. */
  lookup?: Lookup;
};

export type SafeFetchInit = {
  method?: string;
  headers?: Record<string, string>;
  /** Only replayable bodies, because a 307/308 redirect sends the body again. */
  body?: string | Uint8Array;
  signal?: AbortSignal;
  maxBytes?: number;
  timeoutMs?: number;
  redirect?: 'follow' | 'manual';
};

export type SafeResponse = {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: Headers;
  /** The final URL, after redirects. */
  readonly url: string;
  readonly redirected: boolean;
  /** Errors with ResponseTooLargeError past maxBytes and with FetchTimeoutError past timeoutMs. */
  readonly body: Readable;
  readonly bodyUsed: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
};

/** A POST whose caller needs only the answer's status: see `createSafePost`. */
type SafePostOptions = { headers: Record<string, string>; body: string; signal?: AbortSignal; timeoutMs?: number; maxBytes?: number };

export type SafeFetch = ((url: string | URL, init?: SafeFetchInit) => Promise<SafeResponse>) & {
  /** Closes the pooled keep-alive connections. */
  close(): Promise<void>;
};

export type SafePoster = {
  /**
   * POSTs `body` and resolves with the answer's status only, through the same guard and pooled
   * connections as the fetch: for callbacks and webhooks sent in volume. A redirect is not followed
   * (its status is the answer); `timeoutMs` bounds the wait for the answer once the request is sent.
   */
  post(url: string | URL, init: SafePostOptions): Promise<SafePostAnswer>;
};

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'quarry-safe-fetch';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Dropped on a cross-origin hop so a redirect cannot carry the caller's credentials to another host.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

function requireCount(name: string, value: number, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) throw new RangeError(`${name} must be an integer >= ${minimum}`);
  return value;
}

function assertFetchable(url: URL, redirectedFrom?: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    if (redirectedFrom !== undefined) {
      throw new UnsafeUrlError('redirect-scheme', redirectedFrom.hostname, `redirect to a ${url.protocol} URL`);
    }
    throw new UnsafeUrlError('scheme', url.hostname, `${url.protocol} URLs are not fetched; only http: and https:`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeUrlError('credentials', url.hostname, 'URLs with embedded credentials are not fetched');
  }
}

function parseUrl(input: string | URL): URL {
  try {
    return new URL(input instanceof URL ? input.href : input);
  } catch {
    // Node's own error carries the raw input, credentials and tokens included, into any log of it.
    throw new TypeError('Invalid URL');
  }
}

function toHeaders(raw: Dispatcher.ResponseData['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  // A failure while draining a redirect body only costs the keep-alive connection.
  await body.dump().catch(() => undefined);
}

/**
 * undici only acts on an abort once the request has a connected socket, so a slow DNS answer or an
 * unanswered SYN would outlive the timeout by up to its 10 s connect timeout. Racing the signal
 * settles on time; undici still aborts the orphaned request as soon as it connects.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function makeResponse(fields: { status: number; headers: Headers; url: string; redirected: boolean; body: Readable }): SafeResponse {
  let used = false;
  const consume = async (): Promise<Buffer> => {
    if (used) throw new TypeError('Response body has already been read');
    used = true;
    return readAll(fields.body);
  };
  return {
    ...fields,
    ok: fields.status >= 200 && fields.status < 300,
    get bodyUsed() {
      return used;
    },
    text: async () => (await consume()).toString('utf8'),
    json: async () => JSON.parse((await consume()).toString('utf8')) as unknown,
    arrayBuffer: async () => {
      const buffer = await consume();
      return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
    },
  };
}

/**
 * The one way to fetch a client-supplied URL server-side. Each hop is checked for scheme and
 * credentials here; addresses are vetted by the pinned agent at connect time, the only moment a
 * check cannot be raced by DNS.
 */
export function createSafeFetch(options: SafeFetchOptions): SafeFetch & SafePoster {
  const defaultMaxBytes = requireCount('maxBytes', options.maxBytes ?? DEFAULT_MAX_BYTES, 0);
  const defaultTimeoutMs = requireCount('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
  // A connection attempt abandoned by a timed-out fetch lingers until undici's own connect timeout;
  // keeping that no longer than the fetch timeout stops it from holding up close().
  const connectTimeoutMs = Math.min(defaultTimeoutMs, 10_000);
  const agent = createPinnedAgent(parseAllowList(options.allowPrivate), options.lookup ?? systemLookup, connectTimeoutMs);
  const maxRedirects = requireCount('maxRedirects', options.maxRedirects ?? DEFAULT_MAX_REDIRECTS, 0);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

  const safeFetch = async (input: string | URL, init: SafeFetchInit = {}): Promise<SafeResponse> => {
    let url = parseUrl(input);
    assertFetchable(url);
    const maxBytes = requireCount('maxBytes', init.maxBytes ?? defaultMaxBytes, 0);
    const timeoutMs = requireCount('timeoutMs', init.timeoutMs ?? defaultTimeoutMs, 1);

    // Our own timer rather than AbortSignal.timeout so the abort reason is a FetchTimeoutError naming
    // the host of the hop in flight; undici hands that reason to the pending request and the body.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new FetchTimeoutError(url.hostname, timeoutMs)), timeoutMs);
    const signal = init.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, init.signal]);

    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers = new Map<string, string>([['user-agent', userAgent]]);
    for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name.toLowerCase(), value);

    try {
      for (let hop = 0; ; hop += 1) {
        const path = `${url.pathname}${url.search}`;
        const response = await untilAborted(agent.request({ origin: url.origin, path, method, headers, body, signal }), signal);
        const location = firstHeader(response.headers.location);
        if (init.redirect !== 'manual' && REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          await discard(response.body);
          if (hop >= maxRedirects) {
            throw new UnsafeUrlError('too-many-redirects', url.hostname, `more than ${maxRedirects} redirects`);
          }
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new TypeError(`Redirect from host "${url.hostname}" has an unparseable Location`);
          }
          assertFetchable(next, url);
          // Per the Fetch standard, which is what browsers do: 303 turns anything but HEAD into a
          // GET, and 301/302 turn POST (only) into a GET; 307/308 replay method and body.
          const status = response.statusCode;
          if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            for (const name of BODY_HEADERS) headers.delete(name);
          }
          if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
          url = next;
          continue;
        }

        const length = declaredLength(response.headers['content-length']);
        if (method !== 'HEAD' && length !== undefined && length > maxBytes) {
          // The listener keeps undici's abort error from surfacing as an uncaught exception.
          response.body.on('error', () => undefined).destroy();
          throw new ResponseTooLargeError(url.hostname, maxBytes);
        }
        const capped = capBody(response.body, maxBytes, url.hostname);
        finished(capped, () => clearTimeout(timer));
        return makeResponse({
          status: response.statusCode,
          headers: toHeaders(response.headers),
          url: url.href,
          redirected: hop > 0,
          body: capped,
        });
      }
    } catch (error) {
      clearTimeout(timer);
      // undici normally rejects with the abort reason itself; this covers paths that wrap it.
      if (controller.signal.aborted && controller.signal.reason instanceof FetchTimeoutError) throw controller.signal.reason;
      throw error;
    }
  };

  const safePost = createSafePost(agent, userAgent);
  const post = async (input: string | URL, init: SafePostOptions): Promise<SafePostAnswer> => {
    const url = parseUrl(input);
    assertFetchable(url);
    const timeoutMs = requireCount('timeoutMs', init.timeoutMs ?? defaultTimeoutMs, 1);
    const maxBytes = requireCount('maxBytes', init.maxBytes ?? defaultMaxBytes, 0);
    return safePost(url, { headers: init.headers, body: init.body, signal: init.signal, timeoutMs, maxBytes });
  };

  return Object.assign(safeFetch, { post, close: () => agent.close() });
}
