import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

export const workersVariables = {
  // A crashed process's jobs go back to the queue at most lock + stalled interval after the
  // crash (14 s): its work resumes within 15 s. The lock is renewed every half lock, so a healthy
  // worker keeps it through event-loop pauses of up to 5 s.
  JOB_LOCK_MS: positiveMs.default(10_000),
  JOB_STALLED_INTERVAL_MS: positiveMs.default(2_000),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(10),
};

export const readWorkers = (vars: VariablesOf<typeof workersVariables>) => ({
  jobLockMs: vars.JOB_LOCK_MS,
  jobStalledIntervalMs: vars.JOB_STALLED_INTERVAL_MS,
  workerConcurrency: vars.WORKER_CONCURRENCY,
});
