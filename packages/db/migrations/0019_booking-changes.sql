-- Up Migration

-- Every change of a booking is announced on the channel `booking_changes` with its id. NOTIFY in a
-- transaction is delivered at its commit and never for a rollback, so an API process that caches
-- bookings' statuses drops its copy after every committed change, whichever process or statement
-- made it.
CREATE FUNCTION announce_booking_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('booking_changes', COALESCE(NEW.booking_id, OLD.booking_id)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER booking_changes AFTER UPDATE OR DELETE ON bookings
  FOR EACH ROW EXECUTE FUNCTION announce_booking_change();

-- Down Migration

DROP TRIGGER booking_changes ON bookings;
DROP FUNCTION announce_booking_change();
