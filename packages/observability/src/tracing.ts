import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { maskSecretShapes, maskSecretsDeep } from './logger.ts';

export type Tracing = { shutdown: () => Promise<void> };

type SpanExporter = NodeSDKConfiguration['traceExporter'];
type ReadableSpan = Parameters<SpanExporter['export']>[0][number];

type Attributes = ReadableSpan['attributes'];

/** Whether masking would change a string of these attributes (values are primitives or arrays of them). */
function holdsSecret(attributes: Attributes | undefined): boolean {
  for (const key in attributes) {
    const value = attributes[key];
    if (
      typeof value === 'string'
        ? maskSecretShapes(value) !== value
        : Array.isArray(value) && value.some((item) => typeof item === 'string' && maskSecretShapes(item) !== item)
    )
      return true;
  }
  return false;
}

/**
 * Masks card numbers, card tokens and credentials (`maskSecretShapes`) in what leaves the process
 * as traces: span names, attributes (a URL path, a Redis or SQL statement), events (a recorded
 * exception's message and stack) and the status message. A span holding any is exported as a view
 * whose own properties shadow the original's, which is left as it was; the others (nearly all) are
 * exported as they are, since building the view cost more than the span itself (bench http).
 */
export function maskingSpanExporter(inner: SpanExporter): SpanExporter {
  const mask = (span: ReadableSpan): ReadableSpan => {
    const name = maskSecretShapes(span.name);
    const attributes = holdsSecret(span.attributes) ? maskSecretsDeep(span.attributes) : span.attributes;
    const eventsHold = span.events.some((event) => holdsSecret(event.attributes));
    const message = span.status.message === undefined ? undefined : maskSecretShapes(span.status.message);
    if (name === span.name && attributes === span.attributes && !eventsHold && message === span.status.message) return span;
    return Object.create(span, {
      name: { value: name, enumerable: true },
      attributes: { value: attributes, enumerable: true },
      events: {
        value: eventsHold
          ? span.events.map((event) => ({ ...event, ...(event.attributes ? { attributes: maskSecretsDeep(event.attributes) } : {}) }))
          : span.events,
        enumerable: true,
      },
      status: { value: message === undefined ? span.status : { ...span.status, message }, enumerable: true },
    }) as ReadableSpan;
  };
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
      // No http or express instrumentation: the API starts its own server span (apps/api
      // request-tracing.middleware.ts), named after the matched route, which costs a fraction of
      // the http instrumentation (ADR 0003); the express instrumentation wrapped every layer of
      // every request to add a second span saying the same (ADR 0052).
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      // requireParentSpan keeps BullMQ's idle polling out of traces: only Redis calls made inside a
      // request or a job show up.
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
