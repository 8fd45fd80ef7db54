import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** A "<field>: <n> kB" figure of a /proc file, in MB; 0 once the process is gone. */
function procMb(path: string, field: RegExp): number {
  try {
    const match = field.exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The same, read off the event loop (the thread pool): a read of smaps_rollup can take tens of milliseconds. */
async function procMbAsync(path: string, field: RegExp): Promise<number> {
  try {
    const match = field.exec(await readFile(path, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export const rssMb = (pid: number) => procMb(`/proc/${pid}/status`, /VmRSS:\s+(\d+) kB/);
/** Proportional set size: each shared page (Chromium's binary, fonts, V8's snapshot) split among the processes mapping it. */
const pssMb = (pid: number) => procMbAsync(`/proc/${pid}/smaps_rollup`, /^Pss:\s+(\d+) kB/m);

/** A process and all its descendants, from each process's list of children (no scan of every process on the machine). */
export async function treeOf(rootPid: number): Promise<number[]> {
  const tree: number[] = [];
  const pending = [rootPid];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    tree.push(pid);
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const task of tasks) {
      const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
      pending.push(...children.split(' ').filter(Boolean).map(Number));
    }
  }
  return tree;
}

/**
 * Resident memory of a process and all its descendants (a worker and its Chromium), sampled. The
 * sum of RSS counts a page shared by N processes N times; the sum of PSS counts it once, as a
 * container's memory limit does. Samples are read asynchronously, one after the other: reading
 * smaps_rollup of busy Chromium processes waits on their memory map locks, and done synchronously
 * it held the measured worker's event loop for a third of a bench run.
 */
export function sampleTreeRss(rootPid: number, everyMs = 100): { stop: () => { peakMb: number; peakPssMb: number } } {
  let peakMb = 0;
  let peakPssMb = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const sample = async () => {
    const tree = await treeOf(rootPid);
    const [rss, pss] = await Promise.all([
      Promise.all(tree.map((pid) => procMbAsync(`/proc/${pid}/status`, /VmRSS:\s+(\d+) kB/))),
      Promise.all(tree.map(pssMb)),
    ]);
    peakMb = Math.max(
      peakMb,
      rss.reduce((sum, mb) => sum + mb, 0),
    );
    peakPssMb = Math.max(
      peakPssMb,
      pss.reduce((sum, mb) => sum + mb, 0),
    );
  };
  const next = () => {
    if (!stopped) timer = setTimeout(() => void sample().finally(next), everyMs);
  };
  next();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      return { peakMb, peakPssMb };
    },
  };
}
