import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { getCanary, requestCanary } from '@quarry/canary';
import { CanaryIdParams, CanaryView, RequestCanaryBody } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { enqueuer, type JobQueues } from '@quarry/jobs';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operator smoke test of the whole path: API → queue → worker → Postgres. */
export function canaryRoutes(deps: { authenticator: Authenticator; db: Queryable; queues: JobQueues }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  const enqueue = enqueuer(deps.queues, 'system.canary');
  router.post('/v1/admin/canaries', admin, async (request, response) => {
    response.json(await requestCanary({ db: deps.db, enqueue }, clientOf(response).clientId, request.body));
  });
  router.get('/v1/admin/canaries/:canaryId', admin, async (request, response) => {
    response.json(await getCanary({ db: deps.db }, clientOf(response).clientId, String(request.params.canaryId)));
  });
  return router;
}

export function describeCanaryRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/v1/admin/canaries',
    summary: 'Send a canary job through the queue to a worker',
    tags: ['Operations'],
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: RequestCanaryBody } } } },
    responses: {
      200: { description: 'Recorded and enqueued', content: { 'application/json': { schema: CanaryView } } },
      ...errorResponses([400, 401, 403]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/canaries/{canaryId}',
    summary: 'State of a canary',
    tags: ['Operations'],
    security: securedBy,
    request: { params: CanaryIdParams },
    responses: {
      200: { description: 'The canary', content: { 'application/json': { schema: CanaryView } } },
      ...errorResponses([401, 403, 404]),
    },
  });
}
