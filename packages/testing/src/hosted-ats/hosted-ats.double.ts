/**
 * Sources for the hosted apply pages as this server doubles them. It is the transport every
 * vendor file of this folder shares; the vendor behaviour (pages, fields, writes, answers) is
 * each vendor's own and cited in its file (`greenhouse.double.ts`, `lever.double.ts`, …).
 * - Writes before the final post (an upload POSTed when the file is chosen, answers saved field by
 *   field) recorded apart from the submission: Greenhouse's S3 upload on choose
 *   (https://github.com/cezkid/jobs/blob/218e576d/app/docs/apply/greenhouse.md), Ashby's saves box by box and
 *   Workday's saves at each step's "Save and Continue" (https://github.com/cezkid/jobs/blob/0b76bf2e/app/docs/apply/ashby.md,
 *   https://github.com/cezkid/jobs/blob/0b6588ec/app/docs/apply/workday.md).
 * - The answers a vendor may give (`HostedVariant`): a closed posting, a refused duplicate, a refused
 *   file, the vendor's own required-field check after the post, a bot check on load or at Submit,
 *   as the apply notes of each vendor describe them (the cezkid/jobs `app/docs/apply/<ats>.md`
 *   files above and https://github.com/cezkid/jobs/blob/5b3b88d6/app/docs/apply/sent.md for the
 *   confirmation pages). A vendor whose sources never show one answer lacks that variant.
 * - Bodies read as the browser sends them: `multipart/form-data`, `application/x-www-form-urlencoded`
 *   or JSON (WHATWG `FormData` parsing, as the vendors' pages post through the browser).
 * Silent, and decided here: the 404 page for a path the vendor file does not serve, and the 500
 * for a body that does not parse (no source shows either vendor's own).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One value a hosted double received: a text, or a file with its bytes. */
export type HostedPart = string | { filename: string; type: string; bytes: Buffer };

/** A request the page sent to its vendor: the form post, or a write made before it (an upload on choose, a saved answer). */
export type HostedRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  parts: Array<[name: string, value: HostedPart]>;
  json: unknown;
};

/**
 * What the double answers, as its vendor does: `accept` the application; `closed` posting;
 * `duplicate` refused; `invalidFile` refused upload; `missingField` refused by the vendor's own
 * check after the post; `botCheck` the vendor's bot check (on load, or at Submit, where the vendor
 * puts it).
 */
export type HostedVariant = 'accept' | 'closed' | 'duplicate' | 'invalidFile' | 'missingField' | 'botCheck';

export type HostedReply = { status: number; html?: string; json?: unknown; headers?: Record<string, string> };

/** One vendor's hosted apply page, as data the server below serves. */
export type HostedVendor = {
  ats: string;
  /** The apply page's path on the double. */
  applyPath: string;
  /** The page for this variant (a closed posting, a wall on load, or the form). */
  page(variant: HostedVariant): HostedReply;
  /**
   * A POST from the page: `early` when it is a write before the final post (recorded as such),
   * `read` when it only reads (a form definition), with the vendor's answer for this variant.
   */
  post(request: HostedRequest, variant: HostedVariant): { kind: 'early' | 'submission' | 'read'; reply: HostedReply };
  /** Pages the vendor moves to after a post (a confirmation page). */
  extraPages?: Record<string, HostedReply>;
  /** The variants the vendor has: a vendor that never refuses duplicates has no `duplicate`. */
  variants: readonly HostedVariant[];
};

export type HostedAtsDouble = {
  ats: string;
  origin: string;
  /** The apply page's URL. */
  url: string;
  /** Final posts, in order. */
  submissions: HostedRequest[];
  /** Writes before the final post (uploads on choose, per-field saves), in order. */
  earlyWrites: HostedRequest[];
  /** `GET /path`, `early /path`, `POST /path` in order; a test appends its own marks. */
  events: string[];
  variants: readonly HostedVariant[];
  setVariant(variant: HostedVariant): void;
  close(): Promise<void>;
};

async function readRequest(request: IncomingMessage): Promise<HostedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const url = new URL(request.url ?? '/', 'http://double');
  const type = request.headers['content-type'] ?? '';
  const parts: HostedRequest['parts'] = [];
  let json: unknown = undefined;
  if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    const form = await new Response(body, { headers: { 'content-type': type } }).formData();
    for (const [name, value] of form) {
      parts.push([
        name,
        typeof value === 'string' ? value : { filename: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) },
      ]);
    }
  } else if (type.startsWith('application/json') && body.length > 0) {
    json = JSON.parse(body.toString('utf8')) as unknown;
  }
  return { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, parts, json };
}

function send(response: ServerResponse, reply: HostedReply): void {
  const body = reply.html ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
  response.writeHead(reply.status, {
    'content-type': reply.html !== undefined ? 'text/html; charset=utf-8' : 'application/json',
    ...reply.headers,
  });
  response.end(body);
}

/** A loopback server for one vendor's hosted apply page that records what the page sends. */
export async function startHostedAtsDouble(vendor: HostedVendor): Promise<HostedAtsDouble> {
  const submissions: HostedRequest[] = [];
  const earlyWrites: HostedRequest[] = [];
  const events: string[] = [];
  let variant: HostedVariant = 'accept';
  const server = createServer((request, response) => {
    void readRequest(request).then(
      (got) => {
        if (got.method === 'GET') {
          events.push(`GET ${got.path}`);
          if (got.path === vendor.applyPath) return send(response, vendor.page(variant));
          const extra = vendor.extraPages?.[got.path];
          return send(response, extra ?? { status: 404, html: '<!doctype html><title>Not found</title><p>Not found</p>' });
        }
        const { kind, reply } = vendor.post(got, variant);
        if (kind === 'read') return send(response, reply);
        (kind === 'early' ? earlyWrites : submissions).push(got);
        events.push(`${kind === 'early' ? 'early' : 'POST'} ${got.path}`);
        return send(response, reply);
      },
      (error: unknown) => {
        response.writeHead(500);
        response.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    ats: vendor.ats,
    origin,
    url: `${origin}${vendor.applyPath}`,
    submissions,
    earlyWrites,
    events,
    variants: vendor.variants,
    setVariant: (next) => {
      if (!vendor.variants.includes(next)) throw new Error(`the ${vendor.ats} double has no "${next}" answer`);
      variant = next;
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** HTML-escapes a text for an attribute or an element. */
export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export const htmlPage = (title: string, head: string, body: string, script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${head}</head><body>${body}<script>${script}</script></body></html>`;
