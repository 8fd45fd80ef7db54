import { SpanKind, trace } from '@opentelemetry/api';
import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobCatalog, queueFamilies, queueNames, type JobName, type JobPayload, type QueueFamily, type QueueName } from './catalog.ts';
import { sealEnvelope } from './envelope.ts';
import { isStoreOutage } from './store-outage.ts';

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
  /**
   * A repeating job (BullMQ job scheduler); idempotent per `schedulerId`, so every process may call
   * it at boot. A scheduler lives only in Redis: this process creates it again when it finds it
   * missing (each reconnection, and every `scheduleCheckMs`), so a Redis restarted empty does not
   * stop recurring work.
   */
  schedule<Name extends JobName>(name: Name, payload: JobPayload<Name>, options: { schedulerId: string; everyMs: number }): Promise<void>;
  /** Creates again every scheduler of this process that Redis no longer has; returns their ids. */
  restoreSchedules(): Promise<string[]>;
  jobCounts(): Promise<Array<{ queue: string; state: string; count: number }>>;
  /**
   * Jobs that want a worker now (waiting, prioritized, active) per queue of the catalog, a family's
   * queues summed under the family's name (`familyKeys`: the keys whose queues exist, e.g. the
   * running batches): what an autoscaler reads. Delayed jobs (backoff, politeness, a lease held
   * elsewhere) and paused queues' jobs are not counted: more workers would not run them sooner.
   */
  backlog(familyKeys: Partial<Record<QueueFamily, string[]>>): Promise<Array<{ queue: string; count: number }>>;
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
export function createJobQueues(options: {
  connection: Redis;
  prefix: string;
  /** How often the schedulers of this process are checked (default a minute); also at every reconnection. */
  scheduleCheckMs?: number;
  /**
   * A queue's error that is not Redis being away (that one the connection's own health log
   * reports), or a scheduler that could not be checked or created again (tried at the next check).
   */
  onError?: (error: unknown, where: string) => void;
}): JobQueues {
  const openQueue = (name: string): Queue => {
    const queue = new Queue(name, { connection: options.connection, prefix: options.prefix });
    // Without a listener BullMQ prints each connection error of each queue to stderr, a
    // multi-line dump per queue per reconnect attempt while Redis is down.
    queue.on('error', (error) => {
      if (!isStoreOutage(error)) options.onError?.(error, `queue ${name}`);
    });
    return queue;
  };
  const queues = new Map<QueueName, Queue>(queueNames.map((name) => [name, openQueue(name)]));
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
      queue = openQueue(name);
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

  const schedules = new Map<string, { queue: Queue; upsert: () => Promise<unknown> }>();
  let scheduleTimer: NodeJS.Timeout | undefined;
  const restoreSchedules = async (): Promise<string[]> => {
    const restored: string[] = [];
    for (const [schedulerId, { queue, upsert }] of schedules) {
      try {
        if (await queue.getJobScheduler(schedulerId)) continue;
        await upsert();
        restored.push(schedulerId);
      } catch (error) {
        if (!isStoreOutage(error)) options.onError?.(error, `scheduler ${schedulerId}`);
      }
    }
    return restored;
  };
  const onReady = () => void restoreSchedules();

  return {
    async enqueue(name, payload, enqueueOptions) {
      const definition = jobCatalog[name];
      const parsed = definition.payload.parse(payload);
      return tracer.startActiveSpan(`${definition.queue} publish ${name}`, { kind: SpanKind.PRODUCER }, async (span) => {
        try {
          const job = await queueFor(name, enqueueOptions?.queueKey).add(
            name,
            sealEnvelope(parsed, 'child'),
            jobOptions(name, enqueueOptions),
          );
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
      const queue = queueFor(name, undefined);
      const upsert = () =>
        queue.upsertJobScheduler(
          scheduleOptions.schedulerId,
          { every: scheduleOptions.everyMs },
          { name, data: sealEnvelope(parsed, 'link'), opts: jobOptions(name, undefined) },
        );
      await upsert();
      if (schedules.size === 0) {
        options.connection.on('ready', onReady);
        scheduleTimer = setInterval(onReady, options.scheduleCheckMs ?? 60_000);
        scheduleTimer.unref();
      }
      schedules.set(scheduleOptions.schedulerId, { queue, upsert });
    },
    restoreSchedules,
    async jobCounts() {
      const counts = await Promise.all(
        [...queues.entries(), ...familyQueues.entries()].map(async ([name, queue]) => {
          const byState = await queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'prioritized');
          return Object.entries(byState).map(([state, count]) => ({ queue: name, state, count }));
        }),
      );
      return counts.flat();
    },
    async backlog(familyKeys) {
      const wanting = async (queue: Queue) => {
        if (await queue.isPaused()) return 0;
        const counts = await queue.getJobCounts('wait', 'prioritized', 'active');
        return Object.values(counts).reduce((sum, count) => sum + count, 0);
      };
      const single = await Promise.all(queueNames.map(async (name) => ({ queue: name as string, count: await wanting(queueOf(name)) })));
      const families = await Promise.all(
        queueFamilies.map(async (family) => {
          const keys = familyKeys[family] ?? [];
          // Opened for the count only: a queue this process does not otherwise use is closed again.
          const counts = await Promise.all(
            keys.map(async (key) => {
              const known = familyQueues.has(`${family}.${key}`);
              const queue = familyQueue(family, key);
              try {
                return await wanting(queue);
              } finally {
                if (!known) {
                  familyQueues.delete(`${family}.${key}`);
                  await queue.close();
                }
              }
            }),
          );
          return { queue: family as string, count: counts.reduce((sum, count) => sum + count, 0) };
        }),
      );
      return [...single, ...families];
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
      clearInterval(scheduleTimer);
      options.connection.off('ready', onReady);
      await Promise.all([...queues.values(), ...familyQueues.values()].map((queue) => queue.close()));
    },
  };
}
