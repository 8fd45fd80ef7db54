import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
  links: Array<{ traceId: string; spanId: string }>;
};

type OtlpJson = {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<Omit<ReceivedSpan, 'scope' | 'links'> & { links?: Array<{ traceId: string; spanId: string }> }>;
    }>;
  }>;
};

/** A real OTLP/HTTP (JSON) endpoint collecting every span sent to it (and each body as received, to search it whole). */
export async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; bodies: string[]; close: () => Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        const body = JSON.parse(bodies[bodies.length - 1] ?? '{}') as OtlpJson;
        for (const resource of body.resourceSpans ?? []) {
          for (const scoped of resource.scopeSpans ?? []) {
            for (const span of scoped.spans ?? []) {
              spans.push({ ...span, scope: scoped.scope?.name ?? '', links: span.links ?? [] });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
