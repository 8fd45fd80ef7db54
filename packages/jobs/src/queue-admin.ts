import type { Queue } from 'bullmq';
import { queueFamilies, queueNames, type QueueFamily, type QueueName } from './catalog.ts';
import type { JobQueues } from './job-queues.ts';

export type QueueView = { name: string; paused: boolean; workers: number; counts: Record<string, number> };
export type QueueJobView = {
  id: string; name: string; attemptsMade: number; failedReason: string | null;
  enqueuedAt: number; startedAt: number | null; finishedAt: number | null; payload: unknown;
};

const jobStates = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;
export type QueueJobState = (typeof jobStates)[number];

/**
 * Resolves an operator-supplied queue name to a queue of the catalog: a static queue, or a member
 * of a family whose key passes `isKnownKey` (e.g. an existing batch). Anything else is unknown.
 */
export async function resolveQueue(
  queues: JobQueues,
  name: string,
  isKnownKey: (family: QueueFamily, key: string) => Promise<boolean>,
): Promise<Queue | null> {
  if ((queueNames as readonly string[]).includes(name)) return queues.queue(name as QueueName);
  for (const family of queueFamilies) {
    if (!name.startsWith(`${family}.`)) continue;
    const key = name.slice(family.length + 1);
    return (await isKnownKey(family, key)) ? queues.familyQueue(family, key) : null;
  }
  return null;
}

export async function viewQueue(queue: Queue): Promise<QueueView> {
  const [counts, paused, workers] = await Promise.all([
    queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    queue.isPaused(),
    queue.getWorkersCount(),
  ]);
  return { name: queue.name, paused, workers, counts };
}

export async function listQueueJobs(queue: Queue, state: QueueJobState, limit: number): Promise<QueueJobView[]> {
  const jobs = await queue.getJobs([state === 'waiting' ? 'wait' : state], 0, limit - 1);
  return jobs.filter(Boolean).map((job) => ({
    id: job.id ?? '',
    name: job.name,
    attemptsMade: job.attemptsMade,
    failedReason: job.failedReason || null,
    enqueuedAt: job.timestamp,
    startedAt: job.processedOn ?? null,
    finishedAt: job.finishedOn ?? null,
    // Job data holds ids only (never secrets or bodies); operators see the payload, not the trace carrier.
    payload: (job.data as { payload?: unknown } | undefined)?.payload ?? null,
  }));
}

export { jobStates as queueJobStates };
