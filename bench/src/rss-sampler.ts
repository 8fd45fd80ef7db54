import { readFileSync } from 'node:fs';

/** Samples a process's resident set size from /proc every few milliseconds. */
export function sampleRss(pid: number, everyMs = 5): { stop: () => { baselineMb: number; peakMb: number } } {
  const read = () => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  };
  const baselineMb = read();
  let peakMb = baselineMb;
  const timer = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, read());
    } catch {
      clearInterval(timer);
    }
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return { baselineMb, peakMb };
    },
  };
}
