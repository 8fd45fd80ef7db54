-- Up Migration

-- An employer's key for one board of an ATS's API, registered by a client: applications of that
-- client to that board's postings go through the vendor's API instead of its hosted form. The key
-- is kept only sealed (AES-256-GCM with QUARRY_SECRET_KEY) and never shown again.
CREATE TABLE ats_credentials (
  client_id text NOT NULL REFERENCES clients (client_id),
  ats text NOT NULL,
  board text NOT NULL,
  key_sealed bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, ats, board)
);

-- Down Migration
DROP TABLE ats_credentials;
