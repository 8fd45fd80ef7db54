import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

export type Server = { port: number; child: ChildProcess; stop: () => Promise<void> };

/** Longer than a role's shutdown grace (25 s by default) and its wait for the checkouts it stopped. */
const stopLimitMs = 60_000;

/** Spawns a node script and waits for its `quarry started` log line, which carries the port. */
export async function spawnServer(script: string, args: string[], env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.includes('"quarry started"'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  child.stdout.resume();
  return {
    port,
    child,
    stop: async () => {
      // A child that already exited (a crash) has no 'exit' event left to wait for.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // A child that outlives its own shutdown grace would hold the bench after its table forever.
      const stuck = setTimeout(() => child.kill('SIGKILL'), stopLimitMs);
      await exited;
      clearTimeout(stuck);
    },
  };
}

export type LoadResult = {
  requestsPerSecond: number;
  p99Ms: number;
  p50Ms: number;
  errors: number;
  non2xx: number;
  /** Responses received, the warm-up's included. */
  totalRequests: number;
};

/** autocannon against one URL: a warm-up, then the measured run. */
export async function load(
  url: string,
  options: { headers?: Record<string, string>; connections: number; seconds: number; requests?: Array<{ method: 'GET'; path: string }> },
): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url,
      connections: options.connections,
      duration,
      headers: options.headers ?? {},
      pipelining: 1,
      ...(options.requests ? { requests: options.requests } : {}),
    });
  const warmUp = await run(2);
  const result = await run(options.seconds);
  return {
    totalRequests: warmUp.requests.total + result.requests.total,
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    p50Ms: result.latency.p50,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function printTable(title: string, header: string[], rows: Array<Array<string | number>>): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of cells.slice(1)) console.log(line(row));
  console.log('');
}

/**
 * Keeps `concurrency` tasks in flight for `seconds`; `task(n)` runs the n-th item and reports
 * whether it succeeded. Returns how many ran, failed, and the time they took.
 */
export async function runFor(
  seconds: number,
  concurrency: number,
  task: (index: number) => Promise<boolean>,
): Promise<{ runs: number; failures: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1_000;
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (!(await task(next++))) failures += 1;
      }
    }),
  );
  return { runs: next, failures, seconds: (performance.now() - started) / 1_000 };
}

const exitCleanups = new Set<() => void>();
let exitHooked = false;

/**
 * Runs `cleanup` (synchronous) if the bench ends while it is registered: an error, Ctrl-C. Child
 * processes outlive their parent otherwise, and Postfix's master even leaves the process group.
 * Returns the call that unregisters it, for the normal way out.
 */
export function cleanUpOnExit(cleanup: () => void): () => void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const registered of exitCleanups) registered();
    });
    // A signal ends the process without 'exit' unless something handles it.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  }
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}
