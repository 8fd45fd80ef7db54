import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  AdminHotelParams,
  HotelGrantBody,
  HotelIdInput,
  HotelListing,
  HotelListings,
  HotelsQuery,
  PutHotelBody,
  RedirectQuery,
} from '@quarry/contracts';
import type { Queryable } from '@quarry/db';
import {
  changeGrants,
  getHotel,
  getHotelForOperator,
  listHotelSourceFailures,
  listHotels,
  redirectToBookingPage,
  removeHotel,
  upsertHotel,
  type CardTransportPolicy,
  type EnqueuePush,
} from '@quarry/rates';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { checkInput } from '../middleware/request-input.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Hotel registry (operators), listing and detail (clients with the `hotels` scope), and the redirect link. */
export function hotelsRoutes(deps: {
  authenticator: Authenticator;
  db: Queryable;
  hotels: { enqueuePush: EnqueuePush; cardTransport?: CardTransportPolicy };
}): Router {
  const router = Router();
  const hotels = requireClient(deps.authenticator, { scope: 'hotels', hotelSurface: true });
  const admin = requireClient(deps.authenticator, { scope: 'admin' });

  router.get('/Pull/Hotels', hotels, async (request, response) => {
    response.json(await listHotels({ db: deps.db }, clientOf(response).clientId, request.query));
  });
  router.get('/Pull/Hotel', hotels, async (request, response) => {
    response.json(await getHotel({ db: deps.db }, clientOf(response).clientId, request.query.hotelId));
  });
  router.get('/Pull/Hotel/:hotelId', hotels, async (request, response) => {
    response.json(await getHotel({ db: deps.db }, clientOf(response).clientId, request.params.hotelId));
  });
  router.get('/redirect', checkInput(), async (request, response) => {
    response.redirect(302, await redirectToBookingPage({ db: deps.db }, request.query, request.get('user-agent')));
  });

  router.put('/v1/admin/hotels/:hotelId', admin, async (request, response) => {
    const body = { ...(request.body as object), hotelId: request.params.hotelId };
    response.json(
      await upsertHotel({ db: deps.db, ...(deps.hotels.cardTransport ? { cardTransport: deps.hotels.cardTransport } : {}) }, body),
    );
  });
  router.get('/v1/admin/hotels/:hotelId', admin, async (request, response) => {
    response.json(await getHotelForOperator({ db: deps.db }, String(request.params.hotelId)));
  });
  router.get('/v1/admin/hotels/:hotelId/source-failures', admin, async (request, response) => {
    response.json(await listHotelSourceFailures({ db: deps.db }, String(request.params.hotelId)));
  });
  router.delete('/v1/admin/hotels/:hotelId', admin, async (request, response) => {
    await removeHotel({ db: deps.db }, String(request.params.hotelId));
    response.json({ message: 'deleted' });
  });
  router.post('/v1/admin/hotel-grants', admin, async (request, response) => {
    response.json(await changeGrants({ db: deps.db, enqueuePush: deps.hotels.enqueuePush }, request.body, 'grant'));
  });
  router.post('/v1/admin/hotel-grants/revoke', admin, async (request, response) => {
    response.json(await changeGrants({ db: deps.db, enqueuePush: deps.hotels.enqueuePush }, request.body, 'revoke'));
  });
  return router;
}

export function describeHotelsRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Hotels'];
  registry.registerPath({
    method: 'get',
    path: '/Pull/Hotels',
    summary: 'Hotels the caller may access',
    tags,
    security: securedBy,
    request: { query: HotelsQuery },
    responses: {
      200: { description: 'Hotels, ordered by hotelId', content: { 'application/json': { schema: HotelListings } } },
      ...errorResponses([400, 401]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/Pull/Hotel',
    summary: 'One hotel the caller may access',
    tags,
    security: securedBy,
    request: { query: HotelIdInput },
    responses: {
      200: { description: 'The hotel', content: { 'application/json': { schema: HotelListing } } },
      ...errorResponses([400, 401, 404]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/Pull/Hotel/{hotelId}',
    summary: 'One hotel the caller may access',
    tags,
    security: securedBy,
    request: { params: HotelIdInput },
    responses: {
      200: { description: 'The hotel', content: { 'application/json': { schema: HotelListing } } },
      ...errorResponses([401, 404]),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/redirect',
    summary: "Redirect to the hotel's booking page (the click is recorded)",
    tags,
    request: { query: RedirectQuery },
    responses: { 302: { description: 'To the booking page' }, ...errorResponses([400, 404]) },
  });
  registry.registerPath({
    method: 'put',
    path: '/v1/admin/hotels/{hotelId}',
    summary: 'Add or replace a hotel of the registry',
    tags: ['Hotels admin'],
    security: securedBy,
    request: { params: AdminHotelParams, body: { content: { 'application/json': { schema: PutHotelBody } } } },
    responses: { 200: { description: 'The stored hotel' }, ...errorResponses([400, 401, 403]) },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/hotels/{hotelId}',
    summary: 'A hotel of the registry, with its source',
    tags: ['Hotels admin'],
    security: securedBy,
    request: { params: AdminHotelParams },
    responses: { 200: { description: 'The hotel' }, ...errorResponses([401, 403, 404]) },
  });
  registry.registerPath({
    method: 'get',
    path: '/v1/admin/hotels/{hotelId}/source-failures',
    summary: "Latest failures of a hotel's source (invalid results, source down, timeouts), newest first",
    tags: ['Hotels admin'],
    security: securedBy,
    request: { params: AdminHotelParams },
    responses: { 200: { description: 'Failures' }, ...errorResponses([401, 403, 404]) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/v1/admin/hotels/{hotelId}',
    summary: 'Remove a hotel (its grants and stored results go with it)',
    tags: ['Hotels admin'],
    security: securedBy,
    request: { params: AdminHotelParams },
    responses: { 200: { description: 'Deleted' }, ...errorResponses([401, 403, 404]) },
  });
  for (const [path, summary] of [
    ['/v1/admin/hotel-grants', 'Grant a client access to hotels'],
    ['/v1/admin/hotel-grants/revoke', "Revoke a client's access to hotels"],
  ] as const) {
    registry.registerPath({
      method: 'post',
      path,
      summary,
      tags: ['Hotels admin'],
      security: securedBy,
      request: { body: { content: { 'application/json': { schema: HotelGrantBody } } } },
      responses: { 200: { description: 'Done' }, ...errorResponses([400, 401, 403]) },
    });
  }
}
