import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { AppError, HotelRateResults, RatesFeedQuery } from '@quarry/contracts';
import { parsePullQuery, pullRates, type PullPorts } from '@quarry/rates';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

const unknownIdsHeader = 'Quarry-Unknown-Hotel-Ids';
const unknownCountHeader = 'Quarry-Unknown-Hotel-Count';
/** A header stays a few kilobytes: 1000 ids of 200 characters would not. */
const maxListed = 100;

/** `GET /Pull/RatesFeed`: the body is written from stored, already-serialized hotel objects. */
export function pullRatesRoutes(deps: { authenticator: Authenticator; pull: PullPorts }): Router {
  const router = Router();
  const hotels = requireClient(deps.authenticator, { scope: 'hotels', hotelSurface: true });
  router.get('/Pull/RatesFeed', hotels, async (request, response) => {
    // Not a contract's parse: a repeated parameter (hotelIds) and one message per problem, as the
    // interface words them, take the rates package's own parser; RatesFeedQuery describes the query.
    const query = parsePullQuery(request.query);
    const { parts, unknownHotelIds } = await pullRates(deps.pull, clientOf(response).clientId, query);
    if (unknownHotelIds.length === query.hotelIds.length) {
      throw new AppError(
        'NotFound',
        `No hotel of hotelIds is known to this client: ${unknownHotelIds.slice(0, maxListed).join(', ')}${unknownHotelIds.length > maxListed ? ', …' : ''} (GET /Pull/Hotels lists the hotels it may pull)`,
        {
          unknownHotelIds: unknownHotelIds.slice(0, maxListed),
          unknownHotelCount: unknownHotelIds.length,
        },
      );
    }
    if (unknownHotelIds.length > 0) {
      // The body keeps the interface's shape (an array of hotels); the ids it left out as unknown are told beside it.
      response.setHeader(unknownIdsHeader, unknownHotelIds.slice(0, maxListed).map(encodeURIComponent).join(','));
      response.setHeader(unknownCountHeader, String(unknownHotelIds.length));
    }
    response
      .status(200)
      .type('application/json')
      .setHeader(
        'content-length',
        parts.reduce((sum, part) => sum + part.length, 0),
      );
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
      '`rooms: []` means no availability. Ids not known to the client (not registered, or not granted) are named in the ' +
      'Quarry-Unknown-Hotel-Ids header; when none of hotelIds is known, the answer is 404 NotFound naming them in details.unknownHotelIds.',
    tags: ['Hotels'],
    security: securedBy,
    request: { query: RatesFeedQuery },
    responses: {
      200: {
        description: 'Hotel objects',
        headers: {
          [unknownIdsHeader]: {
            description: `Present when some hotelIds are not known to this client (not registered, or not granted to it): those ids, percent-encoded, comma-separated (the first ${maxListed})`,
            schema: { type: 'string' },
          },
          [unknownCountHeader]: {
            description: 'How many hotelIds are not known to this client (with the header above)',
            schema: { type: 'integer' },
          },
        },
        content: { 'application/json': { schema: HotelRateResults } },
      },
      ...errorResponses([400, 401, 404]),
    },
  });
}
