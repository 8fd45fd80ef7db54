import type { Authenticator } from '@quarry/auth';
import type { Queryable } from '@quarry/db';
import type { JobQueues } from '@quarry/jobs';
import type { Logger, Metrics } from '@quarry/observability';
import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './middleware/error-handler.middleware.ts';
import { httpMetrics } from './middleware/http-metrics.middleware.ts';
import { openApiRoutes } from './openapi.ts';
import { canaryRoutes } from './routes/canary.routes.ts';
import { operationalRoutes, type ReadinessCheck } from './routes/operational.routes.ts';
import { whoamiRoutes } from './routes/whoami.routes.ts';

export type ApiDeps = {
  db: Queryable;
  queues: JobQueues;
  authenticator: Authenticator;
  metrics: Metrics;
  logger: Logger;
  checkReadiness: ReadinessCheck;
};

function baseApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // One deployment usually sits behind one ingress hop; needed for correct client IPs in logs.
  app.set('trust proxy', 1);
  return app;
}

/** The API gateway: every public and admin endpoint, plus the operational routes. */
export function createApiApp(deps: ApiDeps): Express {
  const app = baseApp();
  app.use(operationalRoutes(deps));
  app.use(httpMetrics(deps.metrics));
  app.use(express.json({ limit: '1mb' }));
  app.use(openApiRoutes());
  app.use(whoamiRoutes(deps));
  app.use(canaryRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

/** What worker-only roles serve: health, readiness and metrics. */
export function createOperationalApp(deps: Pick<ApiDeps, 'metrics' | 'logger' | 'checkReadiness'>): Express {
  const app = baseApp();
  app.use(operationalRoutes(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
