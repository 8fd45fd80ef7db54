-- Up Migration

-- One hotel booking of a client. `stage` is what the client sees; `state` follows from it
-- (started: the service works, pending: the client is awaited, finished). `work` is what the
-- worker does at its next job (null while the client is awaited or the booking ended).
CREATE TABLE bookings (
  booking_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  hotel_id text NOT NULL,
  check_in date NOT NULL,
  nights integer NOT NULL CHECK (nights >= 1),
  guests integer NOT NULL CHECK (guests >= 1),
  room_id text NOT NULL,
  rate_id text NOT NULL,
  state text NOT NULL DEFAULT 'started' CHECK (state IN ('started', 'pending', 'finished')),
  stage text NOT NULL DEFAULT 'priceCheck' CHECK (stage IN ('priceCheck', 'priceConfirmed', 'roomSelection', 'processingBooking',
    'finalPriceConsent', 'awaitingTdsChallenge', 'bookingConfirmed', 'failed', 'cancelled')),
  work text CHECK (work IN ('reprice', 'survey', 'quote', 'placeOrder', 'readOrder')),
  -- Bumped at every change: job ids and webhook ids carry it, so a step is enqueued once.
  seq integer NOT NULL DEFAULT 0,
  -- Our unique reference, sent to the hotel as the reservation's UniqueID: the key that finds the
  -- order again after a crash.
  reference text NOT NULL UNIQUE,
  -- null: no order sent; placing: recorded (committed) before OTA_HotelResRQ is sent, so a
  -- recovered run asks the hotel instead of ordering again; placed: the hotel answered.
  order_state text CHECK (order_state IN ('placing', 'placed')),
  placing_order_at timestamptz,
  price_confirmed_until timestamptz,
  -- JSON documents of what the client sees (prices, rooms, the challenge, the confirmation).
  available_rooms jsonb,
  price_breakdown jsonb,
  final_price jsonb,
  consented_at timestamptz,
  confirmation jsonb,
  tds_challenge jsonb,
  tds_expires_at timestamptz,
  error_code text,
  error_message text,
  -- Guests and contact (sealed with QUARRY_SECRET_KEY), and the card's vault token, sealed too.
  -- A token is at most 299 characters before sealing (v2); sealing adds 28 bytes (IV and tag).
  details_sealed bytea,
  pan_token_sealed bytea CHECK (octet_length(pan_token_sealed) <= 299 + 28),
  skip_confirmation boolean NOT NULL DEFAULT false,
  callback_url text,
  webhook_secret_sealed bytea,
  awaiting_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  succeeded_at timestamptz,
  failed_at timestamptz
);
CREATE INDEX bookings_client ON bookings (client_id, created_at DESC);
-- The timers' sweep reads only unfinished bookings.
CREATE INDEX bookings_open ON bookings (created_at) WHERE state <> 'finished';

-- Down Migration
DROP TABLE bookings;
