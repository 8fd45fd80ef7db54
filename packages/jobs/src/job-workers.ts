import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describeIssues } from '@quarry/contracts';
import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { hostname } from 'node:os';
import { jobCatalog, jobsOfQueue, type JobName, type JobPayload, type QueueFamily, type QueueName } from './catalog.ts';
import { JobEnvelope, openEnvelope } from './envelope.ts';
import { isStoreOutage } from './store-outage.ts';

/** `host:pid`, the worker id `quarry start` logs for its process. */
const workerProcessName = (): string => `${hostname()}:${process.pid}`;

const tracer = trace.getTracer('@quarry/jobs');

export type JobContext = {
  job: Job;
  /**
   * Aborted when the job times out, when the process must hand the job back at shutdown, and when
   * this worker lost the job's lock (a pause or a cut to Redis let it lapse: another worker may
   * run the job now), so a handler stops before any irreversible step of its own.
   */
  signal: AbortSignal;
  /** Aborted (before `signal`) only when the lock was lost: a handler past its irreversible step may go on to record what it learns. */
  lockLost: AbortSignal;
  /** Which try this run is, 1 for the first (a run handed back or delayed spends none). */
  attempt: number;
  /** No retry follows if this run fails: the job's attempts (from the job catalog) are spent. */
  isFinalAttempt: boolean;
};

/** The attempt a job's run is, and whether it is its last, from BullMQ's count of attempts made. */
function attemptOf(job: Pick<Job, 'attemptsMade' | 'opts'>): { attempt: number; isFinalAttempt: boolean } {
  const attempt = job.attemptsMade + 1;
  return { attempt, isFinalAttempt: attempt >= (job.opts.attempts ?? 1) };
}

/**
 * Thrown by a handler that cannot run now for a reason that is not a failure (another run of the
 * same work holds its lease): the job waits `delayMs` and runs again without spending an attempt.
 */
export class RunLater extends Error {
  override readonly name = 'RunLater';
  readonly delayMs: number;
  constructor(delayMs: number, reason: string) {
    super(reason);
    this.delayMs = delayMs;
  }
}

/** Why a job's signal was aborted when its lock was lost. */
export class JobLockLostError extends Error {
  override readonly name = 'JobLockLostError';
}

export type JobHandler<Name extends JobName> = (payload: JobPayload<Name>, context: JobContext) => Promise<unknown>;

/** A handler for every job of the given queues: a missing one is a type error, and a boot error. */
export type JobHandlers<Queues extends QueueName | QueueFamily> = {
  [Name in JobName as (typeof jobCatalog)[Name]['queue'] extends Queues ? Name : never]: JobHandler<Name>;
};

export type WorkerEvents = {
  onOutcome?: (event: {
    queue: string;
    job: string;
    outcome: 'completed' | 'failed' | 'handed-back' | 'store-outage' | 'run-later';
    seconds: number;
  }) => void;
  onError?: (error: unknown, where: string) => void;
  /**
   * Confirms an outage-shaped error (a refused connection, a cut one) came from our own stores
   * and not from a remote the handler talked to, whose failure is the job's own. Without it, the
   * error's shape alone decides.
   */
  storesReachable?: () => Promise<boolean>;
};

/** How long a job waits when a store is down before it runs again (and tries the store again). */
const storeOutageDelayMs = 2_000;

export type WorkerPool = {
  /** Stops fetching; waits up to `graceMs` for active jobs, then hands the rest back to the queue. */
  close(graceMs: number): Promise<void>;
};

export class MissingHandlerError extends Error {
  constructor(missing: string[]) {
    super(`no handler registered for job(s): ${missing.join(', ')}`);
    this.name = 'MissingHandlerError';
  }
}

class JobTimeoutError extends Error {
  constructor(name: string, timeoutMs: number) {
    super(`job ${name} exceeded its ${timeoutMs} ms timeout`);
    this.name = 'JobTimeoutError';
  }
}

export function startWorkers<Queues extends QueueName | QueueFamily>(options: {
  connection: Redis;
  prefix: string;
  queues: readonly Queues[];
  /** For a queue family: which member (`<family>.<key>`), e.g. a batch id. */
  key?: string;
  /** BullMQ's rate limiter: at most `max` jobs per `durationMs`, across all workers of the queue. */
  limiter?: { max: number; durationMs: number };
  handlers: JobHandlers<Queues>;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
  events?: WorkerEvents;
}): WorkerPool {
  const handlers = options.handlers as Record<string, JobHandler<JobName> | undefined>;
  const missing = options.queues.flatMap((queue) => jobsOfQueue(queue)).filter((name) => !handlers[name]);
  if (missing.length > 0) throw new MissingHandlerError(missing);

  let handingBack = false;
  const active = new Set<AbortController>();
  // The running jobs of this process by queue and id: a lost lock aborts that run.
  const runningById = new Map<string, { run: AbortController; lockLost: AbortController }>();
  const runKey = (queue: string, id: string | undefined) => `${queue}\u0000${id ?? ''}`;
  const storesReachable = async () => (options.events?.storesReachable ? options.events.storesReachable().catch(() => false) : false);

  const process = async (job: Job, token: string | undefined, bullSignal: AbortSignal | undefined): Promise<unknown> => {
    const name = job.name as JobName;
    // Own properties only: a job named `constructor` or `__proto__` must not find Object.prototype.
    const definition = Object.hasOwn(jobCatalog, name) ? jobCatalog[name] : undefined;
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (!definition || !handler) throw new UnrecoverableError(`unknown job ${job.name} on queue ${job.queueName}`);
    const envelope = JobEnvelope.safeParse(job.data);
    if (!envelope.success) throw new UnrecoverableError(`malformed job envelope: ${describeIssues(envelope.error).join('; ')}`);
    const payload = definition.payload.safeParse(envelope.data.payload);
    if (!payload.success) throw new UnrecoverableError(`malformed ${name} payload: ${describeIssues(payload.error).join('; ')}`);

    const { parent, links } = openEnvelope(envelope.data);
    const { attempt, isFinalAttempt } = attemptOf(job);
    const span = tracer.startSpan(
      `${job.queueName} process ${name}`,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: { 'messaging.system': 'bullmq', 'messaging.message.id': job.id ?? '', 'quarry.job.attempt': attempt },
      },
      parent,
    );
    const controller = new AbortController();
    active.add(controller);
    const lockLost = new AbortController();
    runningById.set(runKey(job.queueName, job.id), { run: controller, lockLost });
    const onBullAbort = () => controller.abort(bullSignal?.reason);
    bullSignal?.addEventListener('abort', onBullAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new JobTimeoutError(name, definition.timeoutMs)), definition.timeoutMs);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const result = await context.with(trace.setSpan(parent, span), () =>
        Promise.race([
          handler(payload.data as never, { job, signal: controller.signal, lockLost: lockLost.signal, attempt, isFinalAttempt }),
          new Promise<never>((_, reject) =>
            controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }),
          ),
        ]),
      );
      // A handler may answer an abort by returning early; its work is then unfinished, not done.
      if (controller.signal.aborted) throw controller.signal.reason;
      span.setStatus({ code: SpanStatusCode.OK });
      options.events?.onOutcome?.({ queue: job.queueName, job: name, outcome: 'completed', seconds: seconds() });
      return result;
    } catch (error) {
      if (handingBack && token) {
        // Shutdown grace ran out: give the job back untouched so another worker runs it, rather
        // than counting an attempt against it.
        await job.moveToWait(token);
        span.addEvent('handed back at shutdown');
        options.events?.onOutcome?.({ queue: job.queueName, job: name, outcome: 'handed-back', seconds: seconds() });
        throw new WaitingError();
      }
      if (token && error instanceof RunLater) {
        await job.moveToDelayed(Date.now() + error.delayMs, token);
        span.addEvent('run later', { reason: error.message });
        options.events?.onOutcome?.({ queue: job.queueName, job: name, outcome: 'run-later', seconds: seconds() });
        throw new DelayedError();
      }
      if (token && !controller.signal.aborted && isStoreOutage(error) && !(await storesReachable())) {
        // A store outage is not the job's failure: it waits, and its attempts stay unspent, so a
        // 10-second database restart cannot use them all up and strand the job (and its row).
        await job.moveToDelayed(Date.now() + storeOutageDelayMs + Math.round(Math.random() * 1_000), token);
        span.addEvent('store unavailable: delayed without spending an attempt');
        options.events?.onOutcome?.({ queue: job.queueName, job: name, outcome: 'store-outage', seconds: seconds() });
        throw new DelayedError();
      }
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      options.events?.onOutcome?.({ queue: job.queueName, job: name, outcome: 'failed', seconds: seconds() });
      if (error instanceof JobTimeoutError) throw new UnrecoverableError(error.message);
      throw error;
    } finally {
      clearTimeout(timer);
      bullSignal?.removeEventListener('abort', onBullAbort);
      active.delete(controller);
      runningById.delete(runKey(job.queueName, job.id));
      span.end();
    }
  };

  const workers = options.queues.map((queue) => {
    const queueName = options.key ? `${queue}.${options.key}` : queue;
    const worker = new Worker(queueName, process, {
      // The process's worker id (as `quarry start` logs it) names its connection: the operators'
      // queue view counts processes by it, not connections, and says which processes they are.
      name: workerProcessName(),
      ...(options.limiter ? { limiter: { max: options.limiter.max, duration: options.limiter.durationMs } } : {}),
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.stalledIntervalMs,
      // A job interrupted by two crashes or rollouts in a row is still re-run, not failed.
      maxStalledCount: 3,
    });
    worker.on('error', (error) => options.events?.onError?.(error, `worker ${queueName}`));
    // BullMQ re-runs a job whose lock lapsed while its first run still lives ("double processed"):
    // the first run learns it here, from its failed renewal or from the stalled check that took the
    // job back, and is aborted before it can reach an irreversible step.
    const abortRun = (jobId: string, why: string) => {
      const running = runningById.get(runKey(queueName, jobId));
      if (!running) return;
      const reason = new JobLockLostError(`job ${jobId} on ${queueName}: ${why}`);
      running.lockLost.abort(reason);
      running.run.abort(reason);
    };
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const jobId of jobIds) abortRun(jobId, 'its lock could not be renewed');
    });
    worker.on('stalled', (jobId) => abortRun(jobId, 'its lock lapsed and the job was taken back'));
    return worker;
  });

  return {
    async close(graceMs) {
      const closing = Promise.all(workers.map((worker) => worker.close()));
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'grace-over'>((resolve) => {
        timer = setTimeout(() => resolve('grace-over'), graceMs);
      });
      const outcome = await Promise.race([closing.then(() => 'closed' as const), graceOver]);
      clearTimeout(timer);
      if (outcome === 'grace-over') {
        handingBack = true;
        for (const controller of active) controller.abort(new Error('worker shutting down'));
        await closing;
      }
    },
  };
}
