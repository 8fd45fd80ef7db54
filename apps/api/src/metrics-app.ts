import type { Logger, Metrics } from '@quarry/observability';
import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './middleware/error-handler.middleware.ts';

/**
 * Prometheus metrics, served on `METRICS_PORT` and nowhere else: queue depths, routes and job
 * outcomes are operators' business, and the API port is reachable by every client.
 */
export function createMetricsApp(deps: { metrics: Metrics; logger: Logger }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/metrics', async (_request, response) => {
    response.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
