import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

export const ratesVariables = {
  // Hotel rates; README "Hotel rates feed" documents each.
  RATES_HORIZON_DAYS: z.coerce.number().int().min(1).max(500).default(90),
  RATES_NIGHTS: z
    .string()
    .default('1')
    .refine(
      (value) => value.split(',').every((nights) => /^\s*\d+\s*$/.test(nights) && Number(nights) >= 1 && Number(nights) <= 30),
      'must be comma-separated integers 1..30',
    ),
  RATES_FRESHNESS_MS: positiveMs.default(60 * 60_000),
  RATES_REFRESH_NEAR_MS: positiveMs.default(15 * 60_000),
  RATES_REFRESH_MID_MS: positiveMs.default(60 * 60_000),
  RATES_REFRESH_FAR_MS: positiveMs.default(6 * 60 * 60_000),
  RATES_SCHEDULE_EVERY_MS: positiveMs.default(60_000),
  RATES_PULL_DEADLINE_MS: positiveMs.default(3_000),
  RATES_SOURCE_TIMEOUT_MS: positiveMs.default(45_000),
  RATES_SOURCE_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  RATES_SOURCE_PER_SECOND: z.coerce.number().min(0).max(1000).default(2),
  RATES_PUSH_TIMEOUT_MS: positiveMs.default(5 * 60_000),
  RATES_PUSH_BACKOFF_BASE_MS: positiveMs.default(5_000),
  RATES_PUSH_BACKOFF_MAX_MS: positiveMs.default(10 * 60_000),
  RATES_PUSH_SUSPEND_AFTER_MS: positiveMs.default(24 * 3600_000),
  RATES_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  RATES_PUSH_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(256),
  RATES_PULL_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(128),
  RATES_PUSH_MAX_MB: z.coerce.number().int().min(1).max(10_240).default(50),
};

export const readRates = (vars: VariablesOf<typeof ratesVariables>) => ({
  rates: {
    horizonDays: vars.RATES_HORIZON_DAYS,
    nights: [...new Set(vars.RATES_NIGHTS.split(',').map((nights) => Number(nights.trim())))],
    freshnessMs: vars.RATES_FRESHNESS_MS,
    refreshNearMs: vars.RATES_REFRESH_NEAR_MS,
    refreshMidMs: vars.RATES_REFRESH_MID_MS,
    refreshFarMs: vars.RATES_REFRESH_FAR_MS,
    scheduleEveryMs: vars.RATES_SCHEDULE_EVERY_MS,
    pullDeadlineMs: vars.RATES_PULL_DEADLINE_MS,
    sourceTimeoutMs: vars.RATES_SOURCE_TIMEOUT_MS,
    sourceConcurrency: vars.RATES_SOURCE_CONCURRENCY,
    sourcePerSecond: vars.RATES_SOURCE_PER_SECOND,
    pushTimeoutMs: vars.RATES_PUSH_TIMEOUT_MS,
    pushBackoffBaseMs: vars.RATES_PUSH_BACKOFF_BASE_MS,
    pushBackoffMaxMs: vars.RATES_PUSH_BACKOFF_MAX_MS,
    pushSuspendAfterMs: vars.RATES_PUSH_SUSPEND_AFTER_MS,
    chromiumPath: vars.RATES_CHROMIUM_PATH,
    pushCacheBytes: vars.RATES_PUSH_CACHE_MB * 1024 * 1024,
    pullCacheBytes: vars.RATES_PULL_CACHE_MB * 1024 * 1024,
    pushMaxBytes: vars.RATES_PUSH_MAX_MB * 1024 * 1024,
  },
});
