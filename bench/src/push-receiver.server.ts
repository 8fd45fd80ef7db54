// The push receiver of `bench rates`, in a process of its own: a receiver sharing the bench's heap
// (seeded hotels, autocannon) paused for that heap's collections in the middle of a 50 MB body, which
// measured the bench, not the sender. It counts bytes, answers 204 and reports each request to the
// parent over IPC, with times in epoch milliseconds (comparable across processes).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const epochNow = () => performance.timeOrigin + performance.now();
const server = createServer((request, response) => {
  const startedAt = epochNow();
  let bytes = 0;
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => {
    process.send?.({ path: request.url ?? '/', bytes, startedAt, endedAt: epochNow() });
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
