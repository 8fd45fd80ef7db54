export { createLogger, maskSecretShapes } from './logger.ts';
export type { Logger } from './logger.ts';
export { createMetrics } from './metrics.ts';
export type { Metrics } from './metrics.ts';
export { startTracing } from './tracing.ts';
export type { Tracing } from './tracing.ts';
export { createStoreHealth } from './store-health.ts';
export type { StoreHealth } from './store-health.ts';
