import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AtsEndpointName } from '@quarry/contracts';

/** One part of what a vendor double received: a text value, or a file with its bytes. */
export type ReceivedPart = string | { filename: string; type: string; bytes: Buffer };

/** A request a vendor double received, its multipart parts or JSON body read. */
export type ReceivedRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  parts: Array<[name: string, value: ReceivedPart]>;
  json: unknown;
};

/** How a double answers: the vendor's status and body. */
export type DoubleReply = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A running vendor double: its base URL, every request in arrival order, the submissions (the
 * requests that would create an application), and scripted answers for the next submissions.
 */
export type VendorApiDouble = {
  url: string;
  /** The vendor base URLs pointed at this double, for the miner and the router (as `MINING_ATS_ENDPOINTS` would). */
  endpoints: Partial<Record<AtsEndpointName, string>>;
  received: ReceivedRequest[];
  submissions(): ReceivedRequest[];
  /** The next submissions are answered with these, in order (then the vendor's own answer). */
  replyNext(...replies: DoubleReply[]): void;
  close(): Promise<void>;
};

/**
 * A vendor's route table: its answer to one request. A submission (a request that would create an
 * application) answers through `accept`, which runs only when no scripted reply takes its place,
 * so a scripted refusal leaves the double's state (who applied) unchanged.
 */
type Route = (request: ReceivedRequest) => { reply: DoubleReply } | { accept: () => DoubleReply } | null;

async function readRequest(request: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(request.url ?? '/', 'http://double');
  const type = request.headers['content-type'] ?? '';
  const parts: ReceivedRequest['parts'] = [];
  let json: unknown = undefined;
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(body, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form) {
      parts.push([
        name,
        typeof value === 'string' ? value : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) },
      ]);
    }
  } else if (/^application\/(vnd\.api\+)?json/.test(type) && body.length > 0) {
    json = JSON.parse(body.toString('utf8')) as unknown;
  }
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, parts, json };
}

const send = (response: ServerResponse, reply: DoubleReply) => {
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
};

/**
 * A loopback HTTP server playing one vendor: `route` answers each request as the vendor does;
 * a scripted reply replaces the vendor's answer to the next submissions (the refusals a test or a
 * bench wants to see). Anything the route does not know is the vendor's 404.
 */
export async function startVendorDouble(
  route: Route,
  endpointsAt: (url: string) => Partial<Record<AtsEndpointName, string>>,
): Promise<VendorApiDouble> {
  const received: ReceivedRequest[] = [];
  const submitted: ReceivedRequest[] = [];
  const scripted: DoubleReply[] = [];
  const server = createServer((request, response) => {
    void readRequest(request).then(
      (got) => {
        received.push(got);
        const answer = route(got);
        if (!answer) return send(response, { status: 404, body: { error: 'Not found' } });
        if ('reply' in answer) return send(response, answer.reply);
        submitted.push(got);
        return send(response, scripted.shift() ?? answer.accept());
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    endpoints: endpointsAt(url),
    received,
    submissions: () => [...submitted],
    replyNext: (...replies) => scripted.push(...replies),
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The HTTP Basic value of a key used as the user name with no password (Greenhouse, Ashby, BambooHR). */
export const basicUser = (key: string): string => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
