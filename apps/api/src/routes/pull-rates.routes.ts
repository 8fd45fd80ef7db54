import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { HotelRateResults, RatesFeedQuery } from '@quarry/contracts';
import { parsePullQuery, pullRates, type PullPorts } from '@quarry/rates';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** `GET /Pull/RatesFeed`: the body is written from stored, already-serialized hotel objects. */
export function pullRatesRoutes(deps: { authenticator: Authenticator; pull: PullPorts }): Router {
  const router = Router();
  const hotels = requireClient(deps.authenticator, { scope: 'hotels', hotelSurface: true });
  router.get('/Pull/RatesFeed', hotels, async (request, response) => {
    // Not a contract's parse: a repeated parameter (hotelIds) and one message per problem, as the
    // interface words them, take the rates package's own parser; RatesFeedQuery describes the query.
    const query = parsePullQuery(request.query);
    const parts = await pullRates(deps.pull, clientOf(response).clientId, query);
    response.status(200).type('application/json').setHeader('content-length', parts.reduce((sum, part) => sum + part.length, 0));
    response.cork();
    for (const part of parts) response.write(part);
    response.end();
    response.uncork();
  });
  return router;
}

export function describePullRatesRoutes(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/Pull/RatesFeed',
    summary: 'Rooms and rates of hotels for one search',
    description:
      'Fresh stored results are served as they are; missing or stale searches are fetched live within a deadline. ' +
      'A hotel without coverage (not granted, date beyond the horizon, guest count not collected, source failure) is absent; ' +
      '`rooms: []` means no availability.',
    tags: ['Hotels'],
    security: securedBy,
    request: { query: RatesFeedQuery },
    responses: {
      200: { description: 'Hotel objects', content: { 'application/json': { schema: HotelRateResults } } },
      ...errorResponses([400, 401]),
    },
  });
}
