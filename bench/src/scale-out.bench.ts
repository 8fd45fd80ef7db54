// Longer than 400 lines: one bench, three roles (mining, bookings, mail) each with how to start a host,
// load it and count its work, beside the cgroup quota and connection counting they share.
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createClient } from '@quarry/auth';
import { createPool, migrateToLatest, type Pool } from '@quarry/db';
import { createJobQueues, createRedis } from '@quarry/jobs';
import { fixtureCases, minerEndpointsFor, startAtsFixtureServer } from '@quarry/testing/miner';
import { createTestDatabase, quarryEnv, startOpenTravelHotel, startPrivateRedis, waitFor, freePort } from '@quarry/testing';
import { createBookingDriver } from './booking-driver.ts';
import { createCpuQuota, type CpuQuota } from './cpu-quota.ts';
import { cleanUpOnExit, printTable, repoRoot, spawnServer, type Server } from './harness.ts';
import { busySeconds, databaseCpuSeconds, processCpuSeconds } from './machine-cpu.ts';
import { postfixTool, startPostfixSink } from './postfix-sink.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;
const bookingsWorker = fileURLToPath(new URL('./bookings-worker.server.ts', import.meta.url));
const warmUpSeconds = 5;

/** What the bench needs of one role: how to start a host, load the hosts, and count finished work. */
type RoleUnderTest = {
  name: string;
  unit: string;
  /** Settings of every host, as deployed: the role's defaults unless the line says otherwise. */
  hostEnv: Record<string, string>;
  startHost: (env: Record<string, string>) => Promise<Server>;
  /** Before the hosts of a round start (the mining backlog is topped up here). */
  prepare: (hosts: number) => Promise<void>;
  /** Starts the load on `hosts` hosts; stopping it waits for what is in flight. */
  load: (hosts: number) => Promise<{ stop: () => Promise<void> }>;
  /** Work finished so far (monotonic), and work that failed. */
  completed: () => Promise<{ done: number; failed: number }>;
  /** After the load stopped, before the hosts stop: leaves nothing for the next round. */
  settle?: () => Promise<void>;
  close: () => Promise<void>;
};

type Round = {
  hosts: number;
  perSecond: number;
  failed: number;
  machineBusy: number;
  loadAverage: number;
  postgresCores: number;
  redisCores: number;
  hostCores: number;
  throttled: number;
  postgresConnections: number[];
  redisConnections: number[];
};

/** The pid of the process listening on a loopback TCP port (from `ss`). */
function listenerPid(port: number): number {
  const line = execFileSync('ss', ['-Htlnp', `sport = :${port}`], { encoding: 'utf8' });
  return Number(/pid=(\d+)/.exec(line)?.[1] ?? 0);
}

/** Established connections to a local port, by the pid of the process holding them. */
function connectionsTo(port: number): Map<number, number> {
  const counts = new Map<number, number>();
  const lines = execFileSync('ss', ['-Htnp', 'state', 'established', `dport = :${port}`], { encoding: 'utf8' }).split('\n');
  for (const line of lines) {
    const pid = Number(/pid=(\d+)/.exec(line)?.[1] ?? 0);
    if (pid) counts.set(pid, (counts.get(pid) ?? 0) + 1);
  }
  return counts;
}

/** Keeps `concurrency` tasks going until stopped; `stop` resolves once the ones in flight ended. */
function keepBusy(concurrency: number, task: () => Promise<unknown>): { stop: () => Promise<void> } {
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) await task().catch(() => undefined);
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function runRound(
  role: RoleUnderTest,
  hosts: number,
  options: { seconds: number; quota: number },
  stores: { db: Pool; database: string; redisPort: number; redisPid: number },
): Promise<Round> {
  await role.prepare(hosts);
  const started: Array<{ server: Server; quota: CpuQuota; appName: string }> = [];
  try {
    for (let index = 0; index < hosts; index++) {
      const appName = `scale-${role.name}-${index}`;
      // Each host's Postgres connections carry its name (libpq's PGAPPNAME), to count them per host.
      const server = await role.startHost({ ...role.hostEnv, PGAPPNAME: appName });
      const quota = createCpuQuota(`quarry-scale-out-${process.pid}-${role.name}-${index}`, options.quota);
      quota.add(server.child.pid ?? 0);
      started.push({ server, quota, appName });
    }
    const load = await role.load(hosts);
    try {
      await sleep(warmUpSeconds * 1000);
      const before = {
        at: performance.now(),
        work: await role.completed(),
        busy: busySeconds(),
        postgres: databaseCpuSeconds(stores.database),
        redis: processCpuSeconds(stores.redisPid),
        hosts: started.reduce((sum, host) => sum + processCpuSeconds(host.server.child.pid ?? 0), 0),
        periods: started.map((host) => host.quota.periods()),
      };
      await sleep(options.seconds * 1000);
      const seconds = (performance.now() - before.at) / 1000;
      const work = await role.completed();
      const periods = started.map((host, index) => {
        const now = host.quota.periods();
        const then = before.periods[index] ?? { total: 0, throttled: 0 };
        return (now.throttled - then.throttled) / Math.max(1, now.total - then.total);
      });
      const pg = await stores.db.query<{ application_name: string; n: string }>(
        'SELECT application_name, count(*) AS n FROM pg_stat_activity WHERE datname = $1 GROUP BY 1',
        [stores.database],
      );
      const redis = connectionsTo(stores.redisPort);
      return {
        hosts,
        perSecond: (work.done - before.work.done) / seconds,
        failed: work.failed - before.work.failed,
        machineBusy: (100 * (busySeconds() - before.busy)) / (seconds * availableParallelism()),
        loadAverage: loadavg()[0] ?? 0,
        postgresCores: (databaseCpuSeconds(stores.database) - before.postgres) / seconds,
        redisCores: (processCpuSeconds(stores.redisPid) - before.redis) / seconds,
        hostCores: (started.reduce((sum, host) => sum + processCpuSeconds(host.server.child.pid ?? 0), 0) - before.hosts) / seconds,
        throttled: periods.reduce((sum, share) => sum + share, 0) / periods.length,
        postgresConnections: started.map((host) => Number(pg.rows.find((row) => row.application_name === host.appName)?.n ?? 0)),
        redisConnections: started.map((host) => redis.get(host.server.child.pid ?? 0) ?? 0),
      };
    } finally {
      await load.stop();
      await role.settle?.();
    }
  } finally {
    for (const host of started) {
      await host.server.stop();
      host.quota.remove();
    }
  }
}

/** The mining worker on the JSON/HTML adapters, against the ATS fixture server (a local site). */
async function miningRole(
  base: Record<string, string>,
  db: Pool,
  redisUrl: string,
  prefix: string,
  clientId: string,
): Promise<RoleUnderTest> {
  const site = await startAtsFixtureServer();
  const cases = fixtureCases.filter((fixtureCase) => !fixtureCase.partial && fixtureCase.fixture !== 'smartrecruiters/posting.json');
  const redis = createRedis(redisUrl);
  const queues = createJobQueues({ connection: redis, prefix });
  let next = 0;
  return {
    name: 'mining',
    unit: 'posts/s',
    hostEnv: {
      ...base,
      MINING_BROWSER: 'off',
      MINING_ATS_ENDPOINTS: JSON.stringify(minerEndpointsFor(site.origin)),
      ALLOW_PRIVATE_URLS: '127.0.0.1',
    },
    startHost: (env) => spawnServer(quarryMain, ['start', '--role', 'mining-worker'], env),
    async prepare(hosts) {
      // A backlog no round can finish: 150 posts/s per host (above what one 0.4-CPU host mines) for the round.
      const wanted = 150 * hosts * (warmUpSeconds + 60);
      const waiting = await queues.queue('mining.single').getWaitingCount();
      for (let added = 0; added < wanted - waiting; added += 5_000) {
        const count = Math.min(5_000, wanted - waiting - added);
        const ids = Array.from({ length: count }, () => next++);
        const rows = await db.query<{ submission_id: string }>(
          `INSERT INTO submissions (client_id, job_post_id, url, employer, job_title, country)
           SELECT $1, 'scale-' || n, u, 'Acme', 'Test Role', 'us' FROM unnest($2::int[], $3::text[]) AS t (n, u) RETURNING submission_id`,
          [clientId, ids, ids.map((id) => cases[id % cases.length]?.url(site.origin) ?? '')],
        );
        await queues.enqueueBulk(
          'mining.mine',
          rows.rows.map((row) => ({ payload: { submissionId: String(row.submission_id) }, options: { jobId: `s${row.submission_id}` } })),
        );
      }
    },
    load: async () => ({ stop: async () => {} }),
    async completed() {
      const result = await db.query<{ done: string; failed: string }>(
        `SELECT count(*) FILTER (WHERE state IN ('completed', 'failed')) AS done, count(*) FILTER (WHERE state = 'failed') AS failed FROM submissions`,
      );
      return { done: Number(result.rows[0]?.done ?? 0), failed: Number(result.rows[0]?.failed ?? 0) };
    },
    async close() {
      await queues.close();
      redis.disconnect();
      await site.close();
    },
  };
}

/** The bookings worker on OpenTravel, clients driving whole bookings through one API process (not held to a quota). */
async function bookingsRole(base: Record<string, string>, db: Pool, secretKey: Buffer): Promise<RoleUnderTest> {
  const hotel = await startOpenTravelHotel();
  hotel.hotels.set('SCALE', { price: '120.00' });
  const client = await createClient({ db, secretKey }, { name: 'scale agency', scopes: ['booking'] });
  await db.query(
    `INSERT INTO hotels (hotel_id, name, ibe, address, country_code, booking_service_id, guests, booking_page_url, source) VALUES ('SCALE', 'Scale', 'opentravel', '', 'us', NULL, '{2}', 'https://book.example.com', $1)`,
    [JSON.stringify({ kind: 'opentravel', endpointUrl: hotel.url, hotelCode: 'SCALE' })],
  );
  await db.query(`INSERT INTO hotel_grants (client_id, hotel_id) VALUES ($1, 'SCALE')`, [client.clientId]);
  const env = { ...base, ALLOW_PRIVATE_URLS: '127.0.0.1', AUTH_CACHE_MS: '60000' };
  const api = await spawnServer(quarryMain, ['start', '--role', 'api'], { ...env, PGAPPNAME: 'scale-api' });
  const driver = createBookingDriver({
    base: `http://127.0.0.1:${api.port}`,
    authorization: `Basic ${Buffer.from(`${client.secret}:`).toString('base64')}`,
    connections: 256,
    statusPollMs: 25,
    checkIn: new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10),
  });
  const book = driver.book('SCALE', 'STD', 'STD:FLEX');
  let done = 0;
  let failed = 0;
  return {
    name: 'bookings',
    unit: 'bookings/s',
    hostEnv: env,
    startHost: (hostEnv) => spawnServer(bookingsWorker, [], hostEnv),
    prepare: async () => {},
    // 16 clients per host: more than one host's BOOKING_CONCURRENCY keeps busy between the clients' steps.
    load: async (hosts) => keepBusy(16 * hosts, async () => ((await book()) ? (done += 1) : (failed += 1))),
    completed: async () => ({ done, failed }),
    async close() {
      await driver.close();
      await api.stop();
      await hotel.close();
    },
  };
}

/** The mail role: SMTP in (one port shared by every host, SO_REUSEPORT), delivered to Postfix's smtp-sink. */
async function mailRole(base: Record<string, string>, db: Pool, secretKey: Buffer): Promise<RoleUnderTest> {
  const client = await createClient({ db, secretKey }, { name: 'scale mail', scopes: ['forwarding'] });
  await db.query(
    `INSERT INTO mail_bindings (recipient, client_id, forwards_to, expires_at) VALUES ('scale@fwd.test', $1, 'sink@dest.test', now() + interval '1 day')`,
    [client.clientId],
  );
  const sink = await startPostfixSink();
  const smtpPort = await freePort();
  const accepted = async () =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT COALESCE(sum(received), 0) AS n FROM mail_binding_counters WHERE recipient = 'scale@fwd.test'`,
        )
      ).rows[0]?.n ?? 0,
    );
  let acceptedBefore = 0;
  return {
    name: 'mail',
    unit: 'messages/s delivered',
    hostEnv: {
      ...base,
      SMTP_PORT: String(smtpPort),
      SMTP_HOST: '127.0.0.1',
      SMTP_REUSE_PORT: 'true',
      MAIL_DOMAINS: 'fwd.test',
      MAIL_RELAY_SENDER: 'forwarder@relay.test',
      MAIL_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
    },
    startHost: (env) => spawnServer(quarryMain, ['start', '--role', 'mail'], env),
    prepare: async () => {
      await sink.clear();
      acceptedBefore = await accepted();
    },
    async load(hosts) {
      // Postfix's smtp-source, a new connection per message, 10 KB each, 10 sessions per host.
      const { bin, env } = postfixTool('smtp-source');
      const source = spawn(
        bin,
        [
          '-s',
          String(10 * hosts),
          '-m',
          '10000000',
          '-l',
          '10240',
          '-f',
          'load@sender.test',
          '-t',
          'scale@fwd.test',
          '-M',
          'scale.test',
          `127.0.0.1:${smtpPort}`,
        ],
        { env, stdio: 'ignore' },
      );
      const forget = cleanUpOnExit(() => source.kill('SIGKILL'));
      return {
        stop: async () => {
          const exited = new Promise((resolve) => source.once('exit', resolve));
          source.kill('SIGTERM');
          await exited;
          forget();
        },
      };
    },
    completed: async () => ({ done: await sink.delivered(), failed: 0 }),
    // Every accepted message delivered before the hosts stop: none is left for the next round's hosts.
    settle: async () => {
      const target = (await accepted()) - acceptedBefore;
      await waitFor('every accepted message delivered', async () => (await sink.delivered()) >= target, {
        timeoutMs: 120_000,
        intervalMs: 250,
      }).catch(() => {});
    },
    close: () => sink.close(),
  };
}

/**
 * `npm run bench -- scale-out [--seconds 15] [--quota 0.4] [--hosts 4] [--roles mining,bookings,mail]`:
 * each worker "host" is a process of its own held to `quota` CPUs by a cgroup (a container's CPU
 * limit), all hosts sharing one Postgres and one Redis. For 1, 2, … hosts of the mining worker
 * (JSON adapters against a local site), the bookings worker (OpenTravel, through one API process)
 * and the mail role (SMTP in, delivered to a sink): throughput, what each added host added, the
 * machine's and the stores' CPU, and the connections each host holds. Target: each added host adds
 * at least 80% of the first host's throughput until the machine's cores are busy.
 */
export async function benchScaleOut(options: { seconds: number; quota: number; maxHosts: number; roles: string[] }): Promise<void> {
  const database = await createTestDatabase('bench_scale');
  await migrateToLatest(database.url);
  // A Redis of the bench's own: its CPU and its connections are then the hosts' alone.
  const redis = await startPrivateRedis();
  const secretKey = Buffer.alloc(32, 5);
  const db = createPool(database.url, 4);
  const prefix = 'scale';
  const base = {
    // info: the start line carries the port the bench waits for; the roles log nothing per job at info.
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...quarryEnv({ database, redis: { url: redis.url, prefix }, secretKey }),
  };
  const miner = await createClient({ db, secretKey }, { name: 'scale miner', scopes: ['recruitment'] });
  const stores = { db, database: database.name, redisPort: redis.port, redisPid: listenerPid(redis.port) };
  const maxConnections = Number((await db.query<{ max_connections: string }>('SHOW max_connections')).rows[0]?.max_connections ?? 0);
  const factories: Record<string, () => Promise<RoleUnderTest>> = {
    mining: () => miningRole(base, db, redis.url, prefix, miner.clientId),
    bookings: () => bookingsRole(base, db, secretKey),
    mail: () => mailRole(base, db, secretKey),
  };
  const results: Array<{ role: RoleUnderTest; rounds: Round[] }> = [];
  try {
    for (const name of options.roles) {
      const factory = factories[name];
      if (!factory) throw new Error(`scale-out: unknown role "${name}"; available: ${Object.keys(factories).join(', ')}`);
      const role = await factory();
      const rounds: Round[] = [];
      try {
        for (let hosts = 1; hosts <= options.maxHosts; hosts++) rounds.push(await runRound(role, hosts, options, stores));
      } finally {
        await role.close();
      }
      results.push({ role, rounds });
      printRole(role, rounds, options);
    }
  } finally {
    await db.end();
    await redis.remove();
    await database.drop();
  }
  printBudget(results, maxConnections);
}

function printRole(role: RoleUnderTest, rounds: Round[], options: { seconds: number; quota: number }): void {
  const first = rounds[0]?.perSecond ?? 0;
  printTable(
    `scale-out: ${role.name}, each host one process held to ${options.quota} CPU by a cgroup, one Postgres and one Redis shared; ${options.seconds} s per round after ${warmUpSeconds} s of warm-up`,
    [
      'hosts',
      role.unit,
      'per host',
      'the last host added (of the first host)',
      'efficiency',
      'failed',
      'hosts CPU (cores) / throttled',
      'Postgres CPU (cores)',
      'Redis CPU (cores)',
      'machine busy (load avg)',
      'connections per host: Postgres / Redis',
    ],
    rounds.map((round, index) => {
      const previous = index > 0 ? (rounds[index - 1]?.perSecond ?? 0) : 0;
      return [
        round.hosts,
        round.perSecond.toFixed(1),
        (round.perSecond / round.hosts).toFixed(1),
        index === 0 ? '' : `${Math.round(((round.perSecond - previous) / first) * 100)}%`,
        `${Math.round((round.perSecond / (round.hosts * first)) * 100)}%`,
        round.failed,
        `${round.hostCores.toFixed(2)} / ${Math.round(round.throttled * 100)}% of periods`,
        round.postgresCores.toFixed(2),
        round.redisCores.toFixed(2),
        `${Math.round(round.machineBusy)}% (${round.loadAverage.toFixed(1)})`,
        `${round.postgresConnections.join(',')} / ${round.redisConnections.join(',')}`,
      ];
    }),
  );
}

/** What 50 hosts of each role would hold, from the connections one host held at its busiest. */
function printBudget(results: Array<{ role: RoleUnderTest; rounds: Round[] }>, maxConnections: number): void {
  printTable(
    `connection budget: the most connections one host held, and 50 hosts of it (this Postgres allows max_connections = ${maxConnections}; Redis' default maxclients is 10,000)`,
    ['role', 'Postgres per host (DATABASE_POOL_SIZE)', 'Redis per host', '50 hosts: Postgres / Redis'],
    results.map(({ role, rounds }) => {
      const pg = Math.max(0, ...rounds.flatMap((round) => round.postgresConnections));
      const redis = Math.max(0, ...rounds.flatMap((round) => round.redisConnections));
      return [role.name, `${pg} (${role.hostEnv.DATABASE_POOL_SIZE ?? '10, the default'})`, redis, `${pg * 50} / ${redis * 50}`];
    }),
  );
}
