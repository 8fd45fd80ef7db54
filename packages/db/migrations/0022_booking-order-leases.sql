-- Up Migration

-- The run that holds a booking's order (ADR 0048): who (one run of one job, never a process alone)
-- and until when. Taken before the card is opened, renewed while the hotel is asked; a run that
-- finds another's live lease waits for it instead of reading the hotel too early, and only the
-- holder records the intent (order_state = 'placing') and reads the card's CVV.
ALTER TABLE bookings
  ADD COLUMN order_owner text,
  ADD COLUMN order_lease_until timestamptz;

-- What must follow a booking's committed change (its next step, its callback) is written in the
-- same statement as the change: a row per job, deleted once the job is in Redis. The change's
-- caller enqueues at once; a relay in the bookings-worker enqueues what is left (Redis was away
-- between the commit and the enqueue, or the process died there). Job ids carry the booking's
-- version, so a job enqueued twice is added once.
CREATE TABLE booking_outbox (
  job_id text PRIMARY KEY,
  booking_id uuid NOT NULL,
  job text NOT NULL CHECK (job IN ('bookings.step', 'bookings.notify')),
  payload jsonb NOT NULL,
  -- When the job is due (a 3-D Secure poll is delayed): the relay enqueues it with what remains.
  run_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX booking_outbox_created ON booking_outbox (created_at);

-- Whether the card was stored with a CVV: a booking whose card had one and finds it gone (expired,
-- or Redis lost it) fails before anything is sent, instead of ordering without it.
ALTER TABLE vault_cards ADD COLUMN with_cvv boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE vault_cards DROP COLUMN with_cvv;
DROP TABLE booking_outbox;
ALTER TABLE bookings DROP COLUMN order_lease_until;
ALTER TABLE bookings DROP COLUMN order_owner;
