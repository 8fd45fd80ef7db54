import type { Metrics } from '@quarry/observability';
import { Router } from 'express';

export type ReadinessCheck = () => Promise<Record<string, 'ok' | string>>;

/** Served by every role: liveness, readiness (Postgres and Redis answer) and Prometheus metrics. */
export function operationalRoutes(deps: { metrics: Metrics; checkReadiness: ReadinessCheck }): Router {
  const router = Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/readyz', async (_request, response) => {
    const checks = await deps.checkReadiness();
    const ready = Object.values(checks).every((value) => value === 'ok');
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });
  router.get('/metrics', async (_request, response) => {
    response.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
  return router;
}
