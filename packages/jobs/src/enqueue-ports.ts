import type { JobName, JobPayload, QueueFamily, QueueName } from './catalog.ts';
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

/** What a reconciler may know of one queued job, and the one thing it may do: start it afresh. */
export type QueuedJob = {
  state: string;
  attemptsMade: number;
  attempts: number;
  failedReason: string | undefined;
  /** Runs a failed or completed job again with its attempts reset; throws when another process did first. */
  restart(): Promise<void>;
};
/** Finds a job by id in a queue (`key` names the queue of a family, e.g. one batch's). */
export type FindQueuedJob = (jobId: string, key?: string) => Promise<QueuedJob | undefined>;

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

/** The job lookup a reconciler needs, in one queue or (with a key) in the queues of a family. */
export function queuedJobFinder(queues: JobQueues, queue: QueueName | QueueFamily): FindQueuedJob {
  return async (jobId, key) => {
    const job = await (key === undefined ? queues.queue(queue as QueueName) : queues.familyQueue(queue as QueueFamily, key)).getJob(jobId);
    if (!job) return undefined;
    const state = await job.getState();
    return {
      state,
      attemptsMade: job.attemptsMade,
      attempts: job.opts.attempts ?? 1,
      failedReason: job.failedReason,
      async restart() {
        if (state !== 'failed' && state !== 'completed') throw new Error(`job ${jobId} is ${state}, not finished`);
        await job.retry(state, { resetAttemptsMade: true, resetAttemptsStarted: true });
      },
    };
  };
}
