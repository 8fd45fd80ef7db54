import { createServer, type Server } from 'node:http';
import { freePort } from '@quarry/testing';

/** One push as the receiver took it: its subscription path, the state version it carried, when. */
type TakenPush = { path: string; version: number; at: number };

/**
 * A client's push endpoint on a fixed port that can go down (nothing listens: connections are
 * refused) and come back, and can hold its answers for a while so pushes are in flight.
 */
export type PushSink = {
  url: (path: string) => string;
  taken: TakenPush[];
  /** Highest version taken per path. */
  latest: Map<string, number>;
  /** A version older than one taken before for the same path (an older state after a newer). */
  regressions: number;
  setAnswerDelay(ms: number): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
};

export async function startPushSink(): Promise<PushSink> {
  const port = await freePort();
  const taken: TakenPush[] = [];
  const latest = new Map<string, number>();
  let regressions = 0;
  let answerDelayMs = 0;
  let server: Server | null = null;
  const listen = async () => {
    const next = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const path = request.url ?? '/';
        const version = Number(request.headers['x-quarry-state-version'] ?? 0);
        const answer = () => {
          // Taken only when the 200 goes out: a push cut before that was not received.
          if (version < (latest.get(path) ?? 0)) regressions += 1;
          latest.set(path, Math.max(version, latest.get(path) ?? 0));
          taken.push({ path, version, at: Date.now() });
          response.writeHead(200).end();
        };
        if (answerDelayMs > 0) setTimeout(answer, answerDelayMs);
        else answer();
      });
    });
    next.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => next.listen(port, '127.0.0.1', () => resolve()));
    server = next;
  };
  const down = async () => {
    const running = server;
    server = null;
    if (!running) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  };
  await listen();
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    taken,
    latest,
    get regressions() {
      return regressions;
    },
    setAnswerDelay: (ms) => (answerDelayMs = ms),
    down,
    up: listen,
    close: down,
  };
}
