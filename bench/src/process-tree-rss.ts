import { readdirSync, readFileSync } from 'node:fs';
import { procStatFields } from './proc-stat.ts';

// Field 4 of /proc/<pid>/stat: the parent's pid.
const parentOf = (pid: number): number => Number(procStatFields(pid)?.[1] ?? -1);

/** A "<field>: <n> kB" figure of a /proc file, in MB; 0 once the process is gone. */
function procMb(path: string, field: RegExp): number {
  try {
    const match = field.exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export const rssMb = (pid: number) => procMb(`/proc/${pid}/status`, /VmRSS:\s+(\d+) kB/);
/** Proportional set size: each shared page (Chromium's binary, fonts, V8's snapshot) split among the processes mapping it. */
const pssMb = (pid: number) => procMb(`/proc/${pid}/smaps_rollup`, /^Pss:\s+(\d+) kB/m);

/**
 * Resident memory of a process and all its descendants (a worker and its Chromium), sampled. The
 * sum of RSS counts a page shared by N processes N times; the sum of PSS counts it once, as a
 * container's memory limit does.
 */
export function sampleTreeRss(rootPid: number, everyMs = 100): { stop: () => { peakMb: number; peakPssMb: number } } {
  let peakMb = 0;
  let peakPssMb = 0;
  const sample = () => {
    const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
    const parents = new Map(pids.map((pid) => [pid, parentOf(pid)]));
    const inTree = new Set([rootPid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [pid, parent] of parents) {
        if (!inTree.has(pid) && inTree.has(parent)) {
          inTree.add(pid);
          grew = true;
        }
      }
    }
    peakMb = Math.max(peakMb, [...inTree].reduce((sum, pid) => sum + rssMb(pid), 0));
    peakPssMb = Math.max(peakPssMb, [...inTree].reduce((sum, pid) => sum + pssMb(pid), 0));
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakMb, peakPssMb };
    },
  };
}
