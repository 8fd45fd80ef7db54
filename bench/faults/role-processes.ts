import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const mainScript = fileURLToPath(new URL('../../apps/quarry/src/main.ts', import.meta.url));

/** An exit nobody asked for: a process that died on its own (the suite's "process exits"). */
export type UnexpectedExit = { name: string; at: number; code: number | null; signal: NodeJS.Signals | null; lastLines: string };

/**
 * One `quarry start --role X` process under a supervisor, as systemd or Kubernetes would run it:
 * when it ends it is started again after `restartDelayMs`. An end the suite caused (a kill or a
 * SIGTERM it sent) is expected; any other end is recorded as an unexpected exit.
 */
export type RoleProcess = {
  name: string;
  role: string;
  port: () => number;
  smtpPort: () => number;
  pid: () => number;
  /** Sends the signal as a fault (the exit that follows is expected); resolves once it exited. */
  signal(signal: 'SIGKILL' | 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the process (restarted if need be) logged that it is up. */
  ready(): Promise<void>;
  alive(): boolean;
  stop(): Promise<void>;
};

type Started = { child: ChildProcess; port: number; smtpPort: number; output: string[] };

export function superviseRole(
  name: string,
  role: string,
  env: Record<string, string>,
  onUnexpectedExit: (exit: UnexpectedExit) => void,
  restartDelayMs = 1_000,
): RoleProcess {
  let current: Started | null = null;
  let starting: Promise<Started> | null = null;
  let expectingExit = false;
  let stopped = false;

  const launch = (): Promise<Started> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [mainScript, 'start', '--role', role], {
        cwd: repoRoot,
        env: { ...process.env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const output: string[] = [];
      let pending = '';
      let port = 0;
      let smtpPort = 0;
      let up = false;
      const onLine = (line: string) => {
        output.push(line);
        if (output.length > 200) output.shift();
        if (line.includes('"smtp listening"')) smtpPort = (JSON.parse(line) as { smtpPort: number }).smtpPort;
        if (line.includes('"quarry started"')) {
          port = (JSON.parse(line) as { port: number }).port;
          up = true;
          // The mail role logs its SMTP port before "quarry started".
          resolve({ child, port, smtpPort, output });
        }
      };
      const onData = (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.on('exit', (code, signal) => {
        const wasExpected = expectingExit;
        expectingExit = false;
        if (current?.child === child) current = null;
        if (!wasExpected && !stopped) onUnexpectedExit({ name, at: Date.now(), code, signal, lastLines: output.slice(-8).join('\n') });
        if (!up) reject(new Error(`${name} exited (${code ?? signal}) before starting:\n${output.slice(-20).join('\n')}`));
        if (!stopped) setTimeout(() => void ensure().catch(() => {}), restartDelayMs);
      });
    });

  const ensure = async (): Promise<Started> => {
    if (current) return current;
    starting ??= launch().finally(() => (starting = null));
    current = await starting;
    return current;
  };

  return {
    name,
    role,
    port: () => current?.port ?? 0,
    smtpPort: () => current?.smtpPort ?? 0,
    pid: () => current?.child.pid ?? 0,
    alive: () => current !== null && current.child.exitCode === null && current.child.signalCode === null,
    async signal(signal) {
      const running = await ensure();
      expectingExit = true;
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        running.child.once('exit', (code, got) => resolve({ code, signal: got })),
      );
      running.child.kill(signal);
      return exited;
    },
    async ready() {
      await ensure();
    },
    async stop() {
      stopped = true;
      const running = current;
      if (!running) return;
      const exited = new Promise((resolve) => running.child.once('exit', resolve));
      running.child.kill('SIGKILL');
      await exited;
    },
  };
}
