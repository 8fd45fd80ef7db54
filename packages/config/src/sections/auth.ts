import { z } from 'zod';
import type { VariablesOf } from './section.ts';

export const authVariables = {
  JWT_JWKS_URL: z.url().optional(),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  AUTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(5_000),
  // Failed authentications (API and dashboard sign-in) allowed per window before 429 (ADR 0030).
  AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(30),
  AUTH_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(20),
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
};

export const readAuth = (vars: VariablesOf<typeof authVariables>) => ({
  jwt: { jwksUrl: vars.JWT_JWKS_URL, issuer: vars.JWT_ISSUER, audience: vars.JWT_AUDIENCE },
  authCacheMs: vars.AUTH_CACHE_MS,
  /** Failed authentications allowed per client address and per client id within the window, across all processes. */
  authFailures: {
    perAddress: vars.AUTH_FAILURES_PER_ADDRESS,
    perClient: vars.AUTH_FAILURES_PER_CLIENT,
    windowSeconds: vars.AUTH_FAILURE_WINDOW_SECONDS,
  },
});
