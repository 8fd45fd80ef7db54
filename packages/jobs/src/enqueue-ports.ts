import type { JobName, JobPayload, QueueFamily } from './catalog.ts';
import type { EnqueueOptions, JobQueues, QueueKey } from './job-queues.ts';

/**
 * The producer ports a domain package declares, one per job it adds, typed by the job catalog. The
 * domain never sees BullMQ or `JobQueues`: the role wires each port with the helpers below.
 */
export type Enqueue<Name extends JobName> = (payload: JobPayload<Name>, options?: EnqueueOptions & QueueKey) => Promise<unknown>;
export type EnqueueMany<Name extends JobName> = (
  items: Array<{ payload: JobPayload<Name>; options?: EnqueueOptions }>,
  target?: QueueKey,
) => Promise<unknown>;
/** What a domain may do to the queues of a queue family (one per mining batch): cap, pause, resume. */
export type FamilyQueueControl = {
  setGlobalConcurrency(key: string, concurrency: number): Promise<void>;
  pause(key: string): Promise<void>;
  resume(key: string): Promise<void>;
};

export const enqueuer =
  <Name extends JobName>(queues: JobQueues, name: Name): Enqueue<Name> =>
  (payload, options) =>
    queues.enqueue(name, payload, options);

export const bulkEnqueuer =
  <Name extends JobName>(queues: JobQueues, name: Name): EnqueueMany<Name> =>
  (items, target) =>
    queues.enqueueBulk(name, items, target);

export function familyQueueControl(queues: JobQueues, family: QueueFamily): FamilyQueueControl {
  return {
    async setGlobalConcurrency(key, concurrency) {
      await queues.familyQueue(family, key).setGlobalConcurrency(concurrency);
    },
    async pause(key) {
      await queues.familyQueue(family, key).pause();
    },
    async resume(key) {
      await queues.familyQueue(family, key).resume();
    },
  };
}
