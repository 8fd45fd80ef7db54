import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

/** A loopback TCP port nobody listens on right now, for a server that must be told its port up front. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Waits until a server a test started answers on a loopback port; `failed` names why to stop
 * waiting (the process exited), or undefined while it may still come up.
 */
export async function waitUntilAccepting(port: number, what: string, failed: () => string | undefined = () => undefined): Promise<void> {
  for (let tries = 0; !(await accepting(port)); tries++) {
    const reason = failed();
    if (reason !== undefined || tries > 400) throw new Error(`${what} did not start on port ${port}${reason ? `: ${reason}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function accepting(port: number): Promise<boolean> {
  const socket = new Socket();
  try {
    socket.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}
