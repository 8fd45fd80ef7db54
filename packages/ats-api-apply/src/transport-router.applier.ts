import type { Applier } from '@quarry/hosted-form-apply';
import { detectAts, type AtsName, type MinerEndpoints } from '@quarry/miner';
import { ashbyApiApplier } from './ashby.api-applier.ts';
import { workableApiApplier } from './workable.api-applier.ts';
import { bambooApiApplier } from './bamboohr.api-applier.ts';
import { smartRecruitersApiApplier } from './smartrecruiters.api-applier.ts';
import { jazzApiApplier } from './jazzhr.api-applier.ts';
import { breezyApiApplier } from './breezy.api-applier.ts';
import { teamtailorApiApplier } from './teamtailor.api-applier.ts';
import { greenhouseApiApplier } from './greenhouse.api-applier.ts';
import { leverApiApplier, type VendorRateLimit } from './lever.api-applier.ts';
import { recruiteeApiApplier } from './recruitee.api-applier.ts';
import type { VendorApplier } from './vendor-transport.ts';

/** The vendor base URLs the API transports call (`MINING_ATS_ENDPOINTS`, the miner's too). */
export type AtsApiEndpoints = Pick<
  MinerEndpoints,
  | 'greenhouseApi'
  | 'leverApi'
  | 'recruitee'
  | 'ashby'
  | 'ashbyApi'
  | 'workable'
  | 'workableApi'
  | 'bamboohr'
  | 'bamboohrApi'
  | 'smartRecruitersApi'
  | 'jazzhrApi'
  | 'breezyApi'
  | 'teamtailorApi'
>;

export const defaultAtsApiEndpoints: AtsApiEndpoints = {
  greenhouseApi: 'https://boards-api.greenhouse.io',
  // `{host}` is api.lever.co, or api.eu.lever.co for a posting on jobs.eu.lever.co.
  leverApi: 'https://{host}',
  recruitee: 'https://{company}.recruitee.com',
  // The hosted jobs page's posting query (the miner's) and the API host.
  ashby: 'https://jobs.ashbyhq.com',
  ashbyApi: 'https://api.ashbyhq.com',
  // The public form (the miner's) and the account's SPI on its own subdomain.
  workable: 'https://apply.workable.com',
  workableApi: 'https://{company}.workable.com',
  // The careers page's job detail (the miner's) and the API host.
  bamboohr: 'https://{company}.bamboohr.com',
  bamboohrApi: 'https://api.bamboohr.com',
  // Both the public posting and the Application API.
  smartRecruitersApi: 'https://api.smartrecruiters.com',
  jazzhrApi: 'https://api.resumatorapi.com',
  breezyApi: 'https://api.breezy.hr',
  teamtailorApi: 'https://api.teamtailor.com',
};

export type AtsApplierOptions = {
  /** The hosted form in Chromium: every application no API transport takes. */
  hostedForm: Applier;
  endpoints?: Partial<AtsApiEndpoints>;
  timeoutMs: number;
  /** Spaces submissions per vendor board across every worker (Lever's 2 POST/s). */
  rateLimit: VendorRateLimit;
};

/**
 * Chooses the transport of each application: the vendor's API when the client registered the
 * employer's key for the posting's board (Greenhouse, Lever, Ashby, Workable, SmartRecruiters, BambooHR, JazzHR, Breezy, Teamtailor), or when the vendor's public endpoint
 * needs none (Recruitee); the hosted form otherwise, and also when the API cannot carry every
 * answer of this application (decided before anything is sent).
 */
export function createAtsApplier(options: AtsApplierOptions): Applier {
  const endpoints = { ...defaultAtsApiEndpoints, ...options.endpoints };
  const withKey: Partial<Record<AtsName, VendorApplier>> = {
    greenhouse: greenhouseApiApplier({ apiBaseUrl: endpoints.greenhouseApi, timeoutMs: options.timeoutMs, rateLimit: options.rateLimit }),
    lever: leverApiApplier({ apiBaseUrl: endpoints.leverApi, timeoutMs: options.timeoutMs, rateLimit: options.rateLimit }),
    workable: workableApiApplier({
      formBaseUrl: endpoints.workable,
      apiBaseUrl: endpoints.workableApi,
      timeoutMs: options.timeoutMs,
      rateLimit: options.rateLimit,
    }),
    bamboohr: bambooApiApplier({
      careersBaseUrl: endpoints.bamboohr,
      apiBaseUrl: endpoints.bamboohrApi,
      timeoutMs: options.timeoutMs,
      rateLimit: options.rateLimit,
    }),
    smartrecruiters: smartRecruitersApiApplier({
      apiBaseUrl: endpoints.smartRecruitersApi,
      timeoutMs: options.timeoutMs,
      rateLimit: options.rateLimit,
    }),
    jazzhr: jazzApiApplier({ apiBaseUrl: endpoints.jazzhrApi, timeoutMs: options.timeoutMs, rateLimit: options.rateLimit }),
    breezy: breezyApiApplier({ apiBaseUrl: endpoints.breezyApi, timeoutMs: options.timeoutMs, rateLimit: options.rateLimit }),
    teamtailor: teamtailorApiApplier({ apiBaseUrl: endpoints.teamtailorApi, timeoutMs: options.timeoutMs, rateLimit: options.rateLimit }),
    ashby: ashbyApiApplier({
      formBaseUrl: endpoints.ashby,
      apiBaseUrl: endpoints.ashbyApi,
      timeoutMs: options.timeoutMs,
      rateLimit: options.rateLimit,
    }),
  };
  const keyless: Partial<Record<AtsName, VendorApplier>> = {
    recruitee: recruiteeApiApplier({ baseUrl: endpoints.recruitee, timeoutMs: options.timeoutMs }),
  };
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    const api = target ? ((credential?.ats === target.ats ? withKey[target.ats] : undefined) ?? keyless[target.ats]) : undefined;
    if (!api || !target) return { ...(await options.hostedForm(application, hooks, signal)), transport: { kind: 'hostedForm' } };
    const outcome = await api(application, hooks, signal);
    if (outcome.status !== 'not-carried') return { ...outcome, transport: { kind: 'vendorApi', vendor: target.ats } };
    // The key stays with the API transports: the browser never needs it.
    const { credential: _credential, ...withoutKey } = application;
    const handedOver = await options.hostedForm(withoutKey, hooks, signal);
    const transport = { kind: 'hostedForm' as const, handedOverBecause: outcome.reason };
    // A hosted form that failed on its own says so beside why it was used at all.
    if (handedOver.status === 'failed' && !handedOver.submitted)
      return { ...handedOver, message: `${handedOver.message} (the hosted form was used because ${outcome.reason})`, transport };
    return { ...handedOver, transport };
  };
}
