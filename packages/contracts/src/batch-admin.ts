import { z } from 'zod';
import { BatchSummary } from './recruitment.ts';

/** Operators' batch controls (`/v1/admin/batches…`): what they take and what they answer. */
export const BatchListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  active: z.enum(['true', 'false']).default('false'),
});

export const BatchRowsQuery = z.object({
  filter: z.enum(['failed', 'slowest']).default('failed'),
  limit: z.coerce.number().int().min(1).max(500).default(20),
});

export const PauseBatchBody = z.object({ reason: z.string().trim().min(1).max(500).default('paused by an operator') });

export const BatchIdParams = z.object({ batchId: z.uuid() });

export const BatchSummaries = z.array(BatchSummary);

/** A batch with how many of its rows failed with each error code. */
export const BatchDetail = BatchSummary.extend({ errorCodes: z.array(z.object({ errorCode: z.string(), count: z.number() })) });
export type BatchDetail = z.infer<typeof BatchDetail>;

/** One row of a batch as operators inspect it (its failed or slowest job posts). */
export const BatchJobPostView = z.object({
  jobPostId: z.string(),
  rowNo: z.number().int(),
  url: z.string(),
  state: z.string(),
  errorCode: z.string().nullable(),
  adapter: z.string().nullable(),
  durationMs: z.number().int().nullable(),
});
export type BatchJobPostView = z.infer<typeof BatchJobPostView>;

export const BatchJobPostViews = z.array(BatchJobPostView);
