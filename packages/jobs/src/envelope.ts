import { context, propagation, trace, type Context, type Link } from '@opentelemetry/api';
import { z } from 'zod';

/**
 * What a job carries in Redis: the payload plus the W3C trace context of the code that enqueued it.
 * `traceMode` says how the worker relates to it: `child` continues the producer's trace (one
 * request → one job), `link` starts a new trace linked to it (fan-out of thousands of jobs would
 * otherwise make one unreadable trace).
 */
export const JobEnvelope = z.object({
  v: z.literal(1),
  payload: z.unknown(),
  trace: z.record(z.string(), z.string()).default({}),
  traceMode: z.enum(['child', 'link']).default('child'),
});
export type JobEnvelope = z.infer<typeof JobEnvelope>;

export function sealEnvelope(payload: unknown, traceMode: JobEnvelope['traceMode']): JobEnvelope {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return { v: 1, payload, trace: carrier, traceMode };
}

/** The context a worker's span starts in, and the links it carries. */
export function openEnvelope(envelope: JobEnvelope): { parent: Context; links: Link[] } {
  const producer = propagation.extract(context.active(), envelope.trace);
  if (envelope.traceMode === 'child') return { parent: producer, links: [] };
  const producerSpan = trace.getSpanContext(producer);
  return { parent: trace.deleteSpan(context.active()), links: producerSpan ? [{ context: producerSpan }] : [] };
}
