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

/** How long a pool waits for a new connection before it fails the request (a store outage). */
const connectLimitMs = 10_000;

export function createPool(databaseUrl: string, max = 10, events: PoolEvents = {}): pg.Pool {
  // A connection attempt to a server cut off by the network gets no answer at all: without a limit
  // it waits out TCP's SYN retries (about two minutes) while a new attempt would get through at once
  // after the heal. pg-pool destroys the attempt's socket when the limit passes.
  const pool = new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: connectLimitMs });
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

/** The error of a statement that did not end in time: a store outage, like a refused connection. */
export class StatementTimedOut extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(limitMs: number) {
    super(`the database did not answer within ${limitMs} ms; the connection was dropped`);
    this.name = 'StatementTimedOut';
  }
}

/**
 * A transaction that must end within `limitMs`, for a record that is retried until it is in (a
 * definite outcome read from the outside world). After a network cut, a connection whose packets
 * went unanswered is in TCP's retransmission backoff and may stay silent for tens of seconds after
 * the network is back, and the pool's connections may all be held by statements sent during the
 * cut; waiting on either would hold the record that long. So each attempt opens a connection of
 * its own, outside the pool (with the pool's settings), and past the limit destroys it: the
 * error is a store outage and the caller's next attempt's new connection gets through as soon as
 * the server can be reached. A transaction cut off that way either never reached COMMIT (the
 * server rolls it back when the connection closes) or committed without our knowing, so the work
 * must be safe to run again.
 */
export async function withTransactionWithin<T>(pool: pg.Pool, limitMs: number, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  // pg-pool keeps the settings it was made with (connection string, TLS, …) as `options`.
  const settings = (pool as unknown as { options: pg.ClientConfig }).options;
  const client = new pg.Client({ ...settings, connectionTimeoutMillis: limitMs });
  // A connection cut under a statement fails that statement, not the process.
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StatementTimedOut(limitMs)), limitMs);
  });
  const run = (async () => {
    await client.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  })();
  // The losing side of the race must not end as an unhandled rejection.
  run.catch(() => {});
  try {
    return await Promise.race([run, timedOut]);
  } finally {
    clearTimeout(timer);
    // Destroyed, never ended politely: a polite end would queue behind the silent statement.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    void client.end().catch(() => {});
  }
}
