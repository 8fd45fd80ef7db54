import { CanaryJobPayload } from '@quarry/contracts';
import type { z } from 'zod';

/**
 * Every queue and job of Quarry, declared once. Queue and job names are stored in Redis and in
 * running jobs: they change only by addition (STYLE.md, habit 6).
 */
export const queueNames = ['system'] as const;
export type QueueName = (typeof queueNames)[number];

export type JobDefinition = {
  queue: QueueName;
  payload: z.ZodType;
  /** Total tries, the first included. Retries only where repeating is safe and useful. */
  attempts: number;
  backoff: { type: 'exponential' | 'fixed'; delay: number };
  /** A run longer than this fails the attempt (BullMQ has no timeout of its own). */
  timeoutMs: number;
};

export const jobCatalog = {
  'system.canary': {
    queue: 'system',
    payload: CanaryJobPayload,
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    timeoutMs: 11 * 60_000,
  },
} as const satisfies Record<string, JobDefinition>;

export type JobName = keyof typeof jobCatalog;
export type JobPayload<Name extends JobName> = z.infer<(typeof jobCatalog)[Name]['payload']>;

export function jobsOfQueue(queue: QueueName): JobName[] {
  return (Object.keys(jobCatalog) as JobName[]).filter((name) => jobCatalog[name].queue === queue);
}
