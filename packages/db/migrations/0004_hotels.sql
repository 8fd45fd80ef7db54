-- Up Migration
CREATE TABLE hotels (
  hotel_id text PRIMARY KEY CHECK (length(hotel_id) BETWEEN 1 AND 200),
  name text NOT NULL,
  ibe text NOT NULL,
  address text NOT NULL,
  country_code text NOT NULL,
  booking_service_id text,
  guests integer[] NOT NULL,
  booking_page_url text NOT NULL,
  -- Which adapter answers searches for this hotel, and its settings (validated by contracts' HotelSource).
  source jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Tenancy: a client sees (lists, pulls, subscribes to) only the hotels granted to it.
CREATE TABLE hotel_grants (
  client_id text NOT NULL REFERENCES clients (client_id),
  hotel_id text NOT NULL REFERENCES hotels (hotel_id) ON DELETE CASCADE,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, hotel_id)
);
CREATE INDEX hotel_grants_hotel ON hotel_grants (hotel_id);

CREATE TABLE redirect_clicks (
  click_id bigserial PRIMARY KEY,
  hotel_id text NOT NULL REFERENCES hotels (hotel_id) ON DELETE CASCADE,
  client_id text,
  clicked_at timestamptz NOT NULL DEFAULT now(),
  user_agent text
);

-- The latest validated result of each search. `body` is the hotel object already serialized as JSON,
-- so pull answers and push bodies are byte copies of it, never re-serialized (ADR 0015).
CREATE TABLE rate_results (
  hotel_id text NOT NULL REFERENCES hotels (hotel_id) ON DELETE CASCADE,
  check_in date NOT NULL,
  nights integer NOT NULL CHECK (nights >= 1),
  guests integer NOT NULL CHECK (guests >= 1),
  body text NOT NULL,
  body_sha256 bytea NOT NULL,
  fetched_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  changed_at timestamptz NOT NULL,
  PRIMARY KEY (hotel_id, check_in, nights, guests)
);

-- Source failures are logged here (and in the logs) with their reason; they are never served.
CREATE TABLE rate_source_failures (
  failure_id bigserial PRIMARY KEY,
  hotel_id text NOT NULL REFERENCES hotels (hotel_id) ON DELETE CASCADE,
  check_in date NOT NULL,
  nights integer NOT NULL,
  guests integer NOT NULL,
  kind text NOT NULL,
  reason text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rate_source_failures_hotel ON rate_source_failures (hotel_id, failed_at DESC);

CREATE TABLE push_subscriptions (
  subscription_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  push_url text NOT NULL,
  -- AES-256-GCM under QUARRY_SECRET_KEY; the key is needed in clear only to send X-API-KEY.
  api_key_ciphertext bytea NOT NULL,
  hotel_ids text[] NOT NULL,
  searches jsonb NOT NULL,
  -- Bumped whenever what the subscription would deliver may have changed. A push sends the state
  -- read at send time and records the version it read; versions only grow, so an older state can
  -- never be delivered after a newer one (ADR 0016).
  state_version bigint NOT NULL DEFAULT 1,
  delivered_version bigint NOT NULL DEFAULT 0,
  -- At most one push in flight per subscription: a lease, held for at most the request timeout.
  lease_token uuid,
  lease_until timestamptz,
  failures integer NOT NULL DEFAULT 0,
  failing_since timestamptz,
  next_attempt_at timestamptz,
  suspended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX push_subscriptions_client ON push_subscriptions (client_id, created_at DESC);
CREATE INDEX push_subscriptions_hotels ON push_subscriptions USING gin (hotel_ids);

CREATE TABLE push_deliveries (
  delivery_id bigserial PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES push_subscriptions (subscription_id) ON DELETE CASCADE,
  version bigint NOT NULL,
  started_at timestamptz NOT NULL,
  status integer,
  bytes bigint NOT NULL,
  duration_ms integer NOT NULL,
  error text,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'suspended'))
);
CREATE INDEX push_deliveries_subscription ON push_deliveries (subscription_id, delivery_id DESC);

-- Down Migration
DROP TABLE push_deliveries;
DROP TABLE push_subscriptions;
DROP TABLE rate_source_failures;
DROP TABLE rate_results;
DROP TABLE redirect_clicks;
DROP TABLE hotel_grants;
DROP TABLE hotels;
