import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool as HttpPool } from 'undici';
import { Webhook } from 'standardwebhooks';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { ensureCallbackSecret, jobPostEvent, oweCallback } from '@quarry/callbacks';
import { createClient as createPgClient, createPool, migrateToLatest, withTransaction } from '@quarry/db';
import { createTestDatabase, createTestRedis, quarryEnv } from '@quarry/testing';
import { cleanUpOnExit, printTable, repoRoot, spawnServer } from './harness.ts';
import { measureMachineCpu, processCpuSeconds } from './machine-cpu.ts';

const mainScript = fileURLToPath(new URL('../../apps/quarry/src/main.ts', import.meta.url));
const receiverScript = fileURLToPath(new URL('./callback-receiver.server.ts', import.meta.url));
/** The relays' advisory lock (packages/callbacks): held by the bench while it fills the outbox. */
const relayLockKey = 5_301_053;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * `npm run bench -- callbacks`: recruitment's callbacks from the outbox to a receiver on loopback
 * (a process of its own), through one real `applications-worker` process (relay, `callbacks.deliver`
 * queue, signatures, the SSRF-guarded fetch, the outbox's answers), with its default settings
 * (CALLBACK_CLIENT_CONCURRENCY, 50: the events of the one client in flight). Rows:
 * - throughput: `events` owed while the relays are held back, then released: events delivered per
 *   second, beside the floor: the same signed POSTs sent by a bare undici loop with as many in flight;
 * - latency: events owed at `rate` per second, each committed in a transaction of its own (as an
 *   outcome's), for `seconds`: p50 / p99 / max from the commit to the receiver's reading of it.
 * Targets: throughput ≥ 50% of the floor; p99 < 1 s at 500 events/s.
 */
export async function benchCallbacks(options: { events: number; rate: number; seconds: number }): Promise<void> {
  const secretKey = Buffer.alloc(32, 11);
  const database = await createTestDatabase('bench-callbacks');
  const redis = createTestRedis('bench-callbacks');
  await migrateToLatest(database.url);
  // Enough connections to offer 500 commits/s while each waits for the WAL's flush on a loaded machine.
  const db = createPool(database.url, 32);
  const client = await createClient({ db, secretKey }, { name: 'bench platform', scopes: ['recruitment'] });
  const secret = (await ensureCallbackSecret(db, createSealer(secretKey), client.clientId)) as string;
  const receiver = fork(receiverScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const forget = cleanUpOnExit(() => receiver.kill('SIGKILL'));
  const arrivals = new Map<string, number>();
  let arrived = 0;
  let repeats = 0;
  const port = await new Promise<number>((resolve) =>
    receiver.on('message', (message: { port?: number; arrivals?: Array<[string, string, number]> }) => {
      if (message.port) resolve(message.port);
      for (const [, jobPostId, at] of message.arrivals ?? []) {
        if (jobPostId === 'floor') continue;
        arrived += 1;
        if (arrivals.has(jobPostId)) repeats += 1;
        else arrivals.set(jobPostId, at);
      }
    }),
  );
  const url = `http://127.0.0.1:${port}/hooks`;
  const env = {
    ...quarryEnv({ database, redis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    MINING_BROWSER: 'off',
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
  };
  const worker = await spawnServer(mainScript, ['start', '--role', 'applications-worker'], { ...env, LOG_LEVEL: 'info' });
  // A run that fails leaves no worker behind, delivering into a dropped database.
  const forgetWorker = cleanUpOnExit(() => worker.child.kill('SIGKILL'));
  // The client's cap of events in flight (CALLBACK_CLIENT_CONCURRENCY, inherited by the worker): the floor keeps as many in flight.
  const inFlight = Number(process.env.CALLBACK_CLIENT_CONCURRENCY ?? 50);
  const owe = (client_: { query: typeof db.query }, jobPostId: string) =>
    oweCallback(client_, {
      clientId: client.clientId,
      url,
      subjectId: jobPostId,
      at: new Date(),
      ...jobPostEvent({ jobPostId, batchId: null, kind: 'completed', succeededAt: new Date() }),
    });
  const waitForArrivals = async (count: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (arrived < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  try {
    // Warm-up: connections, prepared plans, the worker's JIT.
    await withTransaction(db, async (tx) => {
      for (let index = 0; index < 500; index += 1) await owe(tx, `warm-${index}`);
    });
    await waitForArrivals(500, 60_000);

    // Throughput: a backlog owed while the relays wait on their lock, then released.
    const lock = createPgClient(database.url);
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock($1)', [relayLockKey]);
    for (let start = 0; start < options.events; start += 1_000) {
      await withTransaction(db, async (tx) => {
        for (let index = start; index < Math.min(options.events, start + 1_000); index += 1) await owe(tx, `tp-${index}`);
      });
    }
    const before = arrived;
    const workerCpu = processCpuSeconds(worker.child.pid ?? 0);
    const machine = measureMachineCpu();
    const released = performance.timeOrigin + performance.now();
    await lock.query('SELECT pg_advisory_unlock($1)', [relayLockKey]);
    await lock.end();
    await waitForArrivals(before + options.events, 600_000);
    const lastArrival = Math.max(...[...arrivals.entries()].filter(([id]) => id.startsWith('tp-')).map(([, at]) => at));
    const throughputSeconds = (lastArrival - released) / 1000;
    const throughputBusy = machine.stop();
    const workerMsPerEvent = (1000 * (processCpuSeconds(worker.child.pid ?? 0) - workerCpu)) / options.events;
    const delivered = [...arrivals.keys()].filter((id) => id.startsWith('tp-')).length;

    // The floor: the same signed POSTs (one per event, fresh signature each), a bare undici loop, as many in flight.
    const floorPool = new HttpPool(`http://127.0.0.1:${port}`, { connections: inFlight });
    const webhook = new Webhook(secret);
    const body = JSON.stringify({
      type: 'jobPost.mined',
      timestamp: new Date().toISOString(),
      data: jobPostEvent({ jobPostId: 'floor', batchId: null, kind: 'completed' }).data,
    });
    let next = 0;
    const floorMachine = measureMachineCpu();
    const floorCpu = processCpuSeconds(process.pid);
    const floorStarted = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < options.events) {
          const index = next++;
          const now = new Date();
          const id = `msg_floor${index}`;
          const response = await floorPool.request({
            method: 'POST',
            path: '/hooks',
            headers: {
              'content-type': 'application/json',
              'webhook-id': id,
              'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
              'webhook-signature': webhook.sign(id, now, body),
            },
            body,
          });
          await response.body.dump();
        }
      }),
    );
    const floorSeconds = (performance.now() - floorStarted) / 1000;
    const floorBusy = floorMachine.stop();
    const floorMsPerEvent = (1000 * (processCpuSeconds(process.pid) - floorCpu)) / options.events;
    await floorPool.close();

    // Latency at a steady rate: each event committed in a transaction of its own, paced.
    const committedAt = new Map<string, number>();
    const total = options.rate * options.seconds;
    const latencyMachine = measureMachineCpu();
    const latencyStart = performance.now();
    const commits: Array<Promise<void>> = [];
    let behind = 0;
    let failedCommits = 0;
    for (let index = 0; index < total; index += 1) {
      const due = latencyStart + (index * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      else if (wait < -50) behind += 1;
      const jobPostId = `lat-${index}`;
      commits.push(
        withTransaction(db, async (tx) => {
          await owe(tx, jobPostId);
        }).then(
          () => void committedAt.set(jobPostId, performance.timeOrigin + performance.now()),
          // A commit that waited past the pool's connect limit on a saturated machine: counted, not fatal to the run.
          () => void (failedCommits += 1),
        ),
      );
    }
    await Promise.all(commits);
    const offeredSeconds = (performance.now() - latencyStart) / 1000;
    const latencyIds = [...committedAt.keys()];
    const deadline = Date.now() + 60_000;
    while (latencyIds.some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const latencyBusy = latencyMachine.stop();
    const latencies = latencyIds.flatMap((id) => {
      const at = arrivals.get(id);
      const committed = committedAt.get(id);
      return at !== undefined && committed !== undefined ? [Math.max(0, at - committed)] : [];
    });
    const lost = latencyIds.length - latencies.length;

    printTable(
      `callbacks: one applications-worker process (${inFlight} events of the client in flight, CALLBACK_CLIENT_CONCURRENCY), a receiver in a process of its own, Postgres and Redis on this machine (${repoRoot})`,
      ['what', 'events/s', 'p50 ms', 'p99 ms', 'max ms', 'notes'],
      [
        [
          `throughput: ${options.events} events owed, then the relays released`,
          (delivered / throughputSeconds).toFixed(0),
          '',
          '',
          '',
          `${delivered}/${options.events} delivered in ${throughputSeconds.toFixed(1)} s; worker CPU ${workerMsPerEvent.toFixed(2)} ms/event; machine ${Math.round(throughputBusy)}% busy`,
        ],
        [
          `floor: the same signed POSTs from a bare undici loop, ${inFlight} in flight`,
          (options.events / floorSeconds).toFixed(0),
          '',
          '',
          '',
          `loop CPU ${floorMsPerEvent.toFixed(2)} ms/event; machine ${Math.round(floorBusy)}% busy; Quarry at ${((100 * (delivered / throughputSeconds)) / (options.events / floorSeconds)).toFixed(0)}% of it (target ≥ 50%)`,
        ],
        [
          `latency: ${options.rate} events/s offered for ${options.seconds} s, each in a transaction of its own, commit → receiver`,
          (latencyIds.length / offeredSeconds).toFixed(0),
          percentile(latencies, 50).toFixed(0),
          percentile(latencies, 99).toFixed(0),
          Math.max(...latencies).toFixed(0),
          `${lost} not arrived in 60 s; ${behind} commits started > 50 ms late, ${failedCommits} failed (no connection within 10 s); machine ${Math.round(latencyBusy)}% busy (target p99 < 1000 ms)`,
        ],
        ['repeats seen by the receiver (same webhook-id again)', '', '', '', '', String(repeats)],
      ],
    );
  } finally {
    await worker.stop();
    forgetWorker();
    receiver.disconnect();
    forget();
    await db.end();
    await redis.cleanup();
    await database.drop();
  }
}
