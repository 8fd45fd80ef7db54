import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixtureForms, type FixtureFormName } from './fixture-forms.ts';

export type FixtureWeb = {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Requests served so far, by the first path segment (`jobs`, `slow`, …). */
  hits: Map<string, number>;
  /** Serve `body` at `/files/<name>` (CSV files for fileUrl batches). */
  serveFile: (name: string, body: string | Buffer, contentType?: string) => string;
  close: () => Promise<void>;
};

const rotation: FixtureFormName[] = ['basic', 'grouped'];

/**
 * A local careers website on loopback:
 * - `/jobs/<n>`            a form page (shapes rotate with n)
 * - `/forms/<shape>`       a given form shape
 * - `/slow/<n>?ms=5000`    the basic form after a delay
 * - `/error/<n>`           HTTP 500;   `/gone/<n>`: HTTP 404;   `/closed/<n>`: a filled position
 * - `/login/<n>`           a login wall;   `/files/<name>`: registered files
 */
export async function startFixtureWeb(): Promise<FixtureWeb> {
  const files = new Map<string, { body: string | Buffer; contentType: string }>();
  const hits = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const html = (response: ServerResponse, status: number, body: string) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    const [kind = '', id = ''] = url.pathname.split('/').filter(Boolean);
    hits.set(kind, (hits.get(kind) ?? 0) + 1);
    switch (kind) {
      case 'jobs':
        return html(response, 200, fixtureForms[rotation[(Number.parseInt(id, 10) || 0) % rotation.length] ?? 'basic']);
      case 'forms':
        return id in fixtureForms ? html(response, 200, fixtureForms[id as FixtureFormName]) : html(response, 404, 'no such form');
      case 'slow': {
        const timer = setTimeout(
          () => {
            timers.delete(timer);
            html(response, 200, fixtureForms.basic);
          },
          Number(url.searchParams.get('ms') ?? 5_000),
        );
        timers.add(timer);
        return;
      }
      case 'error':
        return html(response, 500, '<h1>Internal error</h1>');
      case 'gone':
        return html(response, 404, '<h1>Not found</h1>');
      case 'closed':
        return html(response, 200, fixtureForms.closed);
      case 'login':
        return html(response, 200, fixtureForms.login);
      case 'files': {
        const file = files.get(id);
        if (!file) return html(response, 404, 'no such file');
        response.writeHead(200, { 'content-type': file.contentType }).end(file.body);
        return;
      }
      default:
        return html(response, 404, 'not found');
    }
  };
  const server = createServer(handle);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    serveFile: (name, body, contentType = 'text/csv') => {
      files.set(name, { body, contentType });
      return `${origin}/files/${name}`;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
