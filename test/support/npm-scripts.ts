import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What a newcomer's shell passes to `npm start` / `npm run quarry`: PATH and HOME, nothing of the
 * test runner's own environment, plus the variables the scenario sets.
 */
export function shellEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra };
}

/** Runs `bash scripts/<script> <args>` to completion. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [`scripts/${script}`, ...args], { cwd: repoRoot, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export type StartedProcess<T> = { child: ChildProcess; ready: T; output: () => string; stop: () => Promise<void> };

/** Starts `bash scripts/<script>` (a server: start.sh execs node) and resolves once Quarry logged that it is up. */
export async function startScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<StartedProcess<Record<string, unknown>> & { port: number }> {
  const started = await startUntil('bash', [`scripts/${script}`, ...args], env, 'quarry started', timeoutMs);
  return { ...started, port: Number(started.ready.port) };
}

/** Starts a long-running command and resolves with the first JSON line of stdout whose `msg` is `readyMessage`. */
export async function startUntil(
  command: string,
  args: string[],
  env: Record<string, string>,
  readyMessage: string,
  timeoutMs = 60_000,
): Promise<StartedProcess<Record<string, unknown>>> {
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} ${args.join(' ')} was not ready in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => candidate.startsWith('{') && candidate.includes(`"msg":"${readyMessage}"`));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited before it was ready:\n${output}`));
    });
  });
  return {
    child,
    ready,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
