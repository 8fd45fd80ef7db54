import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { listClientAtsCredentials, registerAtsCredential, removeAtsCredential, type ApplicationsPorts } from '@quarry/applications';
import type { Authenticator } from '@quarry/auth';
import { AtsCredentialBody, AtsCredentialList, AtsCredentialParams, AtsCredentialSummary } from '@quarry/contracts';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** The employers' ATS keys a client registers (applications to those boards go through the vendor's API), and Workday tenant accounts. */
export function atsCredentialsRoutes(deps: { authenticator: Authenticator; applications: ApplicationsPorts }): Router {
  const router = Router();
  const recruitment = requireClient(deps.authenticator, { scope: 'recruitment' });

  router.post('/v1/recruitment/ats-credentials', recruitment, async (request, response) => {
    response.status(201).json(await registerAtsCredential(deps.applications, clientOf(response).clientId, request.body));
  });
  router.get('/v1/recruitment/ats-credentials', recruitment, async (_request, response) => {
    response.json(await listClientAtsCredentials(deps.applications, clientOf(response).clientId));
  });
  router.delete('/v1/recruitment/ats-credentials/:ats/:board', recruitment, async (request, response) => {
    await removeAtsCredential(deps.applications, clientOf(response).clientId, request.params);
    response.status(204).end();
  });
  return router;
}

export function describeAtsCredentialsRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Applications'];
  registry.registerPath({
    method: 'post',
    path: '/v1/recruitment/ats-credentials',
    summary: "Register an employer's API key for one ATS board, or a Workday tenant account (a repeat replaces it)",
    description:
      'Applications of this client to postings on that board (Greenhouse board token, Lever site, Ashby jobs page name, as in the posting URL) ' +
      "are then submitted through the vendor's API instead of its hosted form. For `workday` there is no API: `board` is the tenant's host " +
      '(`acme.wd5.myworkdayjobs.com`), or for the shared `myworkdaysite.com` hosts, which name the tenant in the path (`/recruiting/acme/…`), host and tenant ' +
      '(`wd5.myworkdaysite.com/acme`), and `email` + `password` a candidate account on that tenant, with which the hosted form signs in (on that tenant ' +
      'only, once per application; an account the tenant refuses is not tried again until it is registered anew). The key or password is stored sealed and never shown again.',
    tags,
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: AtsCredentialBody } } } },
    responses: {
      201: { description: 'Stored', content: { 'application/json': { schema: AtsCredentialSummary } } },
      ...errorResponses([400, 401, 403, 500]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/recruitment/ats-credentials',
    summary: 'The ATS boards this client registered a key for (never the keys)',
    tags,
    security: securedBy,
    responses: {
      200: { description: 'Boards', content: { 'application/json': { schema: AtsCredentialList } } },
      ...errorResponses([401, 403, 500]),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v1/recruitment/ats-credentials/{ats}/{board}',
    summary: "Delete a board's key: later applications to it use the hosted form",
    description:
      'A Workday board on `myworkdaysite.com` carries a slash, sent encoded: `/v1/recruitment/ats-credentials/workday/wd5.myworkdaysite.com%2Facme`.',
    tags,
    security: securedBy,
    request: { params: AtsCredentialParams },
    responses: { 204: { description: 'Deleted' }, ...errorResponses([400, 401, 403, 404, 500]) },
  });
}
