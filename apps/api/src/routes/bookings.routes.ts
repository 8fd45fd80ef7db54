import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import {
  bookBooking,
  cancelBooking,
  confirmPrice,
  consentToFinalPrice,
  createBooking,
  findBookingStatusText,
  renderTdsPage,
  type BookingsPorts,
} from '@quarry/bookings';
import {
  BookBody,
  BookingIdParams,
  BookingStatus,
  ConfirmPriceBody,
  ConsentBodyDocument,
  CreateBookingBody,
  CreatedBooking,
} from '@quarry/contracts';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/** Hotel bookings (scope `booking`, each booking its client's only). */
export function bookingsRoutes(deps: { authenticator: Authenticator; bookings: BookingsPorts }): Router {
  const router = Router();
  const booking = requireClient(deps.authenticator, { scope: 'booking' });
  // A booking's status is polled while a client input or the hotel is awaited: never cached.
  const noStore = { 'cache-control': 'private, no-store' };

  router.post('/v1/bookings', booking, async (request, response) => {
    response
      .status(201)
      .set(noStore)
      .json(await createBooking(deps.bookings, clientOf(response).clientId, request.body));
  });
  router.post('/Booking/prices/confirm', booking, async (request, response) => {
    response.set(noStore).json(await confirmPrice(deps.bookings, clientOf(response).clientId, request.body));
  });
  router.get('/book/:bookingId', booking, async (request, response) => {
    response
      .set(noStore)
      .type('application/json')
      .send(await findBookingStatusText(deps.bookings, clientOf(response).clientId, request.params.bookingId));
  });
  router.get('/book/:bookingId/tds', booking, async (request, response) => {
    const page = await renderTdsPage(deps.bookings, clientOf(response).clientId, request.params.bookingId);
    response
      .set({ ...noStore, 'content-security-policy': page.contentSecurityPolicy, 'content-type': 'text/html; charset=utf-8' })
      .send(page.html);
  });
  router.post('/book/:bookingId', booking, async (request, response) => {
    response.set(noStore).json(await bookBooking(deps.bookings, clientOf(response).clientId, request.params.bookingId, request.body));
  });
  router.post('/book/:bookingId/consent', booking, async (request, response) => {
    response
      .set(noStore)
      .json(await consentToFinalPrice(deps.bookings, clientOf(response).clientId, request.params.bookingId, request.body));
  });
  router.post('/book/:bookingId/cancel', booking, async (request, response) => {
    response.set(noStore).json(await cancelBooking(deps.bookings, clientOf(response).clientId, request.params.bookingId));
  });
  return router;
}

export function describeBookingsRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Bookings'];
  const status = { description: 'The booking', content: { 'application/json': { schema: BookingStatus } } };
  registry.registerPath({
    method: 'post',
    path: '/v1/bookings',
    summary: 'Start a booking of one rate (stage priceCheck): the hotel is asked whether the price still holds',
    description:
      'Stages: priceCheck → priceConfirmed (the price holds until priceConfirmedUntil) or roomSelection (changed or gone: availableRooms with a priceId per rate) → ' +
      'POST /book/{bookingId} → processingBooking → finalPriceConsent → (awaitingTdsChallenge) → bookingConfirmed; or failed with error.code, or cancelled. ' +
      'With callbackUrl, every stage change is POSTed there signed per Standard Webhooks with webhookSecret (retried with backoff). ' +
      "A stay the rates feed cannot price is a 400 naming its field: checkIn before today (UTC) or past RATES_HORIZON_DAYS, guests not among the hotel's guest counts.",
    tags,
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: CreateBookingBody } } } },
    responses: {
      201: { description: 'Created', content: { 'application/json': { schema: CreatedBooking } } },
      ...errorResponses([400, 401, 403, 404, 500]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/Booking/prices/confirm',
    summary: 'Take one of the prices a booking in roomSelection shows (→ priceConfirmed)',
    tags,
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: ConfirmPriceBody } } } },
    responses: { 200: status, ...errorResponses([400, 401, 403, 404, 409, 500]) },
  });
  registry.registerPath({
    method: 'get',
    path: '/book/{bookingId}',
    summary:
      'The BookingStatus: state (started, pending, finished), stage, prices, the 3-D Secure challenge while awaited, the confirmation or the error',
    tags,
    security: securedBy,
    request: { params: BookingIdParams },
    responses: { 200: status, ...errorResponses([400, 401, 403, 404, 500]) },
  });
  registry.registerPath({
    method: 'get',
    path: '/book/{bookingId}/tds',
    summary: 'The 3-D Secure challenge of a booking in awaitingTdsChallenge as one HTML page for an iframe',
    description:
      "The page posts creq (and threeDSSessionData) to the issuer's acsUrl in a frame sized by windowSize, follows the booking, and once it left " +
      'awaitingTdsChallenge posts {type: "3dsecure-finished", bookingId, stage} to the parent window. The outcome reaches the hotel from the issuer; ' +
      'the booking then ends bookingConfirmed, or failed (PaymentRejected, TdsTimeout). 409 in any other stage.',
    tags,
    security: securedBy,
    request: { params: BookingIdParams },
    responses: {
      200: { description: 'The challenge page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...errorResponses([400, 401, 403, 404, 409, 500]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/book/{bookingId}',
    summary: 'Book the confirmed price with the guests and a card token (→ processingBooking → finalPriceConsent)',
    description:
      'panToken is a token of the card vault (v1: 164 characters, v2: "v2:" and 296 more); one this vault did not issue, another client\'s, or one whose card is no ' +
      'longer kept is a 400 naming panToken, and the booking stays in priceConfirmed. skipConfirmation: true only asks the hotel for its current prices of every ' +
      'room (→ roomSelection); nothing is held or booked, and details and panToken may be left out.',
    tags,
    security: securedBy,
    request: { params: BookingIdParams, body: { content: { 'application/json': { schema: BookBody } } } },
    responses: { 200: status, ...errorResponses([400, 401, 403, 404, 409, 500]) },
  });
  registry.registerPath({
    method: 'post',
    path: '/book/{bookingId}/consent',
    summary: 'Consent to the final price: an exact copy of finalPrice sends the order to the hotel; anything else is FinalPriceNotFound',
    tags,
    security: securedBy,
    request: { params: BookingIdParams, body: { required: true, content: { 'application/json': { schema: ConsentBodyDocument } } } },
    responses: { 200: status, ...errorResponses([400, 401, 403, 404, 409, 500]) },
  });
  registry.registerPath({
    method: 'post',
    path: '/book/{bookingId}/cancel',
    summary: 'Cancel a booking before its order is placed with the hotel (→ cancelled)',
    tags,
    security: securedBy,
    request: { params: BookingIdParams },
    responses: { 200: status, ...errorResponses([400, 401, 403, 404, 409, 500]) },
  });
}
