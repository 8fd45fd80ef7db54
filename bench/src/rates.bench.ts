import { createHash, randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createSealer, sealedColumns } from '@quarry/keyring';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { createTestDatabase, createTestRedis, quarryEnv } from '@quarry/testing';
import { load, printTable, repoRoot, spawnServer, type LoadResult, type Server } from './harness.ts';
import { sampleRss } from './rss-sampler.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;
const MB = 1024 * 1024;
const today = new Date().toISOString().slice(0, 10);

/** A valid hotel object of about `bytes` (rooms × rates, descriptions padded), serialized once. */
function hotelBody(hotelId: string, bytes: number): string {
  const rate = (room: number, index: number) => ({
    id: `R${room}:P${index}`,
    name: `Plan ${index}`,
    mealPlan: 'breakfast',
    refundable: { available: true, untilDate: today, untilTime: '18:00' },
    baseRate: { currencyCode: 'usd', value: 18_000 + index },
    taxes: [{ type: 'NamedPrice', name: 'VAT', code: 'vat', price: { currencyCode: 'usd', value: 1_800 } }],
  });
  const rooms = Array.from({ length: 4 }, (_, room) => ({
    id: `R${room}`,
    name: `Room ${room}`,
    description: '',
    rates: [0, 1, 2].map((index) => rate(room, index)),
  }));
  const base = JSON.stringify({ hotelId, checkIn: today, nights: 1, guests: 2, rooms });
  const pad = Math.max(0, Math.floor((bytes - base.length) / rooms.length));
  for (const room of rooms) room.description = 'x'.repeat(pad);
  return JSON.stringify({ hotelId, checkIn: today, nights: 1, guests: 2, rooms });
}

async function seedHotels(db: Pool, clientIds: string[], count: number, bytesEach: number, prefix: string): Promise<string[]> {
  const hotelIds = Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(4, '0')}`);
  for (const hotelId of hotelIds) {
    const body = hotelBody(hotelId, bytesEach);
    await db.query(
      `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, guests, booking_page_url, source) VALUES ($1, $1, 'bench', '', 'gb', '{2}', 'https://example.com/', '{"kind":"opentravel","endpointUrl":"https://ota.example.com/","hotelCode":"x"}')`,
      [hotelId],
    );
    await db.query(
      `INSERT INTO rate_results (hotel_id, check_in, nights, guests, body, body_sha256, fetched_at, expires_at, changed_at)
       VALUES ($1, $2, 1, 2, $3, $4, now(), now() + interval '1 day', now())`,
      [hotelId, today, body, createHash('sha256').update(body).digest()],
    );
    for (const clientId of clientIds) await db.query('INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, $2)', [clientId, hotelId]);
  }
  return hotelIds;
}

type ReceivedPush = { bytes: number; startedAt: number; endedAt: number };

/** Epoch milliseconds with sub-millisecond precision: the receiver process reports in the same clock. */
const epochNow = () => performance.timeOrigin + performance.now();

/** The counting receiver in its own process (push-receiver.server.ts); `done` holds the last request per path. */
async function startCountingReceiver(): Promise<{ port: number; done: Map<string, ReceivedPush>; stop: () => void }> {
  const child = fork(fileURLToPath(new URL('./push-receiver.server.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const done = new Map<string, ReceivedPush>();
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (message: { port?: number; path?: string } & Partial<ReceivedPush>) => {
      if (message.port !== undefined) resolve(message.port);
      else if (message.path !== undefined)
        done.set(message.path, { bytes: message.bytes ?? 0, startedAt: message.startedAt ?? 0, endedAt: message.endedAt ?? 0 });
    });
    child.once('exit', (code) => reject(new Error(`push receiver exited with ${code}`)));
  });
  return { port, done, stop: () => child.disconnect() };
}

/** The push floor (push-floor.server.ts) in its own process; `push` resolves once every receiver answered. */
async function startPushFloor(databaseUrl: string): Promise<{
  pid: number;
  push: (pushes: Array<{ url: string; hotelIds: string[] }>, checkIn: string) => Promise<void>;
  stop: () => void;
}> {
  const child = fork(fileURLToPath(new URL('./push-floor.server.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`push floor exited with ${code}`)));
  });
  return {
    pid: child.pid ?? 0,
    push: (pushes, checkIn) =>
      new Promise<void>((resolve, reject) => {
        child.once('message', (message: { error?: string }) => (message.error ? reject(new Error(message.error)) : resolve()));
        child.send({ pushes, checkIn });
      }),
    stop: () => child.disconnect(),
  };
}

/**
 * `npm run bench -- rates`: pull req/s and p99 for 50-hotel requests served from the store; one
 * 50 MB push (worker RSS growth, MB/s); 200 subscriptions × 2 MB pushed at once (aggregate MB/s).
 */
export async function benchRates(options: { seconds: number; connections: number; parts?: string[] }): Promise<void> {
  const parts = new Set(options.parts && options.parts.length > 0 ? options.parts : ['pull', 'push', 'cold']);
  const database = await createTestDatabase('bench_rates');
  const redis = createTestRedis('bench-rates');
  const secretKey = Buffer.alloc(32, 4);
  const db = createPool(database.url, 4);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['hotels'] });
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...quarryEnv({ database, redis, secretKey }),
    ALLOW_PRIVATE_URLS: '127.0.0.1',
    RATES_SCHEDULE_EVERY_MS: '86400000',
    // The seeded results are the whole horizon, all fresh: the scheduler's first tick then has
    // nothing to fetch (a 90-day horizon had the worker enqueue and fail ~50,000 refreshes of the
    // seeded hotels' unreachable sources during the pushes it measured).
    RATES_HORIZON_DAYS: '1',
  };
  const rows: Array<Array<string | number>> = [];
  const receiver = await startCountingReceiver();
  const redisClient = createRedis(redis.url);
  const queues = createJobQueues({ connection: redisClient, prefix: redis.prefix });
  try {
    // 1. Pull: 50 hotels per request, all answered from stored results; beside it, in the same run,
    // express + pg serving the same stored rows (the floor).
    const pullHotels = await seedHotels(db, [client.clientId], 50, 2_500, 'PULL');
    const query = `${pullHotels.map((hotelId) => `hotelIds=${hotelId}`).join('&')}&checkIn=${today}&nights=1`;
    const authorization = `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`;
    const pullRuns = async (server: Server, headers: Record<string, string>) => {
      const probe = await fetch(`http://127.0.0.1:${server.port}/Pull/RatesFeed?${query}`, { headers });
      const probeBody = (await probe.json()) as unknown[];
      if (probe.status !== 200 || probeBody.length !== 50)
        throw new Error(`pull probe answered ${probe.status} with ${probeBody.length} hotels`);
      const results: LoadResult[] = [];
      for (const connections of [10, options.connections]) {
        results.push(
          await load(`http://127.0.0.1:${server.port}/Pull/RatesFeed?${query}`, { connections, seconds: options.seconds, headers }),
        );
      }
      return results;
    };
    if (parts.has('pull')) {
      const floorServer = await spawnServer(fileURLToPath(new URL('./rates-floor.server.ts', import.meta.url)), [], {
        DATABASE_URL: database.url,
        CLIENT_ID: client.clientId,
      });
      const floor = await pullRuns(floorServer, {}).finally(() => floorServer.stop());
      const api = await spawnServer(quarryMain, ['start', '--role', 'api'], { ...env, LOG_LEVEL: 'info' });
      const ours = await pullRuns(api, { authorization }).finally(() => api.stop());
      [10, options.connections].forEach((connections, index) => {
        const floorResult = floor[index];
        const result = ours[index];
        if (!floorResult || !result) return;
        rows.push([
          `pull floor: express + pg, the same stored rows, no auth (${connections} conn, ${options.seconds} s)`,
          `${Math.round(floorResult.requestsPerSecond)} req/s`,
          `p99 ${floorResult.p99Ms} ms, p50 ${floorResult.p50Ms} ms, errors ${floorResult.errors + floorResult.non2xx}`,
          '',
        ]);
        rows.push([
          `pull: 50 hotels/request from the store (${connections} conn, ${options.seconds} s)`,
          `${Math.round(result.requestsPerSecond)} req/s (${(result.requestsPerSecond / floorResult.requestsPerSecond).toFixed(2)}× the floor)`,
          `p99 ${result.p99Ms} ms, p50 ${result.p50Ms} ms, errors ${result.errors + result.non2xx}`,
          '≥ 2× the floor, p99 < 20 ms',
        ]);
      });
    }

    // 2 and 3. Push, from rates-worker processes.
    const pushing = parts.has('push') || parts.has('cold');
    const bigHotels = pushing ? await seedHotels(db, [client.clientId], 500, 100 * 1024, 'BIG') : [];
    const smallHotels = pushing ? await seedHotels(db, [client.clientId], 20, 100 * 1024, 'TWO') : [];
    const subscribe = async (path: string, hotelIds: string[]) => {
      const subscriptionId = randomUUID();
      await db.query(
        `INSERT INTO push_subscriptions (subscription_id, client_id, push_url, api_key_ciphertext, hotel_ids, searches) VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          subscriptionId,
          client.clientId,
          `http://127.0.0.1:${receiver.port}${path}`,
          createSealer(secretKey).seal(sealedColumns.pushApiKey, subscriptionId, 'bench-key'),
          hotelIds,
          JSON.stringify({ daysAhead: 1, nights: [1], guests: [2] }),
        ],
      );
      return subscriptionId;
    };
    const push = async (subscriptionId: string, tag: string) => {
      await db.query('UPDATE push_subscriptions SET state_version = state_version + 1 WHERE subscription_id = $1', [subscriptionId]);
      await queues.enqueue('rates.push', { subscriptionId }, { jobId: `bench_${subscriptionId}_${tag}` });
    };
    const waitDone = async (paths: string[], since: number) => {
      while (!paths.every((path) => (receiver.done.get(path)?.endedAt ?? 0) > since))
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
    /** A warm-up push, then three measured ones of the same subscription: MB/s at the receiver. */
    const measureBigPush = async (trigger: (tag: string) => Promise<unknown>, path: string, pid: number) => {
      let since = epochNow();
      await trigger('warm');
      await waitDone([path], since);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rss = sampleRss(pid);
      const rates: number[] = [];
      let bytes = 0;
      for (let run = 0; run < 3; run++) {
        since = epochNow();
        await trigger(`measured${run}`);
        await waitDone([path], since);
        const done = receiver.done.get(path);
        bytes = done?.bytes ?? 0;
        rates.push(done ? Math.round(bytes / MB / ((done.endedAt - done.startedAt) / 1000)) : 0);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const memory = rss.stop();
      const sorted = [...rates].sort((a, b) => a - b);
      return { bytes, all: rates, medianMbPerSecond: sorted[1] ?? 0, ...memory };
    };
    /** 200 subscriptions of 20 hotels × 100 KB each, a warm-up round, then one measured at once: aggregate MB/s. */
    const measureFanOut = async (tag: string, trigger?: (paths: string[], round: string) => Promise<unknown>) => {
      const paths = Array.from({ length: 200 }, (_, index) => `/${tag}/${index}`);
      const subscriptions = trigger ? [] : await Promise.all(paths.map((path) => subscribe(path, smallHotels)));
      const pushAll = trigger ?? ((_: string[], round: string) => Promise.all(subscriptions.map((id) => push(id, round))));
      let since = epochNow();
      await pushAll(paths, 'warm');
      await waitDone(paths, since);
      since = epochNow();
      await pushAll(paths, 'measured');
      await waitDone(paths, since);
      const runs = paths.map((path) => receiver.done.get(path)).filter((run) => run !== undefined);
      const totalBytes = runs.reduce((sum, run) => sum + run.bytes, 0);
      const span = (Math.max(...runs.map((run) => run.endedAt)) - Math.min(...runs.map((run) => run.startedAt))) / 1000;
      return { totalBytes, eachMb: totalBytes / runs.length / MB, span, mbPerSecond: Math.round(totalBytes / MB / span) };
    };
    const bigRow = (label: string, runs: Awaited<ReturnType<typeof measureBigPush>>) => [
      label,
      `${runs.medianMbPerSecond} MB/s`,
      `runs ${runs.all.join(', ')} MB/s; worker RSS ${Math.round(runs.baselineMb)} → peak ${Math.round(runs.peakMb)} MB (growth ${Math.round(runs.peakMb - runs.baselineMb)} MB)`,
      '≥ 500 MB/s, RSS growth < 100 MB',
    ];
    const fanOutRow = (label: string, run: Awaited<ReturnType<typeof measureFanOut>>) => [
      `${label}: 200 subscriptions × ${run.eachMb.toFixed(1)} MB at once`,
      `${run.mbPerSecond} MB/s aggregate`,
      `${(run.totalBytes / MB).toFixed(0)} MB in ${run.span.toFixed(2)} s (first byte → last byte at the receiver)`,
      '≥ 500 MB/s',
    ];
    // The worker as deployed for fan-out: 200 jobs at once, a pool of 40.
    const workerEnv = { ...env, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '200', DATABASE_POOL_SIZE: '40' };
    if (parts.has('push')) {
      const worker = await spawnServer(quarryMain, ['start', '--role', 'rates-worker'], workerEnv);
      try {
        // Warm-up push (JIT, connections), then three measured ones: the median is reported, since
        // one 50 MB push lasts a tenth of a second and a single sample on two cores is mostly noise.
        const big = await subscribe('/big', bigHotels);
        const bigRuns = await measureBigPush((tag) => push(big, tag), '/big', worker.child.pid ?? 0);
        rows.push(bigRow(`push: one ${(bigRuns.bytes / MB).toFixed(1)} MB state streamed to a local receiver (median of 3)`, bigRuns));
        rows.push(fanOutRow('push', await measureFanOut('many')));
      } finally {
        await worker.stop();
      }
    }

    // The same pushes from a worker without the body cache: every byte read from Postgres. Beside
    // them, the floor: a process piping a binary COPY of the same bodies into a PUT, nothing else.
    if (parts.has('cold')) {
      const cold = await spawnServer(quarryMain, ['start', '--role', 'rates-worker'], { ...workerEnv, RATES_PUSH_CACHE_MB: '0' });
      let coldRuns: Awaited<ReturnType<typeof measureBigPush>>;
      let coldFanOut: Awaited<ReturnType<typeof measureFanOut>>;
      try {
        const coldBig = await subscribe('/cold', bigHotels);
        coldRuns = await measureBigPush((tag) => push(coldBig, tag), '/cold', cold.child.pid ?? 0);
        coldFanOut = await measureFanOut('cold-many');
      } finally {
        await cold.stop();
      }
      const floor = await startPushFloor(database.url);
      try {
        const floorRuns = await measureBigPush(
          () => floor.push([{ url: `http://127.0.0.1:${receiver.port}/floor-big`, hotelIds: bigHotels }], today),
          '/floor-big',
          floor.pid,
        );
        const floorFanOut = await measureFanOut('floor-many', (paths) =>
          floor.push(
            paths.map((path) => ({ url: `http://127.0.0.1:${receiver.port}${path}`, hotelIds: smallHotels })),
            today,
          ),
        );
        rows.push(
          bigRow(
            `push floor: binary COPY of the same ${(floorRuns.bytes / MB).toFixed(1)} MB piped into a PUT (median of 3)`,
            floorRuns,
          ).with(3, ''),
        );
        rows.push([
          ...bigRow(`push: the same ${(coldRuns.bytes / MB).toFixed(1)} MB, no body cache (all from Postgres; median of 3)`, coldRuns).with(
            1,
            `${coldRuns.medianMbPerSecond} MB/s (${Math.round((coldRuns.medianMbPerSecond / floorRuns.medianMbPerSecond) * 100)}% of the floor)`,
          ),
        ]);
        rows.push(fanOutRow('push floor', floorFanOut).with(3, ''));
        rows.push(
          fanOutRow('push, no body cache', coldFanOut).with(
            1,
            `${coldFanOut.mbPerSecond} MB/s aggregate (${Math.round((coldFanOut.mbPerSecond / floorFanOut.mbPerSecond) * 100)}% of the floor)`,
          ),
        );
      } finally {
        floor.stop();
      }
    }
  } finally {
    receiver.stop();
    await queues.close();
    redisClient.disconnect();
    await db.end();
    await redis.cleanup();
    await database.drop();
  }
  printTable('Hotel rates feed', ['case', 'result', 'detail', 'target'], rows);
}
