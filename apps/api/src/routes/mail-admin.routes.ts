import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { MailDeliverySummaryView } from '@quarry/contracts';
import { type Queryable } from '@quarry/db';
import { describeMailDeliveries } from '@quarry/mail';
import { Router } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Operators' view of the forwarding delivery queue (admin scope). */
export function mailAdminRoutes(deps: { authenticator: Authenticator; db: Queryable }): Router {
  const router = Router();
  router.get('/v1/admin/mail/deliveries', requireClient(deps.authenticator, { scope: 'admin' }), async (_request, response) => {
    response.json(await describeMailDeliveries({ db: deps.db }));
  });
  return router;
}

export function describeMailAdminRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/mail/deliveries',
    summary: 'Forwarding delivery: pending, deferred (with their last error), and totals',
    tags: ['Operations'],
    security: securedBy,
    responses: {
      200: { description: 'Summary', content: { 'application/json': { schema: MailDeliverySummaryView } } },
      ...errorResponses([401, 403]),
    },
  });
}
