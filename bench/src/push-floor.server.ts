// The floor for the uncached pushes of `bench rates`, in a process of its own as the worker is:
// each push is one binary COPY of the same stored bodies piped into a PUT to the same receiver,
// nothing else (no keys or hashes first, no JSON framing, no lease, no queue). Asked over IPC:
// { pushes: [{ url, hotelIds }], checkIn }; answers { done: true } once every receiver answered.
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 40) });
const agent = new http.Agent({ keepAlive: true });

async function push(url: string, hotelIds: string[], checkIn: string): Promise<void> {
  const client = await pool.connect();
  try {
    const ids = hotelIds.map((id) => client.escapeLiteral(id)).join(',');
    const copy = client.query(
      copyStreams.to(
        `COPY (SELECT body FROM rate_results WHERE hotel_id = ANY(ARRAY[${ids}]::text[]) AND check_in = ${client.escapeLiteral(checkIn)} ORDER BY hotel_id) TO STDOUT (FORMAT binary)`,
      ),
    );
    const request = http.request(url, { method: 'PUT', agent, headers: { 'content-type': 'application/octet-stream' } });
    const answered = new Promise<void>((resolve, reject) => {
      request.once('response', (response) => response.resume().once('end', resolve));
      request.once('error', reject);
    });
    await pipeline(copy, request);
    await answered;
  } finally {
    client.release();
  }
}

process.on('message', (message: { pushes: Array<{ url: string; hotelIds: string[] }>; checkIn: string }) => {
  void Promise.all(message.pushes.map((each) => push(each.url, each.hotelIds, message.checkIn))).then(
    () => process.send?.({ done: true }),
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.on('disconnect', () => void pool.end().then(() => process.exit(0)));
process.send?.({ ready: true });
