import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export type Metrics = {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  jobDuration: Histogram<'queue' | 'job' | 'outcome'>;
  queueJobs: Gauge<'queue' | 'state'>;
  queueBacklog: Gauge<'queue'>;
  mailDeliveryLatency: Histogram;
};

/**
 * One registry per process. Queue depth is read from Redis at scrape time through `collectQueueDepth`,
 * so an idle process costs nothing between scrapes.
 */
export function createMetrics(
  options: {
    collectQueueDepth?: () => Promise<Array<{ queue: string; state: string; count: number }>>;
    collectQueueBacklog?: () => Promise<Array<{ queue: string; count: number }>>;
  } = {},
): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram({
    name: 'quarry_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'quarry_job_duration_seconds',
    help: 'Job processing time by queue, job and outcome',
    labelNames: ['queue', 'job', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const collectQueueDepth = options.collectQueueDepth;
  const queueJobs = new Gauge({
    name: 'quarry_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed, paused)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      if (!collectQueueDepth) return;
      this.reset();
      for (const { queue, state, count } of await collectQueueDepth()) this.set({ queue, state }, count);
    },
  });
  const collectQueueBacklog = options.collectQueueBacklog;
  // What KEDA's ScaledObjects read (infra/k8s/keda): jobs that want a worker now, per queue, a
  // family's queues (every running batch's) summed under the family's name.
  const queueBacklog = new Gauge({
    name: 'quarry_queue_backlog',
    help: 'Jobs that want a worker now (waiting, prioritized, active) per queue; mining.batch sums every running batch',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      if (!collectQueueBacklog) return;
      this.reset();
      for (const { queue, count } of await collectQueueBacklog()) this.set({ queue }, count);
    },
  });
  const mailDeliveryLatency = new Histogram({
    name: 'quarry_mail_delivery_latency_seconds',
    help: 'From accepting a message over SMTP to its delivery to the destination (retries included)',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21_600, 86_400, 432_000],
    registers: [registry],
  });
  return { registry, httpRequestDuration, jobDuration, queueJobs, queueBacklog, mailDeliveryLatency };
}
