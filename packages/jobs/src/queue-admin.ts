import { AppError, type QueueJobState, type QueueJobView, type QueueView } from '@quarry/contracts';
import type { Queue } from 'bullmq';
import { queueFamilies, queueNames, type QueueFamily, type QueueName } from './catalog.ts';
import type { JobQueues } from './job-queues.ts';

/** What the operators' queue view reads: the queues, and which family members (running batches) exist. */
export type QueueAdminPorts = {
  queues: JobQueues;
  /** The family queues live now, as full names (`mining.batch.<batchId>` of each running batch). */
  listFamilyQueueNames: () => Promise<string[]>;
  /** Whether `key` names an existing member of `family` (e.g. an existing batch). */
  isKnownKey: (family: QueueFamily, key: string) => Promise<boolean>;
};

/**
 * Resolves an operator-supplied queue name to a queue of the catalog: a static queue, or a member
 * of a family whose key passes `isKnownKey` (e.g. an existing batch). Anything else is unknown.
 */
async function resolveQueue(
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

async function queueOr404(ports: QueueAdminPorts, name: string): Promise<Queue> {
  const queue = await resolveQueue(ports.queues, name, ports.isKnownKey);
  if (!queue) throw new AppError('NotFound', `no queue ${name}`);
  return queue;
}

/**
 * The processes taking the queue's jobs: each names its worker's connection `…:w:<host:pid>`, so
 * a process is counted once however many connections it holds; an unnamed one counts alone.
 */
async function workerProcesses(queue: Queue): Promise<string[]> {
  const clients = (await queue.getWorkers()) as Array<{ rawname?: string; id?: string }>;
  const names = clients.map((client) => {
    const marker = client.rawname?.indexOf(':w:') ?? -1;
    return marker >= 0 ? (client.rawname as string).slice(marker + 3) : `connection ${client.id ?? '?'}`;
  });
  return [...new Set(names)].sort();
}

async function viewQueue(queue: Queue): Promise<QueueView> {
  const [counts, paused, processes] = await Promise.all([
    queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    queue.isPaused(),
    workerProcesses(queue),
  ]);
  return { name: queue.name, paused, workers: processes.length, workerProcesses: processes, counts };
}

/** Every queue of the catalog, then each live family queue, with counts, pause state and workers. */
export async function listQueues(ports: QueueAdminPorts): Promise<QueueView[]> {
  const names = [...queueNames, ...(await ports.listFamilyQueueNames())];
  return Promise.all(names.map(async (name) => viewQueue(await queueOr404(ports, name))));
}

export async function listQueueJobs(ports: QueueAdminPorts, name: string, state: QueueJobState, limit: number): Promise<QueueJobView[]> {
  const queue = await queueOr404(ports, name);
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

/** Pauses a queue: running jobs finish, nothing new starts. */
export async function pauseQueue(ports: QueueAdminPorts, name: string): Promise<QueueView> {
  const queue = await queueOr404(ports, name);
  await queue.pause();
  return viewQueue(queue);
}

export async function resumeQueue(ports: QueueAdminPorts, name: string): Promise<QueueView> {
  const queue = await queueOr404(ports, name);
  await queue.resume();
  return viewQueue(queue);
}
