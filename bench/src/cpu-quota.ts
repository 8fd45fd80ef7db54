import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanUpOnExit } from './harness.ts';

export type CpuQuota = {
  /** Moves a process (all its threads; children it starts later follow it) into the group. */
  add(pid: number): void;
  /** Periods (of 100 ms) so far, and those in which the group used its whole quota and waited. */
  periods(): { total: number; throttled: number };
  /** Removes the group (its processes must have exited). */
  remove(): void;
};

const period = 100_000;

/**
 * A cgroup holding its processes to `cpus` CPUs (0.4: 40 ms of every 100 ms), as a container's CPU
 * limit does: a "host" of the scale-out bench. cgroup v2 (`cpu.max`) where the cpu controller is
 * delegated, else v1's cpu hierarchy (`cpu.cfs_quota_us`). Needs root. Removed at exit, also on
 * Ctrl-C, and the processes left in it are killed then.
 */
export function createCpuQuota(name: string, cpus: number): CpuQuota {
  const quota = String(Math.round(cpus * period));
  const v2 =
    existsSync('/sys/fs/cgroup/cgroup.controllers') &&
    readFileSync('/sys/fs/cgroup/cgroup.subtree_control', 'utf8')
      .split(' ')
      .map((word) => word.trim())
      .includes('cpu');
  const root = v2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/cpu';
  if (!existsSync(join(root, 'cgroup.procs')))
    throw new Error(`no cgroup cpu controller at ${root}: the scale-out bench needs one (and root)`);
  const folder = join(root, name);
  mkdirSync(folder);
  if (v2) writeFileSync(join(folder, 'cpu.max'), `${quota} ${period}`);
  else {
    writeFileSync(join(folder, 'cpu.cfs_period_us'), String(period));
    writeFileSync(join(folder, 'cpu.cfs_quota_us'), quota);
  }
  const remove = () => {
    if (!existsSync(folder)) return;
    for (const pid of readFileSync(join(folder, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    try {
      rmdirSync(folder);
    } catch {
      // still emptying; the next remove or the exit hook takes it
    }
  };
  const forget = cleanUpOnExit(remove);
  return {
    add: (pid) => writeFileSync(join(folder, 'cgroup.procs'), String(pid)),
    periods: () => {
      const stat = readFileSync(join(folder, 'cpu.stat'), 'utf8');
      return { total: Number(/nr_periods (\d+)/.exec(stat)?.[1] ?? 0), throttled: Number(/nr_throttled (\d+)/.exec(stat)?.[1] ?? 0) };
    },
    remove: () => {
      remove();
      forget();
    },
  };
}
