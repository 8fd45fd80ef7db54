import type { Room } from '@quarry/contracts';
import type { Pool, Queryable } from '@quarry/db';
import copyStreams from 'pg-copy-streams';
import { binaryCopyRows, type CopiedField } from './binary-copy.ts';

export type SearchKey = { hotelId: string; checkIn: string; nights: number; guests: number };

/** A stored result's search, content hash and size in bytes, without the body. */
export type StateKey = SearchKey & { sha256: Buffer; bytes: number };

/**
 * Stores a validated result. Returns whether its content differs from what was stored before: only
 * a change triggers pushes (a refresh that finds the same rates only moves fetchedAt/expiresAt).
 */
export async function storeResult(
  db: Queryable,
  result: SearchKey & { body: string; sha256: Buffer; fetchedAt: Date; expiresAt: Date },
): Promise<{ changed: boolean }> {
  const outcome = await db.query<{ changed: boolean }>(
    `WITH previous AS (
       SELECT body_sha256 FROM rate_results WHERE hotel_id = $1 AND check_in = $2 AND nights = $3 AND guests = $4
     ), upserted AS (
       INSERT INTO rate_results (hotel_id, check_in, nights, guests, body, body_sha256, fetched_at, expires_at, changed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $7)
       ON CONFLICT (hotel_id, check_in, nights, guests) DO UPDATE SET
         body = EXCLUDED.body, body_sha256 = EXCLUDED.body_sha256, fetched_at = EXCLUDED.fetched_at, expires_at = EXCLUDED.expires_at,
         changed_at = CASE WHEN rate_results.body_sha256 = EXCLUDED.body_sha256 THEN rate_results.changed_at ELSE EXCLUDED.changed_at END
       -- An older fetch finishing late must not overwrite a newer one.
       WHERE rate_results.fetched_at <= EXCLUDED.fetched_at
       RETURNING 1
     )
     SELECT (EXISTS (SELECT 1 FROM upserted)) AND NOT EXISTS (SELECT 1 FROM previous WHERE body_sha256 = $6) AS changed`,
    [result.hotelId, result.checkIn, result.nights, result.guests, result.body, result.sha256, result.fetchedAt, result.expiresAt],
  );
  return { changed: outcome.rows[0]?.changed === true };
}

export async function recordSourceFailure(db: Queryable, key: SearchKey, failure: { kind: string; reason: string }): Promise<void> {
  await db.query('INSERT INTO rate_source_failures (hotel_id, check_in, nights, guests, kind, reason) VALUES ($1, $2, $3, $4, $5, $6)', [
    key.hotelId,
    key.checkIn,
    key.nights,
    key.guests,
    failure.kind,
    failure.reason.slice(0, 2000),
  ]);
}

export async function listSourceFailures(
  db: Queryable,
  hotelId: string,
  limit = 100,
): Promise<Array<SearchKey & { kind: string; reason: string; failedAt: Date }>> {
  const result = await db.query<{
    hotel_id: string;
    check_in: string;
    nights: number;
    guests: number;
    kind: string;
    reason: string;
    failed_at: Date;
  }>(
    `SELECT hotel_id, to_char(check_in, 'YYYY-MM-DD') AS check_in, nights, guests, kind, reason, failed_at
     FROM rate_source_failures WHERE hotel_id = $1 ORDER BY failure_id DESC LIMIT $2`,
    [hotelId, limit],
  );
  return result.rows.map((row) => ({
    hotelId: row.hotel_id,
    checkIn: row.check_in,
    nights: row.nights,
    guests: row.guests,
    kind: row.kind,
    reason: row.reason,
    failedAt: row.failed_at,
  }));
}

/** When each search of a hotel was last fetched: the scheduler's view of freshness. */
export async function fetchedAtBySearch(db: Queryable, hotelIds: string[], fromDate: string): Promise<Map<string, Date>> {
  const result = await db.query<{ key: string; fetched_at: Date }>(
    `SELECT hotel_id || '|' || to_char(check_in, 'YYYY-MM-DD') || '|' || nights || '|' || guests AS key, fetched_at
     FROM rate_results WHERE hotel_id = ANY($1::text[]) AND check_in >= $2`,
    [hotelIds, fromDate],
  );
  return new Map(result.rows.map((row) => [row.key, row.fetched_at]));
}

export function searchKeyString(key: SearchKey): string {
  return `${key.hotelId}|${key.checkIn}|${key.nights}|${key.guests}`;
}

/**
 * Everything a pull needs in one round trip: the requested hotels the client may see, the guest
 * counts each is collected for, and the content hash of the search's stored result when there is
 * a fresh one (the bytes usually come from the API process's cache; see `findBodies`).
 */
export async function findPullRows(
  db: Queryable,
  clientId: string,
  hotelIds: string[],
  search: Omit<SearchKey, 'hotelId'>,
  now: Date,
): Promise<Array<{ hotelId: string; guests: number[]; sha256: Buffer | null }>> {
  // Named: prepared once per connection, planned once. This is the hottest query of the feed.
  // Only fresh results come back (expired ones are as good as missing), so no timestamps to parse.
  const result = await db.query<{ hotel_id: string; guests: number[]; body_sha256: Buffer | null }>({
    name: 'rates-pull-hashes',
    text: `SELECT h.hotel_id, h.guests, r.body_sha256
     FROM hotel_grants g JOIN hotels h ON h.hotel_id = g.hotel_id
     LEFT JOIN rate_results r ON r.hotel_id = h.hotel_id AND r.check_in = $3 AND r.nights = $4 AND r.guests = $5 AND r.expires_at > $6
     WHERE g.client_id = $1 AND g.hotel_id = ANY($2::text[])`,
    values: [clientId, hotelIds, search.checkIn, search.nights, search.guests, now],
  });
  return result.rows.map((row) => ({ hotelId: row.hotel_id, guests: row.guests, sha256: row.body_sha256 }));
}

/** One page of a subscription's state as keys and content hashes only (the bodies may be cached). */
export async function pageSubscriptionHashes(
  db: Queryable,
  query: {
    clientId: string;
    hotelIds: string[];
    fromDate: string;
    toDate: string;
    nights: number[];
    guests: number[];
    after: SearchKey | null;
    limit: number;
  },
): Promise<StateKey[]> {
  const after = query.after;
  const result = await db.query<{ hotel_id: string; check_in: string; nights: number; guests: number; body_sha256: Buffer; bytes: number }>(
    `SELECT r.hotel_id, to_char(r.check_in, 'YYYY-MM-DD') AS check_in, r.nights, r.guests, r.body_sha256, octet_length(r.body) AS bytes
     FROM rate_results r JOIN hotel_grants g ON g.hotel_id = r.hotel_id AND g.client_id = $1
     WHERE r.hotel_id = ANY($2::text[]) AND r.check_in BETWEEN $3 AND $4 AND r.nights = ANY($5::int[]) AND r.guests = ANY($6::int[])
       AND r.expires_at > now()
       AND ($7::text IS NULL OR (r.hotel_id, r.check_in, r.nights, r.guests) > ($7, $8::date, $9::int, $10::int))
     ORDER BY r.hotel_id, r.check_in, r.nights, r.guests
     LIMIT $11`,
    [
      query.clientId,
      query.hotelIds,
      query.fromDate,
      query.toDate,
      query.nights,
      query.guests,
      after?.hotelId ?? null,
      after?.checkIn ?? null,
      after?.nights ?? null,
      after?.guests ?? null,
      query.limit,
    ],
  );
  return result.rows.map((row) => ({
    hotelId: row.hotel_id,
    checkIn: row.check_in,
    nights: row.nights,
    guests: row.guests,
    sha256: row.body_sha256,
    bytes: row.bytes,
  }));
}

/** Bodies of the given searches, each with its hash (it may have changed since the page was read). */
export async function findBodies(db: Queryable, keys: SearchKey[]): Promise<Array<SearchKey & { body: string; sha256: Buffer }>> {
  if (keys.length === 0) return [];
  const result = await db.query<{ hotel_id: string; check_in: string; nights: number; guests: number; body: string; body_sha256: Buffer }>(
    `SELECT r.hotel_id, to_char(r.check_in, 'YYYY-MM-DD') AS check_in, r.nights, r.guests, r.body, r.body_sha256
     FROM rate_results r JOIN unnest($1::text[], $2::date[], $3::int[], $4::int[]) AS k (hotel_id, check_in, nights, guests)
       ON r.hotel_id = k.hotel_id AND r.check_in = k.check_in AND r.nights = k.nights AND r.guests = k.guests`,
    [keys.map((key) => key.hotelId), keys.map((key) => key.checkIn), keys.map((key) => key.nights), keys.map((key) => key.guests)],
  );
  return result.rows.map((row) => ({
    hotelId: row.hotel_id,
    checkIn: row.check_in,
    nights: row.nights,
    guests: row.guests,
    body: row.body,
    sha256: row.body_sha256,
  }));
}

/** A stored body as it came over a binary COPY: its bytes in the pieces they arrived in. */
export type CopiedBody = SearchKey & { sha256: Buffer; parts: Buffer[]; bytes: number };

const isoDate = /^\d{4}-\d{2}-\d{2}$/;
const joined = (field: CopiedField): Buffer =>
  field === null ? Buffer.alloc(0) : field.length === 1 ? (field[0] as Buffer) : Buffer.concat(field);

/**
 * The same rows as `findBodies`, read by a binary COPY on a connection of its own: each body is
 * the bytes Postgres stores, never decoded into a string and encoded back (which was most of an
 * uncached push's time, and its memory). COPY takes no parameters, so the keys are written into
 * the statement as escaped literals (and numbers checked to be integers).
 */
export async function copyBodies(pool: Pool, keys: SearchKey[]): Promise<CopiedBody[]> {
  if (keys.length === 0) return [];
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const integer = (value: number) => {
      if (!Number.isSafeInteger(value)) throw new TypeError(`a search key holds ${value}, not an integer`);
      return String(value);
    };
    const date = (value: string) => {
      if (!isoDate.test(value)) throw new TypeError(`a search key holds ${JSON.stringify(value)}, not a yyyy-MM-dd date`);
      return client.escapeLiteral(value);
    };
    const array = (values: string[], type: string) => `ARRAY[${values.join(',')}]::${type}[]`;
    const stream = client.query(
      copyStreams.to(
        `COPY (SELECT k.ord::int4, r.body_sha256, r.body
           FROM unnest(${array(
             keys.map((key) => client.escapeLiteral(key.hotelId)),
             'text',
           )}, ${array(
             keys.map((key) => date(key.checkIn)),
             'date',
           )},
                       ${array(
                         keys.map((key) => integer(key.nights)),
                         'int4',
                       )}, ${array(
                         keys.map((key) => integer(key.guests)),
                         'int4',
                       )})
                WITH ORDINALITY AS k (hotel_id, check_in, nights, guests, ord)
           JOIN rate_results r ON r.hotel_id = k.hotel_id AND r.check_in = k.check_in AND r.nights = k.nights AND r.guests = k.guests
           ORDER BY k.ord) TO STDOUT (FORMAT binary)`,
      ),
    );
    const rows: CopiedBody[] = [];
    for await (const [ord, sha256, body] of binaryCopyRows(stream)) {
      const key = keys[joined(ord ?? null).readInt32BE(0) - 1];
      if (!key || !body) continue;
      rows.push({
        ...key,
        sha256: Buffer.from(joined(sha256 ?? null)),
        parts: body,
        bytes: body.reduce((sum, part) => sum + part.length, 0),
      });
    }
    return rows;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A COPY that failed half-way leaves the connection in an unknown state: it is closed, not reused.
    client.release(failure);
  }
}

/** Size of a subscription's current state in bytes (bodies plus separators), to enforce the push cap. */
export async function subscriptionStateBytes(
  db: Queryable,
  query: { clientId: string; hotelIds: string[]; fromDate: string; toDate: string; nights: number[]; guests: number[] },
): Promise<number> {
  const result = await db.query<{ bytes: string }>(
    `SELECT COALESCE(SUM(octet_length(r.body) + 1), 1) + 1 AS bytes
     FROM rate_results r JOIN hotel_grants g ON g.hotel_id = r.hotel_id AND g.client_id = $1
     WHERE r.hotel_id = ANY($2::text[]) AND r.check_in BETWEEN $3 AND $4 AND r.nights = ANY($5::int[]) AND r.guests = ANY($6::int[])
       AND r.expires_at > now()`,
    [query.clientId, query.hotelIds, query.fromDate, query.toDate, query.nights, query.guests],
  );
  return Number(result.rows[0]?.bytes ?? 0);
}

/**
 * The rooms the feed stored for a search (what clients were shown), or null when none is stored:
 * a booking's price check compares the hotel's current price with it.
 */
export async function findStoredRooms(db: Queryable, key: SearchKey): Promise<Room[] | null> {
  const result = await db.query<{ body: string }>({
    name: 'find-stored-rooms',
    text: 'SELECT body FROM rate_results WHERE hotel_id = $1 AND check_in = $2 AND nights = $3 AND guests = $4',
    values: [key.hotelId, key.checkIn, key.nights, key.guests],
  });
  const body = result.rows[0]?.body;
  return body ? (JSON.parse(body) as { rooms: Room[] }).rooms : null;
}
