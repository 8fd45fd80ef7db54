import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Lookup, LookupAddress } from '@quarry/safe-fetch';

type Hit = { method: string; url: string; headers: http.IncomingHttpHeaders; body: string };

export type TestServer = {
  readonly host: string;
  readonly port: number;
  /** http(s)://host:port, IPv6 hosts bracketed. */
  readonly origin: string;
  /** Every request that reached the handler: a refused fetch must leave this empty. */
  readonly hits: Hit[];
  /** TCP connections accepted, to tell a refusal before connecting from one after. */
  readonly connections: () => number;
  close(): Promise<void>;
};

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void;

type ServerOptions = { host?: string; port?: number; tls?: { key: string; cert: string } };

/** A real node:http(s) server on a loopback address, so tests exercise real sockets end to end. */
export async function startServer(handler: Handler, options: ServerOptions = {}): Promise<TestServer> {
  const host = options.host ?? '127.0.0.1';
  const hits: Hit[] = [];
  let connections = 0;
  const listener: http.RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      hits.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      handler(request, response, body);
    });
  };
  const server = options.tls === undefined ? http.createServer(listener) : https.createServer(options.tls, listener);
  server.on(options.tls === undefined ? 'connection' : 'secureConnection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls === undefined ? 'http' : 'https';
  return {
    host,
    port,
    origin: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    hits,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type RecordingLookup = Lookup & { readonly calls: string[] };

/** A resolver for made-up names; unknown names fail like NXDOMAIN does. */
export function mapLookup(table: Record<string, string[]>): RecordingLookup {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}
