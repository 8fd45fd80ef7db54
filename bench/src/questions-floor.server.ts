// The floor for `bench questions`: express + pg returning a stored JSON text by prepared statement.
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.get('/questions/:jobPostId', async (request, response) => {
  const result = await pool.query<{ body: string }>({
    name: 'floor-find',
    text: 'SELECT body FROM mining_results WHERE client_id = $1 AND job_post_id = $2',
    values: [process.env.CLIENT_ID, request.params.jobPostId],
  });
  response.type('application/json').send(result.rows[0]?.body ?? '{}');
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'quarry started', port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
