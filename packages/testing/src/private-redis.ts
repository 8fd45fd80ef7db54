import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntilAccepting } from './free-port.ts';

export type PrivateRedis = {
  url: string;
  port: number;
  /** SIGKILL: connections drop with no goodbye; without `appendOnly` every key is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port: empty, or (`appendOnly`) with what its append-only file kept. */
  start(): Promise<void>;
  /** Deletes the append-only file of a killed server: the next `start` is empty, as after a lost disk. */
  wipe(): void;
  /** SIGSTOP: connections stay open and nothing answers, as when the network to it is cut. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
  remove(): Promise<void>;
};

/**
 * A redis-server of this test's own, on a free port, which the test may kill and start again:
 * outage tests must never stop the machine's shared Redis. Without persistence by default; with
 * `appendOnly` it keeps an append-only file (fsync every second) as an operator's Redis does.
 * `listen` adds addresses of the test's own (a veth end that a network namespace reaches it
 * through), with protected mode off so that the namespace's address may connect.
 */
export async function startPrivateRedis(options: { appendOnly?: boolean; listen?: string[] } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const folder = mkdtempSync(join(tmpdir(), 'quarry-redis-'));
  const persistence = options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no'];
  let server: ChildProcess | null = null;
  const start = async () => {
    // Already running: a second redis-server could not bind the port, and would replace the
    // running one as the process `kill` stops (so a kill would then leave Redis up).
    if (server && server.exitCode === null && server.signalCode === null) return;
    server = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        ...(options.listen ?? []),
        ...(options.listen?.length ? ['--protected-mode', 'no'] : []),
        '--dir',
        folder,
        '--save',
        '',
        ...persistence,
      ],
      { stdio: 'ignore' },
    );
    await waitUntilAccepting(port, 'redis-server');
  };
  const kill = async () => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  const wipe = () => {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    start,
    wipe,
    pause: () => void server?.kill('SIGSTOP'),
    resume: () => void server?.kill('SIGCONT'),
    async remove() {
      server?.kill('SIGCONT');
      await kill();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
