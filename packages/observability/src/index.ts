export { createLogger, maskSecretsDeep, maskSecretShapes } from './logger.ts';
export type { Logger } from './logger.ts';
export { createMetrics } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { maskingSpanExporter, startTracing } from './tracing.ts';
export type { Tracing } from './tracing.ts';
export { createStoreHealth } from './store-health.ts';
export type { StoreHealth } from './store-health.ts';
