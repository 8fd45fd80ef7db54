import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const workerScript = fileURLToPath(new URL('./bookings-worker-with-test-vault.ts', import.meta.url));

export type BookingsWorker = { child: ChildProcess; output: () => string; exited: Promise<unknown> };

/** Starts a real bookings-worker process (test vault) and resolves once it is up. */
export async function startBookingsWorker(env: Record<string, string>): Promise<BookingsWorker> {
  const child = spawn(process.execPath, [workerScript], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"quarry started"')) resolve();
    });
    void exited.then(() => reject(new Error(`bookings worker exited:\n${output}`)));
  });
  return { child, output: () => output, exited };
}
