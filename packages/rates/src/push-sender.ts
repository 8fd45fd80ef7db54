import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { checkAddress, parseAllowList, UnsafeUrlError, type AllowList } from '@quarry/safe-fetch';
import { Agent, buildConnector, request } from 'undici';

type PushResult = { status: number; bytes: number };

/**
 * Sends one push: a PUT whose body is streamed from `chunks`. Built on undici rather than
 * `SafeFetch` because SafeFetch takes only replayable in-memory bodies, and a 50 MB state must
 * not be buffered. The SSRF policy is the same one (`checkAddress` of @quarry/safe-fetch, with the
 * operator allow-list): every address the name resolves to is vetted and the socket is pinned to
 * it. Redirects are never followed (a 3xx is "below 400", i.e. success, per the interface).
 */
export type PushSender = {
  put(url: string, headers: Record<string, string>, chunks: AsyncIterable<Buffer>, timeoutMs: number): Promise<PushResult>;
  /** Refuses (UnsafeUrlError) a URL the sender would refuse, before it is stored. */
  check(url: string): Promise<void>;
  close(): Promise<void>;
};

type Lookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;
const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, order: 'verbatim' });

async function vet(hostname: string, allowList: AllowList, lookup: Lookup): Promise<Array<{ address: string; family: number }>> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare) !== 0) {
    const verdict = checkAddress(bare, allowList);
    if (!verdict.allowed) throw new UnsafeUrlError('private-address', bare, `${bare} is a ${verdict.range} address`, { address: bare, range: verdict.range });
    return [{ address: bare, family: net.isIP(bare) }];
  }
  let answers;
  try {
    answers = await lookup(bare);
  } catch (error) {
    throw new UnsafeUrlError('dns', bare, 'DNS lookup failed', { cause: error });
  }
  if (answers.length === 0) throw new UnsafeUrlError('dns', bare, 'DNS lookup returned no addresses');
  for (const { address } of answers) {
    const verdict = checkAddress(address, allowList, bare);
    if (!verdict.allowed) throw new UnsafeUrlError('private-address', bare, `resolves to ${address} (${verdict.range})`, { address, range: verdict.range });
  }
  return answers;
}

function assertPushUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('scheme', url.hostname, `${url.protocol} URLs are not fetched`);
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError('credentials', url.hostname, 'URLs with embedded credentials are not fetched');
}

export function createPushSender(options: { allowPrivate: readonly string[]; lookup?: Lookup; connectTimeoutMs?: number }): PushSender {
  const allowList = parseAllowList(options.allowPrivate);
  const lookup = options.lookup ?? systemLookup;
  const vettingLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    vet(hostname, allowList, lookup).then(
      (answers) => {
        const first = answers[0];
        if (!first) return callback(new UnsafeUrlError('dns', hostname, 'no address'), '');
        if (lookupOptions.all === true) return callback(null, answers.map((answer) => ({ address: answer.address, family: answer.family })));
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as Error, ''),
    );
  };
  const connector = buildConnector({ lookup: vettingLookup, timeout: options.connectTimeoutMs ?? 10_000 });
  const agent = new Agent({
    connect: (connectOptions, callback) => {
      if (net.isIP(connectOptions.hostname.replace(/^\[|\]$/g, '')) !== 0) {
        vet(connectOptions.hostname, allowList, lookup).then(
          () => connector(connectOptions, callback),
          (error: unknown) => callback(error as Error, null),
        );
        return;
      }
      connector(connectOptions, callback);
    },
    // Big bodies to slow receivers: undici's own timers would cut them; the per-request timeout rules.
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 10_000,
  });

  return {
    async check(rawUrl) {
      const url = new URL(rawUrl);
      assertPushUrl(url);
      await vet(url.hostname, allowList, lookup);
    },
    async put(rawUrl, headers, chunks, timeoutMs) {
      const url = new URL(rawUrl);
      assertPushUrl(url);
      let bytes = 0;
      const counted = Readable.from(
        (async function* () {
          for await (const chunk of chunks) {
            bytes += chunk.length;
            yield chunk;
          }
        })(),
        { objectMode: false },
      );
      const response = await request(url, {
        method: 'PUT',
        headers,
        body: counted,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The receiver's body is not needed; drain it so the connection can be reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
      return { status: response.statusCode, bytes };
    },
    async close() {
      await agent.close();
    },
  };
}
