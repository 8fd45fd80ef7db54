/**
 * Whether an error says a store (PostgreSQL, Redis) is unreachable rather than that the work or
 * its input is wrong. Such a failure is nobody's fault and passes when the store is back: a job
 * waits instead of spending its attempts, and an HTTP request answers 503 with Retry-After.
 */
export function isStoreOutage(error: unknown): boolean {
  return isOutage(error, 0);
}

// Node's network errors when a server is down, restarting or cut off.
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTCONN']);
// PostgreSQL SQLSTATEs of a server going away: 57P01 admin_shutdown, 57P02 crash_shutdown,
// 57P03 cannot_connect_now (starting or stopping), and class 08 (connection exception).
const postgresCodes = new Set(['57P01', '57P02', '57P03']);
const messages = [
  // node-postgres
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
  // ioredis, with its offline queue off (fail fast) or a request's retries used up
  /^Connection is closed\.?$/,
  /enableOfflineQueue options is false/,
  /^Reached the max retries per request limit/,
  /^LOADING /,
];

function isOutage(error: unknown, depth: number): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (networkCodes.has(code) || postgresCodes.has(code) || code.startsWith('08'))) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (messages.some((pattern) => pattern.test(error.message))) return true;
  // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) fails with every address's error.
  if (error instanceof AggregateError && error.errors.some((inner) => isOutage(inner, depth + 1))) return true;
  return isOutage(error.cause, depth + 1);
}
