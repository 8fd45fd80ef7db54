import { readdirSync, readFileSync } from 'node:fs';

function parentOf(pid: number): number {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after the ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants (a worker and its Chromium), sampled. */
export function sampleTreeRss(rootPid: number, everyMs = 100): { stop: () => { peakMb: number } } {
  let peakMb = 0;
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
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakMb };
    },
  };
}
