import { Redis } from 'ioredis';

/** Where a connection reports losing Redis and getting it back (see createStoreHealth). */
export type RedisHealth = { lost(error: unknown): void; back(): void };

function watch(redis: Redis, health: RedisHealth | undefined): Redis {
  // Always a listener: ioredis prints every 'error' nobody listens to as a multi-line dump.
  redis.on('error', (error) => health?.lost(error));
  redis.on('ready', () => health?.back());
  return redis;
}

/**
 * A connection for workers and everything that waits for Redis. BullMQ requires
 * `maxRetriesPerRequest: null` on connections used by workers: a blocking command must wait for
 * Redis to come back rather than fail the worker loop.
 */
export function createRedis(url: string, options: { lazyConnect?: boolean; health?: RedisHealth; silentLimitMs?: number } = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    lazyConnect: options.lazyConnect ?? false,
    connectTimeout: connectLimitMs,
  });
  reconnectWhenSilent(redis, options.silentLimitMs ?? silentLimitMs);
  return watch(redis, options.health);
}

/** A new connection's attempt is given up (and made again) after this long: one made during a cut gets through soon after the heal. */
const connectLimitMs = 5_000;
/** A connection that has not answered a PING for this long is dropped and made again. */
const silentLimitMs = 5_000;

/**
 * A network cut closes nothing: the connection stays "ready" while what it sends goes unanswered,
 * and after the heal it stays silent until TCP's retransmission backoff next tries (tens of
 * seconds after a 30 s cut), while a new connection would get through at once. ioredis has no
 * such check (its `commandTimeout` fails a command but keeps the connection), so the connection
 * is probed with a PING; one left unanswered past the limit is dropped and made again, and
 * ioredis sends the commands that had no answer again on the new one (as after any reconnect).
 * Only for connections that never block (BullMQ duplicates the worker's connection for its
 * blocking commands, and a subscriber is a duplicate too): a blocked connection answers nothing.
 */
function reconnectWhenSilent(redis: Redis, limitMs: number): void {
  let probing = false;
  const probe = setInterval(
    () => {
      if (probing || redis.status !== 'ready') return;
      probing = true;
      let answered = false;
      // After the event loop's I/O phase: a process that was itself busy (or stopped) past the
      // limit reads the PONG that is waiting before it judges the connection silent.
      const silent = setTimeout(
        () =>
          setImmediate(() => {
            if (!answered && redis.status === 'ready') redis.disconnect(true);
          }),
        limitMs,
      );
      void redis
        .ping()
        .catch(() => undefined)
        .finally(() => {
          answered = true;
          clearTimeout(silent);
          probing = false;
        });
    },
    Math.max(250, Math.round(limitMs / 2)),
  );
  probe.unref();
  redis.on('end', () => clearInterval(probe));
}

/**
 * A connection for producers answering a caller (the API): while Redis is away its commands fail
 * at once instead of waiting in ioredis's offline queue, so a request answers 503 (or falls back
 * on Postgres) instead of hanging for the whole outage (BullMQ's "failing fast when Redis is
 * down"). It reconnects on its own like any other. Never give it to a worker.
 */
export function createProducerRedis(url: string, options: { health?: RedisHealth } = {}): Redis {
  // Reconnects every 250 ms (ioredis grows to 2 s): writes are refused while it is away, so it
  // must be back as soon as Redis is.
  return watch(
    new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, enableReadyCheck: true, retryStrategy: () => 250 }),
    options.health,
  );
}
