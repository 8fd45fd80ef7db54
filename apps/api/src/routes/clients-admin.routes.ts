import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { listClients, type Authenticator } from '@quarry/auth';
import { ClientSummaries } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators: the clients (never a secret), so views that name a client by id can show its name. */
export function clientsAdminRoutes(deps: { authenticator: Authenticator; db: Queryable }): Router {
  const router = Router();
  router.get('/v1/admin/clients', requireClient(deps.authenticator, { scope: 'admin' }), async (_request, response) => {
    response.json(await listClients({ db: deps.db }));
  });
  return router;
}

export function describeClientsAdminRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/clients',
    summary: 'Operators: every client, revoked ones included, with its name and scopes (no secrets)',
    tags: ['Admin'],
    security: securedBy,
    responses: {
      200: { description: 'The clients', content: { 'application/json': { schema: ClientSummaries } } },
      ...errorResponses([401, 403, 500]),
    },
  });
}
