import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { createAddressGuard, UnsafeUrlError, type Lookup } from '@quarry/safe-fetch';

type PushResult = { status: number; bytes: number };

/**
 * Sends one push: a PUT whose body is streamed from `chunks`. An element that is an array is
 * written corked, as one `writev`: a group of stored bodies goes out in one system call without
 * being copied into one buffer (joining them cost a 50 MB allocation, and its collection, per push).
 * Built on node:http rather than `SafeFetch` because SafeFetch takes only replayable in-memory
 * bodies, and a 50 MB state must not be buffered; undici's iterable bodies wait for drain after
 * every chunk, which halved the rate. The SSRF policy is SafeFetch's own (`createAddressGuard`,
 * with the operator allow-list): every address the name resolves to is vetted and the socket
 * connects to a vetted one. Redirects are never followed (a 3xx is "below 400",
 * i.e. success, per the interface).
 */
export type PushSender = {
  put(url: string, headers: Record<string, string>, chunks: AsyncIterable<Buffer | Buffer[]>, timeoutMs: number): Promise<PushResult>;
  /** Refuses (UnsafeUrlError) a URL the sender would refuse, before it is stored. */
  check(url: string): Promise<void>;
  close(): Promise<void>;
};

function assertPushUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UnsafeUrlError('scheme', url.hostname, `${url.protocol} URLs are not fetched`);
  if (url.username !== '' || url.password !== '')
    throw new UnsafeUrlError('credentials', url.hostname, 'URLs with embedded credentials are not fetched');
}

export function createPushSender(options: { allowPrivate: readonly string[]; lookup?: Lookup; connectTimeoutMs?: number }): PushSender {
  const guard = createAddressGuard(options.allowPrivate, options.lookup);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, keepAliveMsecs: 10_000 }),
    'https:': new https.Agent({ keepAlive: true, keepAliveMsecs: 10_000 }),
  };
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;

  return {
    async check(rawUrl) {
      const url = new URL(rawUrl);
      assertPushUrl(url);
      await guard.vet(url.hostname);
    },
    async put(rawUrl, headers, chunks, timeoutMs) {
      const url = new URL(rawUrl);
      assertPushUrl(url);
      // An address literal never reaches `lookup`: vet it here. Names are vetted as they resolve.
      if (net.isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) await guard.vet(url.hostname);
      const signal = AbortSignal.timeout(timeoutMs);
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(url, {
        method: 'PUT',
        headers,
        agent: agents[url.protocol === 'https:' ? 'https:' : 'http:'],
        lookup: guard.lookup,
        signal,
      });
      request.on('socket', (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(() => socket.destroy(new ConnectTimeoutError(url.host, connectTimeoutMs)), connectTimeoutMs);
        socket.once('connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      });
      const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
        request.once('response', resolve);
        request.once('error', reject);
      });
      answered.catch(() => {});
      let bytes = 0;
      const written = (async () => {
        for await (const chunk of chunks) {
          if (Array.isArray(chunk)) {
            request.cork();
            for (const part of chunk) {
              request.write(part);
              bytes += part.length;
            }
            request.uncork();
          } else {
            request.write(chunk);
            bytes += chunk.length;
          }
          // Not the return value of the last write: uncorking can flush everything and emit
          // 'drain' before this line runs, and waiting for another would wait forever.
          if (request.writableNeedDrain) await drained(request);
        }
        request.end();
      })();
      written.catch((error: unknown) => request.destroy(error as Error));
      const response = await answered;
      // The receiver's body is not needed; drain it so the connection can be reused.
      response.resume();
      await new Promise<void>((resolve) => {
        response.once('end', resolve);
        response.once('close', resolve);
      });
      // A receiver may answer before reading everything (a 413, say): its status stands, and the
      // rest of the body is not pushed at it (nor does it hold the job until the timeout).
      if (!request.writableFinished) request.destroy();
      await written.catch(() => {});
      return { status: response.statusCode ?? 0, bytes };
    },
    async close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** Resolves when the request can take more, rejects when it is torn down meanwhile. */
function drained(request: http.ClientRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      request.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      request.off('drain', onDrain);
      reject(new Error('request closed before its body was sent'));
    };
    request.once('drain', onDrain);
    request.once('close', onClose);
  });
}

class ConnectTimeoutError extends Error {
  constructor(host: string, ms: number) {
    super(`no connection to ${host} within ${ms} ms`);
    this.name = 'ConnectTimeoutError';
  }
}
