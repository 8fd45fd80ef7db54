import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Socket } from 'node:net';
import { freePort } from './free-port.ts';

export type PrivateRedis = {
  url: string;
  port: number;
  /** SIGKILL: connections drop with no goodbye, and (no persistence) every key is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  remove(): Promise<void>;
};

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

/**
 * A redis-server of this test's own, on a free port and without persistence, which the test may
 * kill and start again: outage tests must never stop the machine's shared Redis.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | null = null;
  const start = async () => {
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let tries = 0; !(await accepting(port)); tries++) {
      if (tries > 200) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const kill = async () => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, remove: kill };
}
