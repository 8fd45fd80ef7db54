import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A process of a Chromium under test, as the kernel sees it (Linux /proc). */
export type ChromiumProcess = {
  pid: number;
  /** Its command line, arguments joined by spaces (Chromium rewrites its renderers' own). */
  commandLine: string;
  /** The real user id. */
  uid: number;
  /** 0: no seccomp, 2: a seccomp-bpf filter (Chromium's sandbox installs one in every renderer). */
  seccomp: number;
  /** Its user and PID namespaces (`user:[4026531837]`): a sandboxed renderer has its own. */
  userNamespace: string;
  pidNamespace: string;
  /** `renderer`, `zygote`, `gpu-process`, `utility`…, or `browser` for the main process. */
  type: string;
};

function statusField(status: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
}

/** Every Chromium process descending from `rootPid` (this process by default) that is still running. */
export function chromiumProcessesUnder(rootPid: number = process.pid): ChromiumProcess[] {
  const parents = new Map<number, number>();
  const statuses = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      statuses.set(Number(entry), status);
      parents.set(Number(entry), statusField(status, 'PPid'));
    } catch {
      // Gone meanwhile.
    }
  }
  const descends = (pid: number): boolean => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) {
      if (current === rootPid) return true;
    }
    return false;
  };
  const found: ChromiumProcess[] = [];
  for (const [pid, status] of statuses) {
    if (!descends(pid)) continue;
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      if (!/chrom/.test(commandLine)) continue;
      found.push({
        pid,
        commandLine,
        uid: statusField(status, 'Uid'),
        seccomp: statusField(status, 'Seccomp'),
        userNamespace: readlinkSync(`/proc/${pid}/ns/user`),
        pidNamespace: readlinkSync(`/proc/${pid}/ns/pid`),
        type: /--type=([\w-]+)/.exec(commandLine)?.[1] ?? 'browser',
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
