import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { bookingsOverview } from '@quarry/bookings';
import { BookingsOverview, BookingsOverviewQuery } from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** The operators' view of every client's bookings (admin scope; read only): the dashboard's Bookings page. */
export function bookingsAdminRoutes(deps: { authenticator: Authenticator; pool: Queryable }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  router.get('/v1/admin/bookings', admin, async (request, response) => {
    response.json(await bookingsOverview(deps.pool, request.query));
  });
  return router;
}

export function describeBookingsAdminRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/bookings',
    summary:
      "Operators: every client's bookings by stage and by error code, the recent outcome-unknown and failed ones, and source failures per hotel",
    tags: ['Admin'],
    security: securedBy,
    request: { query: BookingsOverviewQuery },
    responses: {
      200: { description: 'The overview', content: { 'application/json': { schema: BookingsOverview } } },
      ...errorResponses([400, 401, 403, 500]),
    },
  });
}
