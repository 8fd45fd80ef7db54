import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name, numbered from "state" (field 3) on; null
 * once the process is gone. The name is in parentheses and may hold spaces, hence the split after
 * its closing ")".
 */
export function procStatFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}
