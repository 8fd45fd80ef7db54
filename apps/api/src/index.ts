export { createApiApp, createOperationalApp } from './app.ts';
export type { ApiDeps } from './app.ts';
export { createMetricsApp } from './metrics-app.ts';
export { buildOpenApiDocument } from './openapi.ts';
export type { ReadinessCheck } from './routes/operational.routes.ts';
