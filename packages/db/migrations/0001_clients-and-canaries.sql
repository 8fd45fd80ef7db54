-- Up Migration
CREATE TABLE clients (
  client_id text PRIMARY KEY,
  name text NOT NULL,
  scopes text[] NOT NULL,
  -- HMAC-SHA256 of the secret under QUARRY_SECRET_KEY: the secret itself is never stored.
  secret_hash bytea NOT NULL UNIQUE,
  -- AES-256-GCM under QUARRY_SECRET_KEY: the JWT secret must be recoverable to verify HS256.
  jwt_secret_ciphertext bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE canaries (
  canary_id uuid PRIMARY KEY,
  client_id text NOT NULL REFERENCES clients (client_id),
  hold_ms integer NOT NULL CHECK (hold_ms >= 0),
  state text NOT NULL CHECK (state IN ('queued', 'processing', 'completed')),
  runs integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  completed_by text
);
CREATE INDEX canaries_client_created ON canaries (client_id, created_at DESC);

-- Down Migration
DROP TABLE canaries;
DROP TABLE clients;
