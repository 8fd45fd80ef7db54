import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@quarry/testing';
import { mailDestination, type FaultCluster } from './fault-cluster.ts';
import { ancestorAmong, type RoleProcess } from './role-processes.ts';
import type { Workload } from './workload.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * When the fault began and ended (equal for a kill); `mailKills` bounds the allowed mail
 * duplicates; `unknownAllowed`: a process died after recording its intent, so an unknown outcome
 * is the promise (anywhere else the run lives on and its answer must replace it).
 */
export type FaultWindow = {
  start: number;
  end: number;
  mailKillsAt: number[];
  notes: string[];
  unknownAllowed?: boolean;
  readsByReference?: number;
  cvvsLost?: boolean;
};

export type Scenario = {
  name: string;
  /** In the `--quick` subset. */
  quick?: boolean;
  /** Settings this scenario changes from the defaults (stated in the table). */
  mailEnv?: Record<string, string>;
  inject(cluster: FaultCluster, workload: Workload): Promise<FaultWindow>;
};

/** Pids of processes holding an established TCP connection to a loopback port. */
async function pidsConnectedTo(port: number): Promise<Set<number>> {
  const { stdout } = await run('ss', ['-tnpH', 'state', 'established', 'dst', `127.0.0.1:${port}`]);
  return new Set([...stdout.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])));
}

/** The process of a role that is talking to `port` right now (mid-work), waiting for one. */
async function roleBusyWith(pair: RoleProcess[], port: number, what: string): Promise<RoleProcess> {
  return waitFor(
    `a process ${what}`,
    async () => {
      const pids = await pidsConnectedTo(port);
      return pair.find((role) => pids.has(role.pid()));
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
}

const portOf = (url: string) => Number(new URL(url).port);

/** The pid holding the client end of a TCP connection (as the server saw it), in the machine's or a worker's namespace. */
async function ownerOf(cluster: FaultCluster, end: { remoteAddress: string; remotePort: number }): Promise<number | undefined> {
  const filter = ['-tnpH', 'state', 'established', 'src', `${end.remoteAddress.replace(/^::ffff:/, '')}:${end.remotePort}`];
  const lookups = [
    run('ss', filter),
    ...cluster.namespaces.map((namespace) => run('ip', ['netns', 'exec', namespace.name, 'ss', ...filter])),
  ];
  for (const lookup of await Promise.allSettled(lookups)) {
    if (lookup.status !== 'fulfilled') continue;
    const pid = /pid=(\d+)/.exec(lookup.value.stdout)?.[1];
    if (pid) return Number(pid);
  }
  return undefined;
}

type CallingRole = 'applications-worker' | 'bookings-worker';

/**
 * The process of the role that is waiting for a careers site's answer to a submitted form (its
 * Chromium holds the connection) or for the hotel's answer to an order, waiting for one.
 */
async function roleMidCall(
  cluster: FaultCluster,
  role: CallingRole,
  which: (process: RoleProcess) => boolean = () => true,
): Promise<RoleProcess> {
  const pair = cluster.roles[role].filter(which);
  return waitFor(
    `a ${role} waiting for the outside world's answer`,
    async () => {
      const waiting =
        role === 'applications-worker' ? cluster.sites.flatMap((site) => [...site.inFlight]) : [...cluster.hotel.ordersInFlight];
      for (const end of waiting) {
        const pid = await ownerOf(cluster, end);
        const owner = pid === undefined ? undefined : ancestorAmong(pid, pair);
        if (owner) return owner;
      }
      return undefined;
    },
    { timeoutMs: 90_000, intervalMs: 100 },
  );
}

const what = (role: CallingRole) => (role === 'applications-worker' ? 'a submitted form at the careers site' : 'an order at the hotel');

/** SIGKILL or SIGTERM of the applications or bookings worker while the site or hotel has not answered yet. */
function midCallKill(role: CallingRole, signal: 'SIGKILL' | 'SIGTERM'): Scenario {
  return {
    name: `${role}-${signal.toLowerCase()}`,
    async inject(cluster) {
      const victim = await roleMidCall(cluster, role);
      const at = Date.now();
      const exit = await victim.signal(signal);
      return {
        start: at,
        end: at,
        mailKillsAt: [],
        // The killed run had recorded its intent: its application may end unknown (ADR 0035).
        unknownAllowed: signal === 'SIGKILL' && role === 'applications-worker',
        notes: [`${victim.name} ${signal} with ${what(role)} unanswered, exit ${exit.code ?? exit.signal} after ${Date.now() - at} ms`],
      };
    },
  };
}

/** SIGSTOP of a worker and its Chromium for `ms` while its call to the outside world is in flight, then SIGCONT. */
function pauseScenario(role: 'mining-worker' | CallingRole, ms: number): Scenario {
  return {
    name: `${role}-pause-${ms / 1000}s`,
    async inject(cluster) {
      const victim =
        role === 'mining-worker'
          ? await roleBusyWith(cluster.roles[role], portOf(cluster.web.origin), 'mining a row')
          : await roleMidCall(cluster, role);
      const start = Date.now();
      await victim.pause();
      await sleep(ms);
      await victim.resume();
      return {
        start,
        end: Date.now(),
        mailKillsAt: [],
        notes: [`${victim.name} and its children stopped ${role === 'mining-worker' ? 'mid-row' : `with ${what(role)} unanswered`}`],
      };
    },
  };
}

/**
 * The worker in its own network namespace cut off, mid-call, for `ms`: from the stores only (it
 * still reaches the site or hotel), or from everything; then healed.
 */
function partitionScenario(role: CallingRole, from: 'stores' | 'all', ms: number): Scenario {
  return {
    name: `${role}-partition-${from}-${ms / 1000}s`,
    async inject(cluster) {
      const victim = await roleMidCall(cluster, role, (process) => process.namespace !== undefined);
      const namespace = victim.namespace!;
      const start = Date.now();
      await namespace.cut(from === 'stores' ? { ports: [cluster.postgres.port, cluster.redis.port] } : 'all');
      await sleep(ms);
      await namespace.heal();
      return {
        start,
        end: Date.now(),
        mailKillsAt: [],
        notes: [
          `${victim.name} cut off from ${from === 'stores' ? 'PostgreSQL and Redis (the outside world still reachable)' : 'everything'} with ${what(role)} unanswered`,
        ],
      };
    },
  };
}

function killScenario(role: 'mining-worker' | 'rates-worker' | 'mail' | 'api', signal: 'SIGKILL' | 'SIGTERM', quick = false): Scenario {
  const name = `${role}-${signal.toLowerCase()}`;
  return {
    name,
    quick,
    async inject(cluster, workload) {
      const notes: string[] = [];
      const pair = cluster.roles[role];
      let victim: RoleProcess;
      let after = async () => {};
      if (role === 'mining-worker') {
        // Rows of the running batch fetch a page that takes 1.5 s: the victim is mid-row.
        victim = await roleBusyWith(pair, portOf(cluster.web.origin), 'mining a row');
      } else if (role === 'rates-worker') {
        // The receiver holds its answers: pushes are on the wire when the victim dies.
        cluster.pushSink.setAnswerDelay(4_000);
        await Promise.all(cluster.subscriptions.map((_, slot) => workload.changeSubscription(slot, 5)));
        victim = await roleBusyWith(pair, portOf(cluster.pushSink.url('/')), 'pushing');
        after = async () => cluster.pushSink.setAnswerDelay(0);
      } else if (role === 'mail') {
        // The destination holds its reply to DATA: deliveries are mid-transaction.
        cluster.sink.delayData(mailDestination, 3_000);
        victim = await roleBusyWith(pair, cluster.sink.port, 'delivering');
        after = async () => cluster.sink.delayData(mailDestination, 0);
      } else {
        // A batch upload whose body takes 3 s to arrive is mid-request on the victim.
        victim = pair[0];
        const upload = slowUpload(victim.port(), cluster, workload);
        await sleep(1_500);
        const at = Date.now();
        const exit = await victim.signal(signal);
        const outcome = await upload;
        notes.push(`upload to the ${signal === 'SIGKILL' ? 'killed' : 'stopped'} API: ${outcome}`);
        if (outcome !== 'accepted') {
          // A client whose request got no answer sends it again, to any API process.
          const again = await workload.batch('r', 10);
          notes.push(`resent to the other API: ${again}`);
        }
        notes.push(`exit ${exit.code ?? exit.signal}`);
        return { start: at, end: at, mailKillsAt: [], notes };
      }
      const at = Date.now();
      const exit = await victim.signal(signal);
      await after();
      notes.push(`${victim.name} ${signal} mid-work, exit ${exit.code ?? exit.signal} after ${Date.now() - at} ms`);
      return { start: at, end: at, mailKillsAt: role === 'mail' ? [at] : [], notes };
    },
  };
}

/** A batch whose CSV body trickles in over 3 s to one API process; resolves with what the client saw. */
async function slowUpload(port: number, cluster: FaultCluster, workload: Workload): Promise<string> {
  const ids = Array.from({ length: 10 }, (_, index) => `${workload.label}-u${index + 1}`);
  const lines = ['jobPostId,url,employer,jobTitle', ...ids.map((id, index) => `${id},${cluster.web.origin}/jobs/${index},Acme,Engineer`)];
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const line of lines) {
        controller.enqueue(new TextEncoder().encode(`${line}\r\n`));
        await sleep(270);
      }
      controller.close();
    },
  });
  try {
    const response = await fetch(`http://127.0.0.1:${port}/v1/recruitment/job-posts/batch/mine/`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${cluster.recruiter.secret}:`).toString('base64')}`, 'content-type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    if (response.status !== 200) return `answered ${response.status}`;
    workload.acceptRows(ids);
    return 'accepted';
  } catch (error) {
    return `no answer (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message})`;
  }
}

function redisDown(name: string, downMs: number, quick = false): Scenario {
  return {
    name,
    quick,
    async inject(cluster, workload) {
      const start = Date.now();
      await cluster.redis.kill();
      // A batch sent during the outage must be answered at once (accepted from Postgres or 503).
      await sleep(Math.min(3_000, downMs / 2));
      const intake = await workload.batch('c', 10);
      await sleep(downMs - (Date.now() - start));
      await cluster.redis.start();
      return { start, end: Date.now(), mailKillsAt: [], notes: [`batch sent during the outage: ${intake}`] };
    },
  };
}

function postgresDown(name: string, downMs: number, quick = false): Scenario {
  return {
    name,
    quick,
    async inject(cluster, workload) {
      const start = Date.now();
      await cluster.postgres.stop();
      await sleep(Math.min(3_000, downMs / 2));
      const intake = await workload.batch('c', 10);
      await sleep(downMs - (Date.now() - start));
      await cluster.postgres.start();
      return { start, end: Date.now(), mailKillsAt: [], notes: [`batch sent during the outage: ${intake}`] };
    },
  };
}

export const scenarios: Scenario[] = [
  killScenario('mining-worker', 'SIGKILL', true),
  killScenario('mining-worker', 'SIGTERM'),
  killScenario('rates-worker', 'SIGKILL'),
  killScenario('rates-worker', 'SIGTERM'),
  killScenario('mail', 'SIGKILL', true),
  killScenario('mail', 'SIGTERM'),
  killScenario('api', 'SIGKILL'),
  killScenario('api', 'SIGTERM'),
  redisDown('redis-kill-15s', 15_000, true),
  redisDown('redis-kill-60s', 60_000),
  {
    name: 'redis-restarted-empty',
    quick: true,
    async inject(cluster, workload) {
      // Bookings wait for their clients' inputs, and applications queue behind the sites'
      // politeness limit (one at a time per host: one more at each site), when every key is lost.
      const release = workload.holdInputs();
      await waitFor('bookings waiting for their clients', () => workload.parkedAtInput() >= 3, { timeoutMs: 60_000, intervalMs: 200 });
      const queued = await Promise.all([0, 1, 2, 3].map((site) => workload.apply(site, `q${site + 1}`)));
      const start = Date.now();
      await cluster.redis.kill();
      cluster.redis.wipe();
      await cluster.redis.start();
      const end = Date.now();
      const parked = workload.parkedAtInput();
      release();
      // A card's CVV lives only in Redis, by design (it is never written to disk, ADR 0048): the
      // cards stored for bookings still waiting lose it, and those bookings end CvvUnavailable
      // before anything is sent; their clients store the card again (counted apart, not lost).
      return {
        start,
        end,
        mailKillsAt: [],
        cvvsLost: true,
        notes: [
          `every key lost (append-only file deleted) with ${parked} bookings waiting for input and ${queued.filter((status) => status === 200).length} applications queued, one behind each site's politeness limit`,
        ],
      };
    },
  },
  midCallKill('applications-worker', 'SIGKILL'),
  midCallKill('applications-worker', 'SIGTERM'),
  midCallKill('bookings-worker', 'SIGKILL'),
  midCallKill('bookings-worker', 'SIGTERM'),
  pauseScenario('mining-worker', 30_000),
  pauseScenario('applications-worker', 30_000),
  pauseScenario('bookings-worker', 30_000),
  partitionScenario('applications-worker', 'stores', 30_000),
  partitionScenario('bookings-worker', 'stores', 30_000),
  partitionScenario('applications-worker', 'all', 30_000),
  partitionScenario('bookings-worker', 'all', 30_000),
  postgresDown('postgres-stop-10s', 10_000, true),
  postgresDown('postgres-stop-60s', 60_000),
  {
    name: 'push-receiver-down-60s',
    async inject(cluster) {
      const start = Date.now();
      await cluster.pushSink.down();
      await sleep(60_000);
      await cluster.pushSink.up();
      return { start, end: Date.now(), mailKillsAt: [], notes: [] };
    },
  },
  {
    name: 'smtp-451-3min',
    // At the default retry base (5 min, doubling) a message refused at the start of the window is
    // tried again 5 min later: 2 min after the window, past the 15 s recovery target whatever the
    // software does. A retry every 5–10 s makes the measure the one of Quarry, not of the timer.
    mailEnv: { MAIL_RETRY_BASE_MS: '5000', MAIL_RETRY_MAX_MS: '10000' },
    async inject(cluster) {
      const start = Date.now();
      cluster.smtpRefusing.on = true;
      await sleep(180_000);
      cluster.smtpRefusing.on = false;
      return { start, end: Date.now(), mailKillsAt: [], notes: [] };
    },
  },
];
