export { jobCatalog, queueFamilies, queueNames } from './catalog.ts';
export type { JobName, JobPayload, QueueFamily, QueueName } from './catalog.ts';
export { createJobQueues } from './job-queues.ts';
export type { EnqueueOptions, JobQueues, QueueKey } from './job-queues.ts';
export { MissingHandlerError, startWorkers } from './job-workers.ts';
export type { JobContext, JobHandler, JobHandlers, WorkerEvents, WorkerPool } from './job-workers.ts';
export { createRedis } from './redis.ts';
export { listQueueJobs, queueJobStates, resolveQueue, viewQueue } from './queue-admin.ts';
export type { QueueJobState, QueueJobView, QueueView } from './queue-admin.ts';
