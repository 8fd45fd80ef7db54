import { z } from 'zod';

/** Operators' view of the BullMQ queues (`/v1/admin/queues…`). */
export const queueJobStates = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;
export type QueueJobState = (typeof queueJobStates)[number];

export const QueueJobsQuery = z.object({
  state: z.enum(queueJobStates).default('failed'),
  limit: z.coerce.number().int().min(1).max(200).default(20),
});

export const QueueNameParams = z.object({ name: z.string().describe('a catalog queue (e.g. mining.single) or mining.batch.<batchId>') });

export const QueueView = z.object({
  name: z.string(),
  paused: z.boolean(),
  workers: z.number().int().describe("Processes taking this queue's jobs (one per process, however many connections it holds)"),
  workerProcesses: z.array(z.string()).describe('Those processes, as the worker id each logs at start (host:pid)'),
  counts: z.record(z.string(), z.number()),
});
export type QueueView = z.infer<typeof QueueView>;

export const QueueJobView = z.object({
  id: z.string(),
  name: z.string(),
  attemptsMade: z.number().int(),
  failedReason: z.string().nullable(),
  enqueuedAt: z.number(),
  startedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
  payload: z.unknown(),
});
export type QueueJobView = z.infer<typeof QueueJobView>;

export const QueueViews = z.array(QueueView);
export const QueueJobViews = z.array(QueueJobView);
