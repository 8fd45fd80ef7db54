import { SpanKind, trace } from '@opentelemetry/api';
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobCatalog, queueFamilies, queueNames, type JobName, type JobPayload, type QueueFamily, type QueueName } from './catalog.ts';
import { sealEnvelope } from './envelope.ts';

const tracer = trace.getTracer('@quarry/jobs');

export type EnqueueOptions = { jobId?: string; delayMs?: number };
/** For jobs of a queue family: which queue of the family (e.g. the batch id). */
export type QueueKey = { queueKey?: string };

export type JobQueues = {
  enqueue<Name extends JobName>(name: Name, payload: JobPayload<Name>, options?: EnqueueOptions & QueueKey): Promise<string>;
  enqueueBulk<Name extends JobName>(
    name: Name,
    items: Array<{ payload: JobPayload<Name>; options?: EnqueueOptions }>,
    target?: QueueKey,
  ): Promise<string[]>;
  /** A repeating job (BullMQ job scheduler); idempotent per `schedulerId`, so every process may call it at boot. */
  schedule<Name extends JobName>(name: Name, payload: JobPayload<Name>, options: { schedulerId: string; everyMs: number }): Promise<void>;
  jobCounts(): Promise<Array<{ queue: string; state: string; count: number }>>;
  queue(name: QueueName): Queue;
  /** The queue `<family>.<key>`, opened on first use. */
  familyQueue(family: QueueFamily, key: string): Queue;
  /** Closes a family queue this process no longer needs (a finished batch). */
  releaseFamilyQueue(family: QueueFamily, key: string): Promise<void>;
  close(): Promise<void>;
};

function jobOptions(name: JobName, options: EnqueueOptions | undefined): JobsOptions {
  const definition = jobCatalog[name];
  return {
    attempts: definition.attempts,
    backoff: definition.backoff,
    // Keep finished jobs for a while for operators, but bounded: results live in Postgres.
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
    ...(options?.jobId ? { jobId: options.jobId } : {}),
    ...(options?.delayMs ? { delay: options.delayMs } : {}),
  };
}

/** Typed producers for every queue in the catalog. Payloads are validated before they reach Redis. */
export function createJobQueues(options: { connection: Redis; prefix: string }): JobQueues {
  const queues = new Map<QueueName, Queue>(
    queueNames.map((name) => [name, new Queue(name, { connection: options.connection, prefix: options.prefix })]),
  );
  const queueOf = (name: QueueName): Queue => {
    const queue = queues.get(name);
    if (!queue) throw new Error(`queue ${name} is not in the job catalog`);
    return queue;
  };
  const familyQueues = new Map<string, Queue>();
  const familyQueue = (family: QueueFamily, key: string): Queue => {
    const name = `${family}.${key}`;
    let queue = familyQueues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: options.connection, prefix: options.prefix });
      familyQueues.set(name, queue);
    }
    return queue;
  };
  const queueFor = (name: JobName, key: string | undefined): Queue => {
    const queue = jobCatalog[name].queue;
    if ((queueFamilies as readonly string[]).includes(queue)) {
      if (!key) throw new Error(`job ${name} runs on the ${queue} queue family: a queueKey is required`);
      return familyQueue(queue as QueueFamily, key);
    }
    return queueOf(queue as QueueName);
  };

  return {
    async enqueue(name, payload, enqueueOptions) {
      const definition = jobCatalog[name];
      const parsed = definition.payload.parse(payload);
      return tracer.startActiveSpan(`${definition.queue} publish ${name}`, { kind: SpanKind.PRODUCER }, async (span) => {
        try {
          const job = await queueFor(name, enqueueOptions?.queueKey).add(name, sealEnvelope(parsed, 'child'), jobOptions(name, enqueueOptions));
          span.setAttribute('messaging.message.id', job.id ?? '');
          return job.id ?? '';
        } finally {
          span.end();
        }
      });
    },
    async enqueueBulk(name, items, target) {
      const definition = jobCatalog[name];
      return tracer.startActiveSpan(`${definition.queue} publish ${name}`, { kind: SpanKind.PRODUCER }, async (span) => {
        try {
          span.setAttribute('messaging.batch.message_count', items.length);
          const jobs = await queueFor(name, target?.queueKey).addBulk(
            items.map((item) => ({
              name,
              data: sealEnvelope(definition.payload.parse(item.payload), 'link'),
              opts: jobOptions(name, item.options),
            })),
          );
          return jobs.map((job) => job.id ?? '');
        } finally {
          span.end();
        }
      });
    },
    async schedule(name, payload, scheduleOptions) {
      const definition = jobCatalog[name];
      const parsed = definition.payload.parse(payload);
      await queueFor(name, undefined).upsertJobScheduler(
        scheduleOptions.schedulerId,
        { every: scheduleOptions.everyMs },
        { name, data: sealEnvelope(parsed, 'link'), opts: jobOptions(name, undefined) },
      );
    },
    async jobCounts() {
      const counts = await Promise.all(
        [...queues.entries(), ...familyQueues.entries()].map(async ([name, queue]) => {
          const byState = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'prioritized');
          return Object.entries(byState).map(([state, count]) => ({ queue: name, state, count }));
        }),
      );
      return counts.flat();
    },
    queue: queueOf,
    familyQueue,
    async releaseFamilyQueue(family, key) {
      const name = `${family}.${key}`;
      const queue = familyQueues.get(name);
      familyQueues.delete(name);
      await queue?.close();
    },
    async close() {
      await Promise.all([...queues.values(), ...familyQueues.values()].map((queue) => queue.close()));
    },
  };
}
