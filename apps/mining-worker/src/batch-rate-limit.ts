/**
 * BullMQ's limiter lets `max` jobs start at once and then waits out `duration`. A window of a
 * minute would start a whole minute's rows in its first seconds; the smallest window that keeps
 * at least 10 ms between starts spreads the rate evenly instead (120 a minute: one every 500 ms).
 */
export function batchRateLimit(ratePerMinute: number): { max: number; durationMs: number } {
  const max = Math.max(1, Math.ceil(ratePerMinute / 6_000));
  return { max, durationMs: Math.max(1, Math.round((60_000 * max) / ratePerMinute)) };
}
