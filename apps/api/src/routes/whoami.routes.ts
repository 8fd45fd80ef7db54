import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { WhoAmI } from '@quarry/contracts';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** The cheapest authenticated call: lets a client check its credential (and us measure the stack). */
export function whoamiRoutes(deps: { authenticator: Authenticator }): Router {
  const router = Router();
  // No use case: the answer is the client the middleware authenticated, read from nothing else.
  router.get('/v1/whoami', requireClient(deps.authenticator, { scope: 'any' }), (_request, response) => {
    const client = clientOf(response);
    response.json({ clientId: client.clientId, name: client.name, scopes: client.scopes } satisfies WhoAmI);
  });
  return router;
}

export function describeWhoamiRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/whoami',
    summary: 'The client behind the credential',
    tags: ['Clients'],
    security: securedBy,
    responses: {
      200: { description: 'The authenticated client', content: { 'application/json': { schema: WhoAmI } } },
      ...errorResponses([401]),
    },
  });
}
