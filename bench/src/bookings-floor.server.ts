// The floor for `GET /book/{id}` in `bench bookings`: express + pg returning the same booking's
// status columns as JSON by prepared statement, with no authentication and no shaping.
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.get('/book/:bookingId', async (request, response) => {
  const result = await pool.query({
    name: 'floor-find-booking',
    text: `SELECT booking_id, client_id, state, stage, created_at, succeeded_at, failed_at, error_code, error_message, price_confirmed_until,
             available_rooms, price_breakdown, final_price, confirmation, tds_challenge
           FROM bookings WHERE booking_id = $1 AND client_id = $2`,
    values: [request.params.bookingId, process.env.CLIENT_ID],
  });
  response.json(result.rows[0] ?? {});
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'quarry started', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
