import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { describeIssues, MiningActivity, MiningActivityQuery, validationError } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { getMiningActivity } from '@quarry/recruitment';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators: job posts finished per minute (every client), for the dashboard's trend charts. */
export function miningActivityRoutes(deps: { authenticator: Authenticator; db: Queryable }): Router {
  const router = Router();
  router.get('/v1/admin/mining-activity', requireClient(deps.authenticator, { scope: 'admin' }), async (request, response) => {
    const query = MiningActivityQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await getMiningActivity(deps.db, query.data.minutes));
  });
  return router;
}

export function describeMiningActivityRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/mining-activity',
    summary: 'Job posts finished per minute, with their success rate (every client), oldest minute first',
    tags: ['Operations'],
    security: securedBy,
    request: { query: MiningActivityQuery },
    responses: {
      200: { description: 'One entry per minute, the current minute last', content: { 'application/json': { schema: MiningActivity } } },
      ...errorResponses([400, 401, 403]),
    },
  });
}
