import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay on loopback in front of a real server (Redis), so one process can be cut off from it
 * while everything else still reaches it: `cut()` stops passing bytes both ways on every connection
 * (as a network partition does: nothing is refused, nothing arrives) until `heal()`.
 */
export type TcpCut = { port: number; cut(): void; heal(): void; close(): Promise<void> };

export async function startTcpCut(target: { host: string; port: number }): Promise<TcpCut> {
  let severed = false;
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    if (severed) {
      client.pause();
      upstream.pause();
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      severed = true;
      for (const [client, upstream] of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    heal() {
      severed = false;
      for (const [client, upstream] of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    close: () =>
      new Promise((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
