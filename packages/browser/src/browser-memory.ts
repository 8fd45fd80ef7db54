import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';

/** Proportional set size of one process in MB: shared pages split among the processes mapping them. */
async function pssMb(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const kb = /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/**
 * Memory of one Chromium: the PSS of every process it reports (browser, renderers, GPU, utility
 * processes), in MB. PSS counts a page shared by several processes once in the sum, as a
 * container's memory limit does. 0 where /proc cannot be read (not Linux).
 */
export async function browserMemoryMb(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo } = await session.send('SystemInfo.getProcessInfo');
    const sizes = await Promise.all(processInfo.map((process) => pssMb(process.id)));
    return sizes.reduce((sum, size) => sum + size, 0);
  } finally {
    await session.detach().catch(() => {});
  }
}
