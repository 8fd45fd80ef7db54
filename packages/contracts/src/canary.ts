import { z } from 'zod';

/**
 * A canary is a no-op job an operator sends through the queue to prove a deployment's whole path
 * (API → Redis → worker → Postgres) works. `holdMs` keeps it active for a while, which is how the
 * crash and shutdown tests catch a worker mid-job.
 */
export const RequestCanaryBody = z.object({
  holdMs: z.number().int().min(0).max(600_000).default(0),
});

export const CanaryState = z.enum(['queued', 'processing', 'completed']);

export const CanaryView = z.object({
  canaryId: z.uuid(),
  state: CanaryState,
  holdMs: z.number().int(),
  runs: z.number().int().describe('How many times a worker started this canary (crash recovery re-runs it)'),
  createdAt: z.iso.datetime(),
  completedAt: z.string().nullable(),
  completedBy: z.string().nullable().describe('Worker process that completed it'),
});
export type CanaryView = z.infer<typeof CanaryView>;

export const CanaryIdParams = z.object({ canaryId: z.uuid() });

export const CanaryJobPayload = z.object({ canaryId: z.uuid() });
export type CanaryJobPayload = z.infer<typeof CanaryJobPayload>;
