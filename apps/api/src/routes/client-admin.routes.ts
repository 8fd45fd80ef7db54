import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { findFrameOrigins, setFrameOrigins, type Authenticator } from '@quarry/auth';
import { ClientIdParams, FrameOriginsView, SetFrameOriginsBody } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators (admin scope): a client's settings, such as the origins of its pages that may frame its 3-D Secure pages. */
export function clientAdminRoutes(deps: { authenticator: Authenticator; db: Queryable }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  router.get('/v1/admin/clients/:clientId/frame-origins', admin, async (request, response) => {
    response.json(await findFrameOrigins({ db: deps.db }, request.params.clientId));
  });
  router.put('/v1/admin/clients/:clientId/frame-origins', admin, async (request, response) => {
    response.json(await setFrameOrigins({ db: deps.db }, request.params.clientId, request.body ?? {}));
  });
  return router;
}

export function describeClientAdminRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Clients'];
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/clients/{clientId}/frame-origins',
    summary: "Operators: the origins of a client's pages that may frame its 3-D Secure pages (GET /book/{bookingId}/tds)",
    tags,
    security: securedBy,
    request: { params: ClientIdParams },
    responses: {
      200: {
        description: 'The origins; [] for none (no page may frame them)',
        content: { 'application/json': { schema: FrameOriginsView } },
      },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/v1/admin/clients/{clientId}/frame-origins',
    summary: "Operators: replace those origins: the page's frame-ancestors, and the only receivers of its completion message",
    tags,
    security: securedBy,
    request: { params: ClientIdParams, body: { content: { 'application/json': { schema: SetFrameOriginsBody } } } },
    responses: {
      200: { description: 'The origins now set', content: { 'application/json': { schema: FrameOriginsView } } },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
}
