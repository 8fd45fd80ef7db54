import { AdmitBatchJob, CanaryJobPayload, MineSubmissionJob, DeliverMailJobPayload, MailHousekeepingJobPayload } from '@quarry/contracts';
import { RatesPushJobPayload, RatesRefreshJobPayload, RatesScheduleJobPayload } from '@quarry/contracts';
import { ApplyJobPayload, PurgeApplicationsJobPayload, ReconcileApplicationsJobPayload } from '@quarry/contracts';
import { BookingNotifyJobPayload, BookingStepJobPayload, BookingSweepJobPayload } from '@quarry/contracts';
import { CallbacksDeliverJobPayload } from '@quarry/contracts';
import type { z } from 'zod';

/**
 * Every queue and job of Quarry, declared once. Queue and job names are stored in Redis and in
 * running jobs: they change only by addition.
 */
export const queueNames = [
  'system',
  'mail',
  'mining.single',
  'mining.control',
  'rates.refresh',
  'rates.push',
  'rates.control',
  'applications.apply',
  'applications.control',
  'bookings.step',
  'bookings.notify',
  'bookings.control',
  'bookings.checkout',
  'callbacks.deliver',
] as const;
export type QueueName = (typeof queueNames)[number];

/**
 * Queue families: one BullMQ queue per key, named `<family>.<key>` (a mining batch gets its own
 * queue, with its own concurrency, rate limit and pause). Workers attach to them at run time.
 */
export const queueFamilies = ['mining.batch'] as const;
export type QueueFamily = (typeof queueFamilies)[number];

export type JobDefinition = {
  queue: QueueName | QueueFamily;
  payload: z.ZodType;
  /** Total tries, the first included. Retries only where repeating is safe and useful. */
  attempts: number;
  backoff: { type: 'exponential' | 'fixed'; delay: number };
  /** A run longer than this fails the attempt (BullMQ has no timeout of its own). */
  timeoutMs: number;
};

export const jobCatalog = {
  // Mining a job post is never retried for the website's sake (interface: no automatic retry);
  // the attempts cover our infrastructure failing (Postgres down) while recording the outcome.
  'mining.mine': {
    queue: 'mining.single',
    payload: MineSubmissionJob,
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    timeoutMs: 5 * 60_000,
  },
  'mining.mine-batch-row': {
    queue: 'mining.batch',
    payload: MineSubmissionJob,
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    timeoutMs: 5 * 60_000,
  },
  // Tops up a batch's queue from Postgres; without batchId, every running batch (periodic sweep).
  'mining.admit': {
    queue: 'mining.control',
    payload: AdmitBatchJob,
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    timeoutMs: 60_000,
  },
  'system.canary': {
    queue: 'system',
    payload: CanaryJobPayload,
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    timeoutMs: 11 * 60_000,
  },
  // One job per (message, destination); SMTP 4xx retries are scheduled by the handler itself
  // (up to 5 days, ADR 0011), so these attempts only cover infrastructure faults (Postgres down).
  'mail.deliver': {
    queue: 'mail',
    payload: DeliverMailJobPayload,
    attempts: 8,
    backoff: { type: 'exponential', delay: 2_000 },
    // RFC 5321 §4.5.3.2: a client may wait up to 10 minutes for the reply to the final dot.
    timeoutMs: 11 * 60_000,
  },
  'mail.housekeeping': {
    queue: 'mail',
    payload: MailHousekeepingJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 60_000,
  },
  // Rates. A refresh is not retried: a failed source is logged and the next scheduler
  // tick asks again. Push retries are scheduled by the handler itself (backoff with jitter,
  // ADR 0016); these attempts only cover infrastructure faults.
  'rates.schedule': {
    queue: 'rates.control',
    payload: RatesScheduleJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 10 * 60_000,
  },
  'rates.refresh': {
    queue: 'rates.refresh',
    payload: RatesRefreshJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 3 * 60_000,
  },
  'rates.push': {
    queue: 'rates.push',
    payload: RatesPushJobPayload,
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    // The interface's 5-minute response time-out per request, plus reading the state.
    timeoutMs: 7 * 60_000,
  },
  'rates.push-retry': {
    queue: 'rates.push',
    payload: RatesPushJobPayload,
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    timeoutMs: 7 * 60_000,
  },
  // Applications run on their own queue, never behind mining. An application is submitted at most
  // once: the attempts only cover our infrastructure failing before the intent to submit is
  // recorded (a run that finds it recorded ends SubmissionOutcomeUnknown, never submits again).
  'applications.apply': {
    queue: 'applications.apply',
    payload: ApplyJobPayload,
    attempts: 3,
    backoff: { type: 'exponential', delay: 5_000 },
    timeoutMs: 10 * 60_000,
  },
  // Re-enqueues applications whose job was lost (Redis restarted empty, an enqueue that failed
  // after the row was committed) and purges the candidate data of abandoned ones.
  'applications.reconcile': {
    queue: 'applications.control',
    payload: ReconcileApplicationsJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 5 * 60_000,
  },
  // Removes candidates' data a retention period after their application ended.
  'applications.purge': {
    queue: 'applications.control',
    payload: PurgeApplicationsJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 10 * 60_000,
  },
  // Bookings. One step per job, never a wait for the client (the next input enqueues the next
  // step). The attempts cover the hotel or our stores being unreachable; an order is placed at most
  // once whatever the attempts (a run that finds it recorded asks the hotel instead, ADR 0036).
  'bookings.step': {
    queue: 'bookings.step',
    payload: BookingStepJobPayload,
    attempts: 4,
    backoff: { type: 'exponential', delay: 2_000 },
    timeoutMs: 3 * 60_000,
  },
  // A checkout on a hotel's own booking page, its browser context held from the guest page to the
  // outcome: the final-price consent (the input timeout, 15 minutes) and a 3-D Secure challenge (10)
  // are waited for with the page open, so its limit is the booking's own job timeout and some.
  // One attempt: a run that stopped is never run again as such (the sweep hands the booking on).
  'bookings.checkout': {
    queue: 'bookings.checkout',
    payload: BookingStepJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 75 * 60_000,
  },
  // A stage change POSTed to the client's callbackUrl, retried with backoff (5 s doubling: about 20 minutes in all).
  'bookings.notify': {
    queue: 'bookings.notify',
    payload: BookingNotifyJobPayload,
    attempts: 9,
    backoff: { type: 'exponential', delay: 5_000 },
    timeoutMs: 60_000,
  },
  // The timers (input, job) and the re-enqueue of lost steps.
  'bookings.sweep': {
    queue: 'bookings.control',
    payload: BookingSweepJobPayload,
    attempts: 1,
    backoff: { type: 'fixed', delay: 1_000 },
    timeoutMs: 5 * 60_000,
  },
  // Recruitment's callbacks (ADR 0053): up to a few dozen events of one client, each POSTed once per
  // job. A receiver's refusal is recorded in the outbox and retried by the relay with its own backoff
  // for a day; these attempts only cover our stores failing while the answers are recorded.
  'callbacks.deliver': {
    queue: 'callbacks.deliver',
    payload: CallbacksDeliverJobPayload,
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    timeoutMs: 2 * 60_000,
  },
} as const satisfies Record<string, JobDefinition>;

export type JobName = keyof typeof jobCatalog;
export type JobPayload<Name extends JobName> = z.infer<(typeof jobCatalog)[Name]['payload']>;

export function jobsOfQueue(queue: QueueName | QueueFamily): JobName[] {
  return (Object.keys(jobCatalog) as JobName[]).filter((name) => jobCatalog[name].queue === queue);
}
