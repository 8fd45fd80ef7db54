// The callback receiver of `bench callbacks`, in a process of its own (as the push receiver of
// `bench rates`): it answers 204 and reports each request's `webhook-id`, the event's `data.jobPostId`
// and its arrival time in epoch milliseconds (comparable across processes), in groups over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const epochNow = () => performance.timeOrigin + performance.now();
let pending: Array<[string, string, number]> = [];
const flush = () => {
  if (pending.length === 0) return;
  process.send?.({ arrivals: pending });
  pending = [];
};
setInterval(flush, 20).unref();
const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    const at = epochNow();
    const match = /"jobPostId":"([^"]+)"/.exec(body);
    pending.push([String(request.headers['webhook-id'] ?? ''), match?.[1] ?? '', at]);
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('disconnect', () => server.close(() => process.exit(0)));
