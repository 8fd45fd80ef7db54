import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const mainScript = fileURLToPath(new URL('../../apps/quarry/src/main.ts', import.meta.url));

export type QuarryProcess = {
  child: ChildProcess;
  port: number;
  /** Where this process serves /metrics (METRICS_PORT; 0 in tests = any free port). */
  metricsPort: number;
  pid: number;
  workerId: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/** Runs `quarry <args>` to completion and returns its exit code and output. */
export function runQuarry(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [mainScript, ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `quarry start --role <role>` and resolves once it logged that it is up. */
export async function startQuarry(role: string, env: Record<string, string>, timeoutMs = 30_000): Promise<QuarryProcess> {
  const child = spawn(process.execPath, [mainScript, 'start', '--role', role], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = await new Promise<{ port: number; metricsPort: number; workerId: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quarry ${role} did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('"quarry started"')) continue;
        const event = JSON.parse(line) as { port: number; metricsPort: number; workerId: string };
        clearTimeout(timer);
        resolve(event);
        return;
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`quarry ${role} exited with ${code} before starting:\n${output}`));
    });
  });
  return {
    child,
    port: started.port,
    metricsPort: started.metricsPort,
    pid: child.pid ?? 0,
    workerId: started.workerId,
    output: () => output,
    exited,
  };
}
