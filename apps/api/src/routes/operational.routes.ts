import { Router } from 'express';

export type ReadinessCheck = () => Promise<Record<string, 'ok' | string>>;

/** Served by every role on its HTTP port: liveness and readiness (Postgres and Redis answer). */
export function operationalRoutes(deps: { checkReadiness: ReadinessCheck }): Router {
  const router = Router();
  router.get('/healthz', (_request, response) => {
    response.json({ status: 'ok' });
  });
  router.get('/readyz', async (_request, response) => {
    const checks = await deps.checkReadiness();
    const ready = Object.values(checks).every((value) => value === 'ok');
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks });
  });
  return router;
}
