import { rssMb } from './process-tree-rss.ts';

/** Samples a process's resident set size from /proc every few milliseconds. */
export function sampleRss(pid: number, everyMs = 5): { stop: () => { baselineMb: number; peakMb: number } } {
  const baselineMb = rssMb(pid);
  let peakMb = baselineMb;
  const timer = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(pid));
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { baselineMb, peakMb };
    },
  };
}
