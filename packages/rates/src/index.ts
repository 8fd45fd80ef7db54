export {
  changeGrants,
  getHotel,
  getHotelForOperator,
  listHotelSourceFailures,
  listHotels,
  listHotelsForOperator,
  redirectToBookingPage,
  removeHotel,
  toListing,
  upsertHotel,
} from './hotel-registry.ts';
export type { CardTransportPolicy } from './hotel-registry.ts';
export type { HotelRow } from './hotels.queries.ts';
export { findGrantedHotelRow, findHotelRow } from './hotels.queries.ts';
export { findStoredRooms } from './rate-results.queries.ts';
export { parsePullQuery, pullRates } from './pull-rates.ts';
export type { PullPorts, PullQuery } from './pull-rates.ts';
export { refreshSearch } from './refresh-search.ts';
export type { EnqueuePush, RefreshOutcome, RefreshPorts } from './refresh-search.ts';
export { scheduleRefreshes } from './refresh-scheduler.ts';
export type { RefreshTier, SchedulePorts } from './refresh-scheduler.ts';
export {
  changeSubscription,
  createSubscription,
  getSubscription,
  getSubscriptionForOperator,
  listClientSubscriptions,
  listDeliveryLog,
  removeSubscription,
  resumeSuspendedSubscription,
  listSubscriptionsForOperator,
  pushKeySealing,
} from './push-subscriptions.ts';
export type { SubscriptionPorts } from './push-subscriptions.ts';
export { deliverPush } from './push-delivery.ts';
export type { DeliveryOutcome, DeliveryPorts, PushPolicy } from './push-delivery.ts';
export { createPushSender } from './push-sender.ts';
export { createBodyCache } from './body-cache.ts';
export type { PushSender } from './push-sender.ts';
export { createSourceRegistry } from './sources/source-registry.ts';
export type { SearchPriority, SourceGate, SourceRegistry } from './sources/source-registry.ts';
export { createOpenTravelSource, mapHotelAvailRS } from './sources/opentravel.source.ts';
export { createBookingPageSource, pageAddress, readRoomsOnPage, searchFailure, searchOnPage } from './sources/booking-page.source.ts';
export { bookingEngineRecipes } from './sources/booking-engine-recipes.ts';
export type { BookingEngineRecipe, FieldRecipe, PageAddress } from './sources/booking-engine-recipes.ts';
export type { RateSearch, RateSource, SourceOutcome } from './sources/rate-source.ts';
export { checkOutOf, SourceFailure } from './sources/rate-source.ts';
export { toPrice } from './sources/money.ts';
export { asNode, attr, list, otaXmlParserOptions, text } from './sources/ota-xml.ts';
export type { Node as OtaNode } from './sources/ota-xml.ts';
export { createRatesPorts, pushEnqueuer, refreshTiers } from './rates-ports.ts';
export type { RatesJobs, RatesPorts } from './rates-ports.ts';
