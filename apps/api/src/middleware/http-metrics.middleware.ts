import type { Metrics } from '@quarry/observability';
import type { NextFunction, Request, Response } from 'express';

/** Latency per route template (not per raw path, which would explode label cardinality). */
export function httpMetrics(metrics: Metrics) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = performance.now();
    response.on('finish', () => {
      const route = (request.route as { path?: string } | undefined)?.path;
      metrics.httpRequestDuration.observe(
        { method: request.method, route: route ? `${request.baseUrl}${route}` : 'unmatched', status: String(response.statusCode) },
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
