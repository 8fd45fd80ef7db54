import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  callbackClientView,
  callbackOverview,
  rotateCallbackSecret,
  setDefaultCallbackUrl,
  type CallbackClientPorts,
} from '@quarry/callbacks';
import {
  ApplicationEndedEvent,
  BatchFinishedEvent,
  CallbackClientParams,
  CallbackClientQuery,
  CallbackClientView,
  CallbackHeaders,
  CallbackOverview,
  CallbackSecretView,
  describeIssues,
  JobPostFailedEvent,
  JobPostMinedEvent,
  RotateCallbackSecretBody,
  SetCallbackDefaultBody,
  validationError,
} from '@quarry/contracts';
import { Router, type Request } from 'express';
import { requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

function clientIdOf(request: Request): string {
  const params = CallbackClientParams.safeParse(request.params);
  if (!params.success) throw validationError(describeIssues(params.error));
  return params.data.clientId;
}

/**
 * Operators (admin scope): recruitment's callbacks per client (ADR 0053): what was delivered,
 * failed or is waiting; a client's default URL; a new secret with an overlap.
 */
export function callbacksAdminRoutes(deps: { authenticator: Authenticator; callbacks: CallbackClientPorts }): Router {
  const router = Router();
  const admin = requireClient(deps.authenticator, { scope: 'admin' });
  router.get('/v1/admin/callbacks', admin, async (_request, response) => {
    response.json(await callbackOverview(deps.callbacks.pool));
  });
  router.get('/v1/admin/callbacks/:clientId', admin, async (request, response) => {
    const clientId = clientIdOf(request);
    const query = CallbackClientQuery.safeParse(request.query);
    if (!query.success) throw validationError(describeIssues(query.error));
    response.json(await callbackClientView(deps.callbacks.pool, clientId, query.data));
  });
  router.put('/v1/admin/callbacks/:clientId', admin, async (request, response) => {
    const clientId = clientIdOf(request);
    const body = SetCallbackDefaultBody.safeParse(request.body ?? {});
    if (!body.success) throw validationError(describeIssues(body.error));
    response.set('cache-control', 'no-store').json(await setDefaultCallbackUrl(deps.callbacks, clientId, body.data.url));
  });
  router.post('/v1/admin/callbacks/:clientId/rotate-secret', admin, async (request, response) => {
    const clientId = clientIdOf(request);
    const body = RotateCallbackSecretBody.safeParse(request.body ?? {});
    if (!body.success) throw validationError(describeIssues(body.error));
    response.set('cache-control', 'no-store').json(await rotateCallbackSecret(deps.callbacks, clientId, body.data.overlapHours));
  });
  return router;
}

export function describeCallbacksAdminRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Callbacks'];
  const params = CallbackClientParams;
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/callbacks',
    summary: 'Operators: per client, callbacks delivered, failed, waiting and in flight',
    tags,
    security: securedBy,
    responses: {
      200: { description: 'Every client with callback settings', content: { 'application/json': { schema: CallbackOverview } } },
      ...errorResponses([401, 403, 500]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/callbacks/{clientId}',
    summary: "Operators: a client's callback settings (never its secret), counts and newest events",
    tags,
    security: securedBy,
    request: { params, query: CallbackClientQuery },
    responses: {
      200: { description: 'The client', content: { 'application/json': { schema: CallbackClientView } } },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
  registry.registerPath({
    method: 'put',
    path: '/v1/admin/callbacks/{clientId}',
    summary:
      "Operators: set or remove a client's default callback URL (checked against the SSRF policy); creates its secret if it has none",
    tags,
    security: securedBy,
    request: { params, body: { content: { 'application/json': { schema: SetCallbackDefaultBody } } } },
    responses: {
      200: {
        description: 'Settings; webhookSecret only when this call created it (shown once)',
        content: { 'application/json': { schema: CallbackSecretView } },
      },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/v1/admin/callbacks/{clientId}/rotate-secret',
    summary: 'Operators: a new callback secret for the client (shown once); the previous one signs beside it for overlapHours',
    tags,
    security: securedBy,
    request: { params, body: { content: { 'application/json': { schema: RotateCallbackSecretBody } } } },
    responses: {
      200: { description: 'The new secret', content: { 'application/json': { schema: CallbackSecretView } } },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
  const events = [
    ['jobPost.mined', JobPostMinedEvent, 'A job post was mined (single or a batch row): its questions are ready at links.questions'],
    ['jobPost.failed', JobPostFailedEvent, 'A job post failed to be mined, with the error code and its meaning'],
    ['batch.finished', BatchFinishedEvent, 'Every row of a batch has an outcome: the counts per outcome (sent once per batch)'],
    [
      'application.ended',
      ApplicationEndedEvent,
      'An application ended: its status, error code and transport (a later definite outcome over SubmissionOutcomeUnknown sends a new one, with replaces)',
    ],
  ] as const;
  for (const [type, schema, summary] of events) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      summary,
      description:
        "POSTed to the request's callbackUrl (or the client's default) per Standard Webhooks: verify webhook-signature with the client's secret, drop a repeated webhook-id. Any 2xx acknowledges it; anything else is retried with backoff for a day.",
      tags,
      request: { headers: CallbackHeaders, body: { content: { 'application/json': { schema } } } },
      responses: { 200: { description: 'Received (any 2xx)' } },
    });
  }
}
