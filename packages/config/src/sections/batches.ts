import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const batchesVariables = {
  // Recruitment batches, read where batches are accepted (api) and mined (mining-worker); README "Recruitment" documents each.
  MINING_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(4),
  MINING_BATCH_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(120),
  MINING_AUTOPAUSE_WINDOW: z.coerce.number().int().min(1).max(10_000).default(50),
  MINING_AUTOPAUSE_MIN_SUCCESS_RATE: z.coerce.number().min(0).max(1).default(0.2),
  MINING_CSV_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
};

/** How batches are accepted and run: what the API (intake) and the mining worker (admission, auto-pause) share. */
export const readBatches = (vars: VariablesOf<typeof batchesVariables>) => ({
  batches: {
    /** Each new batch's limits, stored with it: rows mined at once across all workers, and rows started per minute. */
    batch: { concurrency: vars.MINING_BATCH_CONCURRENCY, ratePerMinute: vars.MINING_BATCH_RATE_PER_MINUTE },
    /** Auto-pause when the success rate over the last `window` outcomes falls below `minSuccessRate`. */
    autoPause: { window: vars.MINING_AUTOPAUSE_WINDOW, minSuccessRate: vars.MINING_AUTOPAUSE_MIN_SUCCESS_RATE },
    maxCsvBytes: vars.MINING_CSV_MAX_BYTES,
  },
});
