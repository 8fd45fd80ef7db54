import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  AppError,
  CreatePushSubscriptionBody,
  OperatorPushSubscriptionViews,
  PushDeliveriesQuery,
  PushDeliveryViews,
  PushSubscriptionView,
  PushSubscriptionViews,
  SubscriptionIdParams,
  UpdatePushSubscriptionBody,
} from '@quarry/contracts';
import {
  changeSubscription,
  createSubscription,
  getSubscription,
  getSubscriptionForOperator,
  listClientSubscriptions,
  listDeliveryLog,
  listSubscriptionsForOperator,
  removeSubscription,
  resumeSuspendedSubscription,
  type SubscriptionPorts,
} from '@quarry/rates';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Push subscriptions (clients, `hotels` scope) and their delivery log (operators, `admin` scope). */
export function pushSubscriptionsRoutes(deps: { authenticator: Authenticator; push: SubscriptionPorts }): Router {
  const router = Router();
  const hotels = requireClient(deps.authenticator, { scope: 'hotels', hotelSurface: true });
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  // Subscription ids are UUIDs: anything else names no subscription (and must not reach a uuid column).
  const id = (value: unknown) => {
    const text = String(value);
    if (!uuidPattern.test(text)) throw new AppError('NotFound', 'No such push subscription');
    return text;
  };

  router.post('/v1/hotels/push-subscriptions', hotels, async (request, response) => {
    response.json(await createSubscription(deps.push, clientOf(response).clientId, request.body));
  });
  router.get('/v1/hotels/push-subscriptions', hotels, async (_request, response) => {
    response.json(await listClientSubscriptions(deps.push, clientOf(response).clientId));
  });
  router.get('/v1/hotels/push-subscriptions/:subscriptionId', hotels, async (request, response) => {
    response.json(await getSubscription(deps.push, clientOf(response).clientId, id(request.params.subscriptionId)));
  });
  router.patch('/v1/hotels/push-subscriptions/:subscriptionId', hotels, async (request, response) => {
    response.json(await changeSubscription(deps.push, clientOf(response).clientId, id(request.params.subscriptionId), request.body));
  });
  router.delete('/v1/hotels/push-subscriptions/:subscriptionId', hotels, async (request, response) => {
    await removeSubscription(deps.push, clientOf(response).clientId, id(request.params.subscriptionId));
    response.json({ message: 'deleted' });
  });

  router.get('/v1/admin/push-subscriptions', admin, async (_request, response) => {
    response.json(await listSubscriptionsForOperator(deps.push));
  });
  router.get('/v1/admin/push-subscriptions/:subscriptionId', admin, async (request, response) => {
    response.json(await getSubscriptionForOperator(deps.push, id(request.params.subscriptionId)));
  });
  router.get('/v1/admin/push-subscriptions/:subscriptionId/deliveries', admin, async (request, response) => {
    // Not a contract's parse: a limit out of 1–1000 (PushDeliveriesQuery) is clamped, never refused.
    const limit = Math.min(1000, Math.max(1, Number(request.query.limit ?? 100) || 100));
    response.json(await listDeliveryLog(deps.push, id(request.params.subscriptionId), limit));
  });
  router.post('/v1/admin/push-subscriptions/:subscriptionId/resume', admin, async (request, response) => {
    response.json(await resumeSuspendedSubscription(deps.push, id(request.params.subscriptionId)));
  });
  return router;
}

export function describePushSubscriptionsRoutes(registry: OpenAPIRegistry): void {
  const params = SubscriptionIdParams;
  const view = { 'application/json': { schema: PushSubscriptionView } };
  const paths = [
    {
      method: 'post',
      path: '/v1/hotels/push-subscriptions',
      summary: 'Subscribe a push URL to hotels and a search grid',
      body: CreatePushSubscriptionBody,
      errors: [400, 401],
    },
    { method: 'get', path: '/v1/hotels/push-subscriptions', summary: 'Your push subscriptions', list: true, errors: [401] },
    { method: 'get', path: '/v1/hotels/push-subscriptions/{subscriptionId}', summary: 'One push subscription', params, errors: [401, 404] },
    {
      method: 'patch',
      path: '/v1/hotels/push-subscriptions/{subscriptionId}',
      summary: 'Change a push subscription (a new state is pushed)',
      params,
      body: UpdatePushSubscriptionBody,
      errors: [400, 401, 404],
    },
    { method: 'delete', path: '/v1/hotels/push-subscriptions/{subscriptionId}', summary: 'Stop pushing', params, errors: [401, 404] },
    {
      method: 'get',
      path: '/v1/admin/push-subscriptions/{subscriptionId}',
      summary: 'Any push subscription (operators)',
      params,
      errors: [401, 403, 404],
    },
    {
      method: 'post',
      path: '/v1/admin/push-subscriptions/{subscriptionId}/resume',
      summary: 'Lift a suspension and push now',
      params,
      errors: [401, 403, 404],
    },
  ] as const;
  for (const entry of paths) {
    registry.registerPath({
      method: entry.method,
      path: entry.path,
      summary: entry.summary,
      tags: ['Hotels push'],
      security: securedBy,
      request: {
        ...('params' in entry ? { params: entry.params } : {}),
        ...('body' in entry ? { body: { content: { 'application/json': { schema: entry.body } } } } : {}),
      },
      responses: {
        200: { description: 'OK', content: 'list' in entry ? { 'application/json': { schema: PushSubscriptionViews } } : view },
        ...errorResponses([...entry.errors]),
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/push-subscriptions',
    summary: "Every client's push subscriptions with lag, failures and the last push's outcome",
    tags: ['Hotels push'],
    security: securedBy,
    responses: {
      200: { description: 'Subscriptions', content: { 'application/json': { schema: OperatorPushSubscriptionViews } } },
      ...errorResponses([401, 403]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/push-subscriptions/{subscriptionId}/deliveries',
    summary: 'Delivery log of a push subscription, newest first',
    tags: ['Hotels push'],
    security: securedBy,
    request: { params, query: PushDeliveriesQuery },
    responses: {
      200: { description: 'Deliveries', content: { 'application/json': { schema: PushDeliveryViews } } },
      ...errorResponses([401, 403, 404]),
    },
  });
}
