import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@quarry/testing';
import { cleanUpOnExit } from './harness.ts';
import { postfixPackage } from './postfix-reference.ts';

/** One of Postfix's load tools from the extracted package: the binary and the environment it runs in. */
export function postfixTool(name: 'smtp-source' | 'smtp-sink'): { bin: string; env: NodeJS.ProcessEnv } {
  const { root, env } = postfixPackage();
  return { bin: join(root, 'usr/sbin', name), env };
}

/** A message the sink took: the start of its dump file and when the file was last written (the end of DATA). */
export type SunkMessage = { file: string; head: string; at: number };

/**
 * A destination for forwarded mail: Postfix's smtp-sink, which writes every message it takes to a
 * file of its own in a tmpfs folder. A sink in C leaves the two cores to the system measured (a
 * sink in the bench's own Node process competes with its load generators); the files give the
 * delivery count and, from each file's head and mtime, which message arrived when.
 */
export async function startPostfixSink() {
  const { bin, env } = postfixTool('smtp-sink');
  const folder = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'quarry-smtp-sink-'));
  // smtp-sink started as root must drop to another user (-u), who then writes the dump files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chmod(folder, 0o777);
  const port = await freePort();
  const child = spawn(bin, [...(asRoot ? ['-u', 'nobody'] : []), '-d', `${folder}/m.`, `127.0.0.1:${port}`, '256'], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const forget = cleanUpOnExit(() => {
    child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });
  await waitFor(`smtp-sink listening on ${port}`, () => listening(port), { timeoutMs: 10_000 });
  const files = async () => (await readdir(folder)).map((name) => join(folder, name));
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    delivered: async () => (await files()).length,
    /** Every message taken so far, or only those not in `known` (file names already read). */
    async messages(known: ReadonlySet<string> = new Set(), headBytes = 2048): Promise<SunkMessage[]> {
      const fresh = (await files()).filter((file) => !known.has(file));
      return Promise.all(
        fresh.map(async (file) => {
          const [head, stats] = await Promise.all([readHead(file, headBytes), stat(file)]);
          return { file, head, at: stats.mtimeMs };
        }),
      );
    },
    clear: async () => Promise.all((await files()).map((file) => rm(file))),
    close: async () => {
      forget();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export type PostfixSink = Awaited<ReturnType<typeof startPostfixSink>>;

async function readHead(file: string, bytes: number): Promise<string> {
  const handle = await open(file);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

/** True once something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    }).on('error', () => resolve(false));
  });
}
