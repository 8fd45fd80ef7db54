import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const retrievalVariables = {
  RETRIEVAL_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  RETRIEVAL_CACHE_TTL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
  // Bookings' statuses an API process serves without a query, dropped at every committed change.
  BOOKING_STATUS_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(16),
};

export const readRetrieval = (vars: VariablesOf<typeof retrievalVariables>) => ({
  /** Completed retrieval answers an API process keeps (0 turns it off), and how long at most. */
  retrievalCache: { maxBytes: vars.RETRIEVAL_CACHE_MB * 1024 * 1024, ttlMs: vars.RETRIEVAL_CACHE_TTL_MS },
  // Announced by Postgres at every commit, so the TTL only bounds memory held by finished bookings.
  bookingStatusCache: { maxBytes: vars.BOOKING_STATUS_CACHE_MB * 1024 * 1024, ttlMs: 10 * 60_000 },
});
