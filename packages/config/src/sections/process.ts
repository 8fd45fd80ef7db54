import { z } from 'zod';
import { port, positiveMs, type VariablesOf } from './section.ts';

/** What every long-running process reads: where it listens, its Redis, its logs and telemetry. */
export const processVariables = {
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  // Prometheus metrics on a port of their own (9464: the OpenTelemetry Prometheus exporter's), so
  // whoever reaches the API port cannot read them.
  METRICS_PORT: port.default(9464),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
    .default('quarry'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('quarry'),
  SHUTDOWN_GRACE_MS: positiveMs.default(25_000),
};

export const readProcess = (vars: VariablesOf<typeof processVariables>) => ({
  port: vars.PORT,
  /** `/metrics` is served here only, on `host`, never on the API port. */
  metricsPort: vars.METRICS_PORT,
  host: vars.HOST,
  redisUrl: vars.REDIS_URL,
  queuePrefix: vars.QUEUE_PREFIX,
  logLevel: vars.LOG_LEVEL,
  otlpEndpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT,
  serviceName: vars.OTEL_SERVICE_NAME,
  shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
});
