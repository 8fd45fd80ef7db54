import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One part of what a vendor double received: a text value, or a file with its bytes. */
export type ReceivedPart = string | { filename: string; type: string; bytes: Buffer };

/** A request a vendor double received, with its multipart or JSON body read. */
export type VendorRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  parts: Array<[name: string, value: ReceivedPart]>;
  json: unknown;
};

/** How the double answers a POST: the vendor's status and body for one of its known cases. */
export type VendorReply = { status: number; body: unknown; headers?: Record<string, string> };

export type AtsVendorDoubles = {
  origin: string;
  /** Every request, in arrival order. */
  received: VendorRequest[];
  /** The POSTs only (the submissions). */
  submissions(): VendorRequest[];
  /** The next POSTs answer these, in order (then the vendor's normal success). */
  replyNext(...replies: VendorReply[]): void;
  close(): Promise<void>;
};

const fixture = (path: string) => readFileSync(new URL(`../../miner/fixtures/${path}`, import.meta.url), 'utf8');

/** Greenhouse and Recruitee have no real capture yet: their definitions are the miner's hand-written payloads. */
export const greenhouseJobFixture = () => JSON.parse(fixture('handwritten/greenhouse-job.json')) as { id: number };
export const recruiteeOffersFixture = () => JSON.parse(fixture('handwritten/recruitee-offers.json')) as { offers: Array<{ slug: string }> };
export const leverApplyPageFixture = () => fixture('ats/lever/tenant-b.html');

async function readRequest(request: IncomingMessage): Promise<VendorRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(request.url ?? '/', 'http://double');
  const type = request.headers['content-type'] ?? '';
  const parts: VendorRequest['parts'] = [];
  let json: unknown = undefined;
  if (type.startsWith('multipart/form-data')) {
    const form = await new Response(body, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form) {
      parts.push([name, typeof value === 'string' ? value : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) }]);
    }
  } else if (type.startsWith('application/json') && body.length > 0) {
    json = JSON.parse(body.toString('utf8')) as unknown;
  }
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: request.headers, parts, json };
}

const send = (response: ServerResponse, reply: VendorReply) => {
  response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
};

/**
 * Local stand-ins for the vendors' application APIs on loopback, mounted under one origin as the
 * miner's endpoints are (`/greenhouse-api`, `/lever/{host}`, `/lever-api`, `/recruitee/{company}`):
 * they serve the form definitions of the fixtures, record every request, and answer submissions as
 * the vendor does (its statuses; texts as documented, or as the test scripts them).
 *
 * - Greenhouse: board `acme`, the fixture job; any other job id is 404 (closed: Greenhouse drops it
 *   from the board). POST needs Basic `greenhouseKey:`; 200 `{}` otherwise 401.
 * - Lever: the fixture apply page for site `acme`; POST `/lever-api/v0/postings/acme/{id}?key=`
 *   answers `200 {ok: true, applicationId}`, or 401 `{ok: false, error}` for another key.
 * - Recruitee: company `acme` lists the fixture offers; POST answers `201 {candidate: {id}}`.
 */
export async function startAtsVendorDoubles(options: { greenhouseKey: string; leverKey: string }): Promise<AtsVendorDoubles> {
  const received: VendorRequest[] = [];
  const scripted: VendorReply[] = [];
  const greenhouseJob = greenhouseJobFixture();
  const offers = recruiteeOffersFixture();
  const leverPage = leverApplyPageFixture();
  let sequence = 0;

  const server = createServer((request, response) => {
    void readRequest(request).then(
      (got) => {
        received.push(got);
        const { method, path } = got;
        const gh = /^\/greenhouse-api\/v1\/boards\/([^/]+)\/jobs\/([^/]+)$/.exec(path);
        if (gh) {
          const known = gh[1] === 'acme' && gh[2] === String(greenhouseJob.id);
          if (!known) return send(response, { status: 404, body: { status: 404, error: 'Job not found' } });
          if (method === 'GET') return send(response, { status: 200, body: greenhouseJob });
          const expected = `Basic ${Buffer.from(`${options.greenhouseKey}:`).toString('base64')}`;
          if (got.headers.authorization !== expected) return send(response, { status: 401, body: { message: 'Invalid Basic Auth credentials' } });
          return send(response, scripted.shift() ?? { status: 200, body: { success: 'Candidate saved successfully' } });
        }
        const leverPageMatch = /^\/lever\/[^/]+\/acme\/[0-9a-f-]{36}\/apply$/.exec(path);
        if (leverPageMatch && method === 'GET') {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          return response.end(leverPage);
        }
        if (/^\/lever-api\/v0\/postings\/acme\/[0-9a-f-]{36}$/.test(path) && method === 'POST') {
          if (got.query.get('key') !== options.leverKey) return send(response, { status: 401, body: { ok: false, error: 'Invalid API key' } });
          sequence += 1;
          return send(response, scripted.shift() ?? { status: 200, body: { ok: true, applicationId: `lever-application-${sequence}` } });
        }
        if (path === '/recruitee/acme/api/offers/' && method === 'GET') return send(response, { status: 200, body: offers });
        if (/^\/recruitee\/acme\/api\/offers\/[^/]+\/candidates$/.test(path) && method === 'POST') {
          sequence += 1;
          return send(response, scripted.shift() ?? { status: 201, body: { candidate: { id: 9000 + sequence } } });
        }
        return send(response, { status: 404, body: { error: 'Not found' } });
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    submissions: () => received.filter((request) => request.method === 'POST'),
    replyNext: (...replies) => scripted.push(...replies),
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
