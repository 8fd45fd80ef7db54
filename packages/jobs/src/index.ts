export { jobCatalog, queueNames } from './catalog.ts';
export type { JobName, JobPayload, QueueName } from './catalog.ts';
export { createJobQueues } from './job-queues.ts';
export type { EnqueueOptions, JobQueues } from './job-queues.ts';
export { MissingHandlerError, startWorkers } from './job-workers.ts';
export type { JobContext, JobHandler, JobHandlers, WorkerEvents, WorkerPool } from './job-workers.ts';
export { createRedis } from './redis.ts';
