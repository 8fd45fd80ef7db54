export type {
  BookingEngine,
  BookingEngines,
  CheckoutEngine,
  HeldCheckout,
  Order,
  OrderOutcome,
  RepriceOutcome,
  Stay,
} from './booking-engine.ts';
export { createBrowserBookingEngine } from './browser/browser-booking.engine.ts';
export type { BookingBrowser } from './browser/browser-booking.engine.ts';
export { bookingPageRecipes, checkoutRecipes } from './browser/checkout-recipes.ts';
export type { BookingPageRecipe, CheckoutRecipe } from './browser/checkout-recipes.ts';
export { followBookingChangesForWaits } from './booking-change-waits.ts';
export type { BookingChangeWaits } from './booking-change-waits.ts';
export { bookBooking, cancelBooking, confirmPrice, consentToFinalPrice } from './booking-inputs.ts';
export { bookingsOverview } from './bookings-overview.ts';
export { canMove, stateOf } from './booking-stages.ts';
export type { BookingsPorts, BookingTimers, Sealer, WorkerPorts } from './bookings-ports.ts';
export { relayBookingOutbox } from './booking-outbox.ts';
export { createBooking } from './create-booking.ts';
export { createBookingStatusCache, followBookingChanges } from './booking-status-cache.ts';
export type { BookingStatusCache, BookingStatusCacheSettings } from './booking-status-cache.ts';
export { findBookingStatusText } from './find-booking.ts';
export { notifyBooking } from './notify-booking.ts';
export { createOpenTravelBookingEngine } from './opentravel/opentravel-booking.engine.ts';
export { runBookingStep, stepLogLevel } from './run-booking-step.ts';
export { runCheckout } from './run-checkout.ts';
export type { StepSummary } from './run-booking-step.ts';
export { stalledStepAfterMs, sweepBookings } from './sweep-bookings.ts';
export type { SweepSummary } from './sweep-bookings.ts';
export { renderTdsPage } from './tds-page.ts';
