import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { maskSecretShapes, maskSecretsDeep } from './logger.ts';

export type Tracing = { shutdown: () => Promise<void> };

type SpanExporter = NodeSDKConfiguration['traceExporter'];
type ReadableSpan = Parameters<SpanExporter['export']>[0][number];

/**
 * Masks card numbers, card tokens and credentials (`maskSecretShapes`) in what leaves the process
 * as traces: span names, attributes (a URL path, a Redis or SQL statement), events (a recorded
 * exception's message and stack) and the status message. Each span is exported as a view whose
 * own properties shadow the original's, which is left as it was.
 */
export function maskingSpanExporter(inner: SpanExporter): SpanExporter {
  const mask = (span: ReadableSpan): ReadableSpan =>
    Object.create(span, {
      name: { value: maskSecretShapes(span.name), enumerable: true },
      attributes: { value: maskSecretsDeep(span.attributes), enumerable: true },
      events: { value: span.events.map((event) => ({ ...event, ...(event.attributes ? { attributes: maskSecretsDeep(event.attributes) } : {}) })), enumerable: true },
      status: { value: span.status.message === undefined ? span.status : { ...span.status, message: maskSecretShapes(span.status.message) }, enumerable: true },
    }) as ReadableSpan;
  const flush = inner.forceFlush?.bind(inner);
  return {
    export: (spans, done) => inner.export(spans.map(mask), done),
    shutdown: () => inner.shutdown(),
    ...(flush ? { forceFlush: flush } : {}),
  };
}

/**
 * Starts OpenTelemetry tracing. Must run before express, pg or ioredis are first imported: the
 * instrumentations patch modules as they load, so the caller imports everything else dynamically
 * afterwards.
 */
export function startTracing(options: { serviceName: string; otlpEndpoint: string | undefined; role: string }): Tracing {
  const endpoint = options.otlpEndpoint?.replace(/\/$/, '');
  // Instrumentation costs about half of a small request's throughput even when no span is
  // exported (measured: bench http), so without an endpoint to send spans to, nothing is hooked.
  // OTEL_SDK_DISABLED is the standard switch for the same.
  if (!endpoint || /^(true|1)$/i.test(process.env.OTEL_SDK_DISABLED ?? '')) return { shutdown: async () => {} };
  // ESM modules are only patchable through the import-in-the-middle loader hook.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  // Metrics are served to Prometheus on /metrics and logs go to stdout; only traces use OTLP.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, 'quarry.role': options.role }),
    traceExporter: maskingSpanExporter(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })),
    instrumentations: [
      // No http instrumentation: the API starts its own server span (apps/api
      // request-tracing.middleware.ts), which costs a fraction of it (ADR 0003).
      // One span per matched route handler; a span for every middleware and router layer would
      // multiply the spans of each request for little insight.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      // requireParentSpan keeps BullMQ's idle polling out of traces: only Redis calls made inside a
      // request or a job show up.
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
