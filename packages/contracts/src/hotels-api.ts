import { z } from 'zod';
import {
  HotelListing,
  HotelRateResult,
  OperatorPushSubscriptionView,
  PushDeliveryView,
  PushSubscriptionView,
  UpsertHotelBody,
} from './hotels.ts';

/**
 * Parameters and lists of the hotel endpoints (the hotel objects themselves are in hotels.ts).
 * Queries the use cases parse themselves (`listHotels`, `parsePullQuery`) are described here as
 * the interface publishes them.
 */
export const HotelsQuery = z.object({
  limit: z.number().int().min(1).max(1000).default(100).optional(),
  offset: z.number().int().min(0).default(0).optional(),
});
/** The hotel of `/Pull/Hotel` (in the query) and of `/Pull/Hotel/{hotelId}` (in the path). */
export const HotelIdInput = z.object({ hotelId: z.string().max(200) });
export const RedirectQuery = z.object({ hotelId: z.string(), clientId: z.string().optional() });
export const HotelListings = z.array(HotelListing);

export const RatesFeedQuery = z.object({
  hotelIds: z.array(z.string().max(200)).describe('Repeated once per hotel'),
  checkIn: z.iso.date(),
  nights: z.number().int().min(1),
  guests: z.number().int().min(1).default(2).optional(),
});
export const HotelRateResults = z.array(HotelRateResult);

/** Operators' hotel registry: the path names the hotel, so the body of a PUT has no `hotelId`. */
export const AdminHotelParams = z.object({ hotelId: z.string() });
export const PutHotelBody = UpsertHotelBody.omit({ hotelId: true });

export const SubscriptionIdParams = z.object({ subscriptionId: z.uuid() });
export const PushSubscriptionViews = z.array(PushSubscriptionView);
export const OperatorPushSubscriptionViews = z.array(OperatorPushSubscriptionView);
export const PushDeliveriesQuery = z.object({ limit: z.number().int().min(1).max(1000).optional() });
export const PushDeliveryViews = z.array(PushDeliveryView);
