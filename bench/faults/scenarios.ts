import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { waitFor } from '@quarry/testing';
import { mailDestination, type FaultCluster } from './fault-cluster.ts';
import type { RoleProcess } from './role-processes.ts';
import type { Workload } from './workload.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** When the fault began and ended (equal for a kill); `mailKills` bounds the allowed mail duplicates. */
export type FaultWindow = { start: number; end: number; mailKillsAt: number[]; notes: string[] };

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
  return waitFor(`a process ${what}`, async () => {
    const pids = await pidsConnectedTo(port);
    return pair.find((role) => pids.has(role.pid()));
  }, { timeoutMs: 30_000, intervalMs: 50 });
}

const portOf = (url: string) => Number(new URL(url).port);

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
    async inject(cluster) {
      const start = Date.now();
      await cluster.redis.kill();
      cluster.redis.wipe();
      await cluster.redis.start();
      return { start, end: Date.now(), mailKillsAt: [], notes: ['every key lost (append-only file deleted)'] };
    },
  },
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
