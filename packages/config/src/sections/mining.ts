import { atsEndpointNames } from '@quarry/contracts';
import { z } from 'zod';
import { positiveMs, type VariablesOf } from './section.ts';

/** A vendor base URL; `{host}` / `{company}` placeholders are filled from the posting URL. */
const endpointUrl = z.string().regex(/^https?:\/\/\S+$/, 'must be an http(s) URL (placeholders {host} and {company} allowed)');
/** `MINING_ATS_ENDPOINTS`: a JSON object overriding some vendor base URLs (a gateway, a test server). */
const atsEndpoints = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a JSON object, e.g. {"greenhouseApi":"https://gateway.internal/greenhouse"}' });
      return z.NEVER;
    }
  })
  // Only the vendors' names, each at most once: an unknown name is refused, not ignored.
  .pipe(z.partialRecord(z.enum(atsEndpointNames), endpointUrl));

export const miningVariables = {
  // Recruitment mining; README "Recruitment" documents each.
  MINING_PAGE_TIMEOUT_MS: positiveMs.default(30_000),
  MINING_BATCH_POLL_MS: positiveMs.default(2_000),
  // Mining's own switch: `off` mines without Chromium (the process's other roles keep theirs).
  MINING_BROWSER: z.enum(['on', 'off']).default('on'),
  MINING_ATS_ENDPOINTS: atsEndpoints.default({}),
  MINING_PROBE_DEPTH: z.coerce.number().int().min(0).max(4).default(2),
};

export const readMining = (vars: VariablesOf<typeof miningVariables>) => ({
  mining: {
    pageTimeoutMs: vars.MINING_PAGE_TIMEOUT_MS,
    batchPollMs: vars.MINING_BATCH_POLL_MS,
    /** Whether mining renders pages in Chromium (`MINING_BROWSER`), and how deep it probes conditional questions there. */
    browser: { enabled: vars.MINING_BROWSER === 'on', probeDepth: vars.MINING_PROBE_DEPTH },
    /** Vendor base URLs overriding the adapters' defaults (only the ones given). */
    atsEndpoints: vars.MINING_ATS_ENDPOINTS,
  },
});
