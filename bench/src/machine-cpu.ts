import { availableParallelism } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from './proc-stat.ts';
import { treeOf } from './process-tree-rss.ts';

/** Busy time of the whole machine (every process, the kernel included) in seconds, from /proc/stat. */
export function busySeconds(): number {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  // USER_HZ is 100 on every Linux architecture Node runs on.
  return (user + nice + system + irq + softirq + steal) / 100;
}

/**
 * How busy the machine's cores were between start and stop, in % of all of them: says whether a
 * figure is bound by CPU or by waiting.
 */
export function measureMachineCpu(): { stop: () => number } {
  const startedAt = performance.now();
  const startBusy = busySeconds();
  return {
    stop: () => (100 * (busySeconds() - startBusy)) / (((performance.now() - startedAt) / 1000) * availableParallelism()),
  };
}

/** CPU time a process has used so far (user + system: fields 14 and 15 of its stat), in seconds; 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  const fields = procStatFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / 100 : 0;
}

/**
 * CPU time of a process that spawns short-lived children (Postfix's master): its own, its reaped
 * children's (fields 16 and 17), and that of its live children, in seconds.
 */
export function processTreeCpuSeconds(rootPid: number): number {
  const root = procStatFields(rootPid);
  if (!root) return 0;
  let seconds = processCpuSeconds(rootPid) + (Number(root[13]) + Number(root[14])) / 100;
  for (const entry of readdirSync('/proc')) {
    if (/^\d+$/.test(entry) && Number(procStatFields(Number(entry))?.[1]) === rootPid) seconds += processCpuSeconds(Number(entry));
  }
  return seconds;
}

/**
 * CPU time a process and all its descendants use from now until `stop`, in seconds, sampled every
 * `everyMs`: each process's own time, from its first sample (or its birth, if it started later) to
 * its last. Their reaped children's time (fields 16 and 17) would not do: Chromium's renderers
 * outlive the browser process a recycle closes, are reparented to init and reaped there, and their
 * time left the tree with them. A process that ends loses what it used after its last sample.
 */
export function sampleTreeCpu(rootPid: number, everyMs = 500): { stop: () => Promise<number> } {
  /** Per process (pid and start time, as pids are reused): its CPU seconds at its first and last sample. */
  const seen = new Map<string, { first: number; last: number }>();
  const sample = async (baseline: boolean) => {
    for (const pid of await treeOf(rootPid)) {
      const fields = procStatFields(pid);
      if (!fields) continue;
      const key = `${pid}@${fields[19]}`;
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      const known = seen.get(key);
      if (known) known.last = seconds;
      else seen.set(key, { first: baseline ? seconds : 0, last: seconds });
    }
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running = sample(true);
  const next = () => {
    if (!stopped) timer = setTimeout(() => void (running = sample(false)).finally(next), everyMs);
  };
  void running.then(next);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await sample(false);
      return [...seen.values()].reduce((sum, { first, last }) => sum + last - first, 0);
    },
  };
}

/**
 * CPU time of the Postgres backends serving one database (their process title names it), in
 * seconds: the database's share of a server that other databases use too. A backend that ended
 * meanwhile takes its time with it, so read it while the pools are open.
 */
export function databaseCpuSeconds(database: string): number {
  let seconds = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (title.startsWith('postgres: ') && title.split(' ').includes(database)) seconds += processCpuSeconds(Number(entry));
  }
  return seconds;
}

/** The pids of the live children of `parentPid` running `command` (their /proc comm, e.g. `dovecot`). */
export function childPids(parentPid: number, command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(Number(entry));
    if (Number(fields?.[1]) !== parentPid) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
