import { z } from 'zod';
import type { VariablesOf } from './section.ts';

/** The browser pools' limits (`BROWSER_*`, read also under their deprecated `MINING_BROWSER_*` names). */
const recycleJobs = z.coerce.number().int().min(1);
const recycleMb = z.coerce.number().int().min(100);
const browserContexts = z.coerce.number().int().min(1).max(64);

export const browserVariables = {
  // Every Chromium runs with its sandbox on. Chromium refuses that sandbox to root, so a process
  // running as root starts its browsers as this unprivileged user (uid:gid; ADR 0056). Unused
  // when the process is not root (the image runs as 1000:1000).
  CHROMIUM_RUN_AS: z
    .string()
    .regex(/^[1-9]\d*:[1-9]\d*$/, 'must be uid:gid of an unprivileged user (not root), e.g. 65534:65534')
    .default('65534:65534')
    .transform((value) => ({ uid: Number(value.slice(0, value.indexOf(':'))), gid: Number(value.slice(value.indexOf(':') + 1)) })),
  // Debian's headless shell: the full browser costs 3–8× the CPU per context (ADR 0021). The
  // browser of mining, applying and hotel checkouts (each process's pools, @quarry/browser).
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium-headless-shell'),
  // A pool replaces its Chromium after this many jobs, or above this much memory (PSS, MB).
  BROWSER_RECYCLE_JOBS: recycleJobs.optional(),
  BROWSER_RECYCLE_MB: recycleMb.optional(),
  // Browser contexts open at once per process for pages clients submit (mining, applying): memory, not CPU, sets it.
  BROWSER_CONTEXTS: browserContexts.optional(),
  // Deprecated names of the three above, still read when the new name is unset (ADR 0061).
  MINING_BROWSER_RECYCLE_JOBS: recycleJobs.optional(),
  MINING_BROWSER_RECYCLE_MB: recycleMb.optional(),
  MINING_BROWSER_CONTEXTS: browserContexts.optional(),
};

export const readBrowser = (vars: VariablesOf<typeof browserVariables>) => ({
  chromiumRunAs: vars.CHROMIUM_RUN_AS,
  /** Every Chromium pool of a process: its binary and limits (`@quarry/browser`). */
  browser: {
    chromiumPath: vars.CHROMIUM_PATH,
    /** A fresh browser after this many jobs, or once its processes hold more than `recycleAboveMb` (PSS). */
    recycleAfterJobs: vars.BROWSER_RECYCLE_JOBS ?? vars.MINING_BROWSER_RECYCLE_JOBS ?? 50,
    recycleAboveMb: vars.BROWSER_RECYCLE_MB ?? vars.MINING_BROWSER_RECYCLE_MB ?? 1024,
    /** Contexts open at once in the pool of pages clients submit (mining, applying); checkouts have their own limit. */
    maxContexts: vars.BROWSER_CONTEXTS ?? vars.MINING_BROWSER_CONTEXTS ?? 5,
  },
});
