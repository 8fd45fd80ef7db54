// The floor for the `rates` pull: express + pg serving the same stored rows (the client's granted
// hotels' fresh results for one search) as a JSON array, one prepared statement, no authentication.
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.get('/Pull/RatesFeed', async (request, response) => {
  const hotelIds = ([] as unknown[]).concat(request.query.hotelIds ?? []).map(String);
  const result = await pool.query<{ body: string }>({
    name: 'floor-pull',
    text: `SELECT r.body FROM hotel_grants g JOIN rate_results r ON r.hotel_id = g.hotel_id
           WHERE g.client_id = $1 AND g.hotel_id = ANY($2::text[]) AND r.check_in = $3 AND r.nights = $4 AND r.guests = $5 AND r.expires_at > now()`,
    values: [process.env.CLIENT_ID, hotelIds, request.query.checkIn, Number(request.query.nights), Number(request.query.guests ?? 2)],
  });
  response.type('application/json').send(`[${result.rows.map((row) => row.body).join(',')}]`);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'quarry started', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
