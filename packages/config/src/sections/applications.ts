import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

export const applicationsVariables = {
  // Applications; README "Applications" documents each.
  APPLY_MAX_FILE_MB: z.coerce.number().min(0.001).max(1_024).default(10),
  APPLY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
  APPLY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  // Applications running at once, and started per second, per employer host across every worker.
  APPLY_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(1),
  APPLY_HOST_PER_SECOND: z.coerce.number().int().min(0).max(1_000).default(1),
  APPLY_PURGE_EVERY_MS: positiveMs.default(3_600_000),
  // How often lost application jobs are looked for, and how long an application must be untouched to count as lost.
  APPLY_RECONCILE_EVERY_MS: positiveMs.default(5_000),
  APPLY_STRANDED_AFTER_MS: positiveMs.default(5_000),
  // One application in the browser, from a free context to the outcome (the job's own limit is 10 minutes).
  APPLY_TIMEOUT_MS: positiveMs.default(180_000),
};

export const readApplications = (vars: VariablesOf<typeof applicationsVariables>) => ({
  applications: {
    maxFileBytes: Math.round(vars.APPLY_MAX_FILE_MB * 1024 * 1024),
    retentionDays: vars.APPLY_RETENTION_DAYS,
    concurrency: vars.APPLY_CONCURRENCY,
    hostConcurrency: vars.APPLY_HOST_CONCURRENCY,
    hostPerSecond: vars.APPLY_HOST_PER_SECOND,
    purgeEveryMs: vars.APPLY_PURGE_EVERY_MS,
    reconcileEveryMs: vars.APPLY_RECONCILE_EVERY_MS,
    /** An application not ended, held by no live run and untouched this long has lost its job. */
    strandedAfterMs: vars.APPLY_STRANDED_AFTER_MS,
    /** One application in the browser, from a free context to the outcome. */
    timeoutMs: vars.APPLY_TIMEOUT_MS,
  },
});
