-- Up Migration

-- Why an order's outcome is not known (its request ended without an answer that could be read): the
-- first cause, kept from the run that sent the order for the run that ends the booking
-- BookingOutcomeUnknown, so its message says what happened first, not only the lookup after it.
ALTER TABLE bookings ADD COLUMN order_cause text;

-- Down Migration
ALTER TABLE bookings DROP COLUMN order_cause;
