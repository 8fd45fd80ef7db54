import { register } from 'node:module';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export type Tracing = { shutdown: () => Promise<void> };

/**
 * Starts OpenTelemetry tracing. Must run before express, pg or ioredis are first imported: the
 * instrumentations patch modules as they load, so the caller imports everything else dynamically
 * afterwards. Without an OTLP endpoint spans are still created (and carried through jobs) but
 * not exported.
 */
export function startTracing(options: { serviceName: string; otlpEndpoint: string | undefined; role: string }): Tracing {
  // ESM modules are only patchable through the import-in-the-middle loader hook.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const endpoint = options.otlpEndpoint?.replace(/\/$/, '');
  // Metrics are served to Prometheus on /metrics and logs go to stdout; only traces use OTLP.
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, 'quarry.role': options.role }),
    // Without an endpoint, no exporter at all: the SDK's default would retry localhost:4318 and
    // hold every shutdown for seconds.
    ...(endpoint ? { traceExporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }) } : { spanProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)\b/.test(request.url ?? ''),
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      // requireParentSpan keeps BullMQ's idle polling out of traces: only Redis calls made inside a
      // request or a job show up.
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
