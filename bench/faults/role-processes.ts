import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkerNamespace } from './network.ts';

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
  /** SIGSTOP of the process and every process it started (its Chromium): frozen, connections open. */
  pause(): Promise<void>;
  /** SIGCONT of the same processes, the children first. */
  resume(): Promise<void>;
  /** The network namespace it runs in, when not the machine's. */
  namespace?: WorkerNamespace;
  /** Resolves once the process (restarted if need be) logged that it is up. */
  ready(): Promise<void>;
  alive(): boolean;
  stop(): Promise<void>;
};

type Started = { child: ChildProcess; port: number; smtpPort: number; output: string[] };

/** Parent pid of every process of the machine, read from /proc. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), parent);
    } catch {
      // Gone meanwhile.
    }
  }
  return parentOf;
}

/** `pid` and every process below it, parents before children. */
function processTree(pid: number): number[] {
  const parentOf = parents();
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    for (const [child, parent] of parentOf) if (parent === tree[index]) tree.push(child);
  }
  return tree;
}

/** The process among `roots` that `pid` is, or descends from (a role's Chromium belongs to its role). */
export function ancestorAmong<T extends { pid: () => number }>(pid: number, roots: T[]): T | undefined {
  const parentOf = parents();
  for (let current: number | undefined = pid; current !== undefined && current > 1; current = parentOf.get(current)) {
    const found = roots.find((root) => root.pid() === current);
    if (found) return found;
  }
  return undefined;
}

export function superviseRole(
  name: string,
  role: string,
  env: Record<string, string>,
  onUnexpectedExit: (exit: UnexpectedExit) => void,
  options: { restartDelayMs?: number; namespace?: WorkerNamespace } = {},
): RoleProcess {
  const restartDelayMs = options.restartDelayMs ?? 1_000;
  const logDirectory = process.env.FAULTS_LOG_DIR;
  let paused: number[] = [];
  let current: Started | null = null;
  let starting: Promise<Started> | null = null;
  let expectingExit = false;
  let stopped = false;

  const launch = (): Promise<Started> =>
    new Promise((resolve, reject) => {
      const args = [mainScript, 'start', '--role', role];
      // `ip netns exec` replaces itself with the command: the child's pid is the role's.
      const [command, commandArgs] = options.namespace ? options.namespace.exec(process.execPath, args) : [process.execPath, args];
      const child = spawn(command, commandArgs, {
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
        // FAULTS_LOG_DIR keeps each role's whole log, for reading a scenario's timeline afterwards.
        if (logDirectory) appendFileSync(`${logDirectory}/${name}.log`, `${line}\n`);
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
    ...(options.namespace ? { namespace: options.namespace } : {}),
    async pause() {
      const running = await ensure();
      paused = processTree(running.child.pid ?? 0);
      for (const pid of paused) {
        try {
          process.kill(pid, 'SIGSTOP');
        } catch {
          // Ended meanwhile.
        }
      }
    },
    async resume() {
      for (const pid of [...paused].reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Ended meanwhile.
        }
      }
      paused = [];
    },
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
      // A paused process ends on SIGKILL too, but its Chromium would stay stopped: wake them first.
      for (const pid of paused) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // Ended meanwhile.
        }
      }
      running.child.kill('SIGKILL');
      await exited;
    },
  };
}
