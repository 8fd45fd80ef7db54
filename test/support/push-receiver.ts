import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type ReceivedPush = {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  bytes: number;
  receivedAt: number;
};

type ReceiverMode = { status: number; delayMs?: number; hang?: boolean };

/**
 * A real HTTP server standing in for a client's push endpoint. It records every complete request,
 * how many were in flight at once per path, and answers as `mode(path)` says (a status, a delay,
 * or never answering at all).
 */
export type PushReceiver = {
  url: (path: string) => string;
  received: ReceivedPush[];
  maxInFlight: Map<string, number>;
  setMode: (path: string, mode: ReceiverMode) => void;
  /** Requests that started (headers received), including ones never answered. */
  started: Map<string, number>;
  close: () => Promise<void>;
};

export async function startPushReceiver(options: { keepBodies?: boolean } = {}): Promise<PushReceiver> {
  const received: ReceivedPush[] = [];
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const started = new Map<string, number>();
  const modes = new Map<string, ReceiverMode>();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    started.set(path, (started.get(path) ?? 0) + 1);
    inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
    maxInFlight.set(path, Math.max(maxInFlight.get(path) ?? 0, inFlight.get(path) ?? 0));
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (options.keepBodies !== false) chunks.push(chunk);
    });
    const done = () => inFlight.set(path, (inFlight.get(path) ?? 1) - 1);
    request.on('close', done);
    request.on('end', () => {
      const mode = modes.get(path) ?? { status: 200 };
      if (mode.hang) return;
      received.push({
        path,
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        bytes,
        receivedAt: Date.now(),
      });
      const answer = () =>
        response.writeHead(mode.status, { 'content-type': 'application/json' }).end(mode.status >= 400 ? '{"error":"nope"}' : '');
      if (mode.delayMs) setTimeout(answer, mode.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    maxInFlight,
    started,
    setMode: (path, mode) => modes.set(path, mode),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
