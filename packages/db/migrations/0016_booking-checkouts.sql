-- Up Migration

-- A booking on a hotel's own booking page is checked out in one browser context, held by one
-- worker from the guest page to the outcome (the final-price consent and a 3-D Secure challenge
-- included). The holder renews `checkout_until` while it holds the page; a step of a held booking
-- does nothing (the holder does the work), and once the lease lapses (the holder died) the sweep
-- hands the booking to the next step: a new checkout before the order, the reservation lookup after.
ALTER TABLE bookings
  ADD COLUMN checkout_worker text,
  ADD COLUMN checkout_until timestamptz;

CREATE INDEX bookings_checkout_until ON bookings (checkout_until) WHERE checkout_until IS NOT NULL;
