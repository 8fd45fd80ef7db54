import { spawn, type ChildProcess } from 'node:child_process';
import { createClient } from '@quarry/auth';
import { createPool } from '@quarry/db';
import { createTestDatabase, createTestRedis, freePort, quarryEnv, waitFor } from '@quarry/testing';
import { cleanUpOnExit, printTable, repoRoot } from './harness.ts';
import { busySeconds, processCpuSeconds } from './machine-cpu.ts';
import { postfixTool, startPostfixSink, type PostfixSink, type SunkMessage } from './postfix-sink.ts';
import { postfixPackage, postfixQueueIdTime, postfixUnavailable, startPostfixReference, type PostfixPackage } from './postfix-reference.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;

/** Latency of each delivered message in ms (its file's mtime against its acceptance), and when the last one arrived. */
function latenciesOf(messages: SunkMessage[]): { latencies: number[]; lastAt: number } {
  const latencies: number[] = [];
  let lastAt = 0;
  for (const { head, at } of messages) {
    lastAt = Math.max(lastAt, at);
    const accepted = acceptedAt(head);
    if (accepted !== null) latencies.push(at - accepted);
  }
  return { latencies, lastAt };
}

/**
 * When a message was accepted, from the trace header of the system that forwarded it. Quarry's
 * Received id begins with the ms since the epoch in base 36, written at acceptance. Postfix's long
 * queue id carries the time its queue file was created, at MAIL FROM: a little before its 250, so
 * Postfix's latency includes the DATA transfer.
 */
function acceptedAt(head: string): number | null {
  const quarryId = /\(Quarry\) with \S+ id ([0-9a-z]{8})/.exec(head)?.[1];
  if (quarryId) return parseInt(quarryId, 36);
  const postfixId = /\(Postfix\) with \S+ id (\S+)/.exec(head)?.[1];
  return postfixId ? postfixQueueIdTime(postfixId) : null;
}

function startMailRole(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [quarryMain, 'start', '--role', 'mail'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const forget = cleanUpOnExit(() => child.kill('SIGKILL'));
  child.once('exit', forget);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('"quarry started"')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`quarry mail exited with ${code}`)));
  });
}

function runSmtpSource(args: string[]): Promise<{ seconds: number; code: number | null; stderr: string }> {
  const { bin, env } = postfixTool('smtp-source');
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(bin, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ seconds: (performance.now() - started) / 1000, code, stderr: stderr.slice(0, 2000) }));
  });
}

type Mode = 'new connection per message' | 'connections reused';

type Row = {
  system: string;
  mode: string;
  accepted: number;
  acceptedPerSecond: number;
  deliveredPerSecond: number;
  p50: number;
  p99: number;
  lost: number;
  /** CPU per delivered message, in ms: the whole machine (Postgres, Redis, the load tools included), and the mail system's own processes. */
  machineCpuMs: number;
  mailCpuMs: number;
};

type Options = { messages: number; sessions: number; bytes: number; processes: number; postfixSettings: Record<string, string> };

/** What the measurement needs from the system under test, Quarry or the Postfix reference. */
type SystemUnderTest = {
  port: number;
  startCounting: () => Promise<void>;
  /** Messages answered 250 since the last call of startCounting. */
  acceptedSinceStart: () => Promise<number>;
  cpuSeconds: () => number;
};

/**
 * `npm run bench -- smtp`: 10,000 messages of 10 KB over 20 parallel sessions (Postfix's
 * smtp-source) to a bound recipient of a `mail` role process, delivered through the smarthost
 * setting to a local sink; once with a new connection per message, once with connections reused.
 * Postfix, the reference, is measured the same way right after each Quarry run, so that
 * both meet the same machine in the same state: the VM's speed changes from day to day and hour to
 * hour. `--runs N` repeats everything N times, each on a fresh store, Redis prefix and processes.
 */
export async function benchSmtp(options: Options & { runs: number }): Promise<void> {
  const unavailable = postfixUnavailable();
  if (unavailable) console.error(`Postfix reference skipped: ${unavailable}`);
  const postfix = unavailable ? null : postfixPackage();
  const rows: Row[] = [];
  for (let run = 1; run <= options.runs; run += 1) {
    const label = options.runs > 1 ? ` (run ${run})` : '';
    for (const mode of ['new connection per message', 'connections reused'] as const) {
      rows.push({ ...(await measureQuarry(mode, options)), mode: mode + label });
      if (postfix) rows.push({ ...(await measurePostfix(postfix, mode, options)), mode: mode + label });
    }
  }
  printTable(
    `SMTP: ${options.messages} messages of ${options.bytes} bytes, ${options.sessions} sessions (smtp-source), ${options.processes} Quarry mail process(es); the relay/smarthost is Postfix's smtp-sink`,
    [
      'system',
      'mode',
      'accepted',
      'accepted msg/s',
      'delivered msg/s (end to end)',
      'p50 latency ms',
      'p99 latency ms',
      'lost',
      'CPU ms per message: machine / mail system',
    ],
    rows.map((row) => [
      row.system,
      row.mode,
      row.accepted,
      Math.round(row.acceptedPerSecond),
      Math.round(row.deliveredPerSecond),
      row.p50,
      row.p99,
      row.lost,
      `${row.machineCpuMs.toFixed(2)} / ${row.mailCpuMs.toFixed(2)}`,
    ]),
  );
  if (postfix) printComparison(rows);
}

/** Quarry's figures over Postfix's, run by run: the target is at least 1 in every column. */
function printComparison(rows: Row[]): void {
  const quarry = rows.filter((row) => row.system === 'Quarry');
  printTable(
    'Quarry ÷ Postfix, measured one after the other',
    ['mode', 'accepted msg/s', 'delivered msg/s', 'machine CPU per message'],
    quarry.flatMap((ours) => {
      const theirs = rows.find((row) => row.system !== 'Quarry' && row.mode === ours.mode);
      return theirs
        ? [
            [
              ours.mode,
              (ours.acceptedPerSecond / theirs.acceptedPerSecond).toFixed(2),
              (ours.deliveredPerSecond / theirs.deliveredPerSecond).toFixed(2),
              (ours.machineCpuMs / theirs.machineCpuMs).toFixed(2),
            ],
          ]
        : [];
    }),
  );
}

async function measureQuarry(mode: Mode, options: Options): Promise<Row> {
  const database = await createTestDatabase('bench_smtp');
  const redis = createTestRedis('bench-smtp');
  const secretKey = Buffer.alloc(32, 2);
  const db = createPool(database.url, 2);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['forwarding'] });
  await db.query(
    `INSERT INTO mail_bindings (recipient, client_id, forwards_to, expires_at) VALUES ('bench@fwd.test', $1, 'sink@dest.test', now() + interval '1 day')`,
    [client.clientId],
  );
  const sink = await startPostfixSink();
  const smtpPort = await freePort();
  const quarries: ChildProcess[] = [];
  try {
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...quarryEnv({ database, redis, secretKey }),
      SMTP_PORT: String(smtpPort),
      SMTP_HOST: '127.0.0.1',
      MAIL_DOMAINS: 'fwd.test',
      MAIL_RELAY_SENDER: 'forwarder@relay.test',
      MAIL_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
      // Every process of the role listens on the same port; the kernel spreads the connections.
      SMTP_REUSE_PORT: 'true',
    };
    for (let index = 0; index < options.processes; index += 1) quarries.push(await startMailRole(env));
    let receivedBefore = 0;
    return await measure('Quarry', mode, options, sink, {
      port: smtpPort,
      startCounting: async () => void (receivedBefore = await receivedCount(db)),
      acceptedSinceStart: async () => (await receivedCount(db)) - receivedBefore,
      cpuSeconds: () => quarries.reduce((sum, quarry) => sum + processCpuSeconds(quarry.pid ?? 0), 0),
    });
  } finally {
    await Promise.all(
      quarries.map(async (quarry) => {
        if (quarry.exitCode !== null) return;
        const exited = new Promise((resolve) => quarry.once('exit', resolve));
        quarry.kill('SIGTERM');
        await exited;
      }),
    );
    await sink.close();
    await db.end();
    await redis.cleanup();
    await database.drop();
  }
}

async function measurePostfix(pkg: PostfixPackage, mode: Mode, options: Options): Promise<Row> {
  const sink = await startPostfixSink();
  try {
    const postfix = await startPostfixReference(pkg, {
      relayPort: sink.port,
      port: await freePort(),
      aliases: { 'bench@fwd.test': 'sink@dest.test' },
      settings: options.postfixSettings,
    });
    try {
      return await measure('Postfix 3.7', mode, options, sink, {
        port: postfix.port,
        startCounting: () => postfix.clearLog(),
        acceptedSinceStart: () => postfix.acceptedCount(),
        cpuSeconds: () => postfix.cpuSeconds(),
      });
    } finally {
      await postfix.stop();
    }
  } finally {
    await sink.close();
  }
}

/** A warm-up (JIT, connection pools, caches), then the measured run of smtp-source. */
async function measure(system: string, mode: Mode, options: Options, sink: PostfixSink, under: SystemUnderTest): Promise<Row> {
  const source = (count: number) => [
    ...(mode === 'connections reused' ? ['-d'] : []),
    '-s',
    String(options.sessions),
    '-m',
    String(count),
    '-l',
    String(options.bytes),
    '-f',
    'load@sender.test',
    '-t',
    'bench@fwd.test',
    '-M',
    'bench.test',
    `127.0.0.1:${under.port}`,
  ];
  await runSmtpSource(source(500));
  await waitFor('the warm-up delivered', async () => (await sink.delivered()) >= 500, { timeoutMs: 60_000, intervalMs: 100 });
  await sink.clear();
  await under.startCounting();

  const startedAt = Date.now();
  // CPU per message says what a throughput target asks of the machine: 1,500 msg/s on 2 cores is 1.33 ms.
  const machineBefore = busySeconds();
  const mailBefore = under.cpuSeconds();
  const run = await runSmtpSource(source(options.messages));
  if (run.code !== 0) console.error(`${system}: smtp-source exited ${run.code}: ${run.stderr}`);
  const acceptedAtExit = await under.acceptedSinceStart();
  // A shortfall is reported as loss below, so the wait ends quietly.
  await waitFor('every accepted message delivered', async () => (await sink.delivered()) >= acceptedAtExit, {
    timeoutMs: 300_000,
    intervalMs: 250,
  }).catch(() => {});
  const machineCpuSeconds = busySeconds() - machineBefore;
  const mailCpuSeconds = under.cpuSeconds() - mailBefore;
  // Postfix logs through a separate process; ask again now that everything has settled.
  const accepted = await under.acceptedSinceStart();
  const { latencies, lastAt } = latenciesOf(await sink.messages());
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const delivered = await sink.delivered();
  return {
    system,
    mode,
    accepted,
    acceptedPerSecond: accepted / run.seconds,
    deliveredPerSecond: delivered / ((lastAt - startedAt) / 1000),
    p50: pick(0.5),
    p99: pick(0.99),
    // Loss is what was answered 250 and never delivered; refused messages stay with the sender.
    lost: Math.max(0, accepted - delivered),
    machineCpuMs: (1000 * machineCpuSeconds) / Math.max(1, delivered),
    mailCpuMs: (1000 * mailCpuSeconds) / Math.max(1, delivered),
  };
}

async function receivedCount(db: ReturnType<typeof createPool>): Promise<number> {
  const result = await db.query<{ n: string }>(
    `SELECT COALESCE(sum(received), 0) AS n FROM mail_binding_counters WHERE recipient = 'bench@fwd.test'`,
  );
  return Number(result.rows[0]?.n ?? 0);
}
