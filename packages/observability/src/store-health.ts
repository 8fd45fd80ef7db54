import type { Logger } from 'pino';

export type StoreHealth = {
  /** A connection to the store failed. The first failure of an outage is logged; the rest are counted. */
  lost(error: unknown): void;
  /** A connection works again: one line saying so, with how long the store was gone. */
  back(): void;
  readonly down: boolean;
};

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message =
      error.message || (error instanceof AggregateError ? error.errors.map((inner: Error) => inner.message).join('; ') : error.name);
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/**
 * The log of one store (Postgres, Redis) across every connection of a process. During an
 * outage each connection reports every reconnect attempt; an operator needs one structured line
 * when the store is lost, one when it is back, and a reminder while it stays down, not one line
 * (or a stack trace) per attempt.
 */
export function createStoreHealth(
  logger: Logger,
  store: 'postgres' | 'redis',
  options: { remindEveryMs?: number; now?: () => number } = {},
): StoreHealth {
  const now = options.now ?? Date.now;
  const remindEveryMs = options.remindEveryMs ?? 60_000;
  let lostAt: number | null = null;
  let remindedAt = 0;
  let failures = 0;
  return {
    get down() {
      return lostAt !== null;
    },
    lost(error) {
      failures += 1;
      const at = now();
      if (lostAt === null) {
        lostAt = at;
        remindedAt = at;
        logger.warn({ store, reason: reasonOf(error) }, `${store} connection lost`);
      } else if (at - remindedAt >= remindEveryMs) {
        remindedAt = at;
        logger.warn({ store, reason: reasonOf(error), downMs: at - lostAt, failures }, `${store} still unavailable`);
      }
    },
    back() {
      if (lostAt === null) return;
      logger.info({ store, downMs: now() - lostAt, failures }, `${store} connection back`);
      lostAt = null;
      failures = 0;
    },
  };
}
