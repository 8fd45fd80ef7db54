import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { type Queryable } from '@quarry/db';
import { summarizeMailDeliveries } from '@quarry/mail';
import { Router } from 'express';
import { z } from 'zod';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const MailDeliverySummarySchema = z.object({
  queued: z.number().int(),
  deferred: z.number().int(),
  oldestPendingAt: z.string().nullable(),
  received: z.number().int(),
  delivered: z.number().int(),
  bounced: z.number().int(),
  deferredDeliveries: z.array(z.object({
    deliveryId: z.uuid(), forwardsTo: z.string(), attempts: z.number().int(), nextAttemptAt: z.string(), lastError: z.string().nullable(),
  })),
});

/** Operators' view of the forwarding delivery queue (admin scope). */
export function mailAdminRoutes(deps: { authenticator: Authenticator; db: Queryable }): Router {
  const router = Router();
  router.get('/v1/admin/mail/deliveries', requireClient(deps.authenticator, { scope: 'admin' }), async (_request, response) => {
    const summary = await summarizeMailDeliveries(deps.db, 50);
    response.json({
      ...summary,
      oldestPendingAt: summary.oldestPendingAt?.toISOString() ?? null,
      deferredDeliveries: summary.deferredDeliveries.map((delivery) => ({ ...delivery, nextAttemptAt: delivery.nextAttemptAt.toISOString() })),
    });
  });
  return router;
}

export function describeMailAdminRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get', path: '/v1/admin/mail/deliveries', summary: 'Forwarding delivery: pending, deferred (with their last error), and totals', tags: ['Operations'],
    security: securedBy,
    responses: { 200: { description: 'Summary', content: { 'application/json': { schema: MailDeliverySummarySchema } } }, ...errorResponses([401, 403]) },
  });
}
