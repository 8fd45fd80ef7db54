import pg from 'pg';

/** The one thing query modules need: run a statement. A Pool, a PoolClient in a transaction, both fit. */
export type Queryable = Pick<pg.Pool, 'query'>;
export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/** What a pool tells its owner about the server: a connection lost, and a new one made after. */
export type PoolEvents = {
  onConnectionError?: (error: Error) => void;
  onConnected?: () => void;
};

export function createPool(databaseUrl: string, max = 10, events: PoolEvents = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 30_000 });
  const lost = (error: Error) => events.onConnectionError?.(error);
  // An idle client losing its connection (Postgres restart): the pool drops it and replaces it on
  // next use.
  pool.on('error', lost);
  pool.on('connect', (client) => {
    // pg-pool listens for a client's errors only while it is idle; a checked-out client (a
    // transaction, a held advisory-lock session) whose connection dies emits 'error' with no
    // listener, and an unhandled 'error' event ends the process. Its query fails on its own.
    client.on('error', lost);
    events.onConnected?.();
  });
  return pool;
}

/**
 * A single connection outside any pool (migrations, database creation), with its 'error' event
 * handled: a connection cut by the server then fails the statement in flight, not the process.
 */
export function createClient(databaseUrl: string): pg.Client {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  return client;
}

export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
