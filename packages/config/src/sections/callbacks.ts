import { z } from 'zod';
import { ConfigError } from '../config-error.ts';
import { positiveMs, type VariablesOf } from './section.ts';

export const callbacksVariables = {
  // Recruitment's callbacks (ADR 0053); README "Callbacks" documents each.
  CALLBACK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(100),
  CALLBACK_CLIENT_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(50),
  CALLBACK_TIMEOUT_MS: positiveMs.default(15_000),
  CALLBACK_RETRY_BASE_MS: positiveMs.default(5_000),
  CALLBACK_RETRY_MAX_MS: positiveMs.default(3_600_000),
  CALLBACK_GIVE_UP_AFTER_MS: positiveMs.default(86_400_000),
  CALLBACK_RELAY_POLL_MS: positiveMs.default(100),
  CALLBACK_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
};

/** Recruitment's callbacks: their delivery (the `callbacks.deliver` job) and their relay. */
export const readCallbacks = (vars: VariablesOf<typeof callbacksVariables>) => {
  // One client's events in flight may be one per job: were its cap near the process's job slots, one
  // slow receiver would hold every slot of a process and the other clients' callbacks would wait.
  if (vars.CALLBACK_CONCURRENCY < 2 * vars.CALLBACK_CLIENT_CONCURRENCY) {
    throw new ConfigError([
      "CALLBACK_CONCURRENCY must be at least twice CALLBACK_CLIENT_CONCURRENCY, so that one slow receiver holds at most half of a process's deliveries",
    ]);
  }
  return {
    callbacks: {
      /** `callbacks.deliver` jobs at once per process (each up to `eventsPerJob` POSTs of one client). */
      concurrency: vars.CALLBACK_CONCURRENCY,
      /** Events of one client in flight at once, across every process. */
      clientConcurrency: vars.CALLBACK_CLIENT_CONCURRENCY,
      eventsPerJob: 25,
      timeoutMs: vars.CALLBACK_TIMEOUT_MS,
      retryBaseMs: vars.CALLBACK_RETRY_BASE_MS,
      retryMaxMs: vars.CALLBACK_RETRY_MAX_MS,
      giveUpAfterMs: vars.CALLBACK_GIVE_UP_AFTER_MS,
      relayPollMs: vars.CALLBACK_RELAY_POLL_MS,
      retentionMs: vars.CALLBACK_RETENTION_DAYS * 86_400_000,
    },
  };
};
