import { MinedForm, type AtsEndpointName, type Question } from '@quarry/contracts';
import type { SafeFetch } from '@quarry/safe-fetch';
import { MiningFailure, NotThisAdapter, readText, request, type AdapterContext, type AtsAdapter } from './adapter-support.ts';
import { ashbyAdapter } from './ashby.adapter.ts';
import { detectAts, type AtsName, type AtsTarget } from './ats-detect.ts';
import { bambooAdapter } from './bamboohr.adapter.ts';
import { breezyAdapter } from './breezy.adapter.ts';
import { findEmbeddedPosting } from './embedded-ats.ts';
import { greenhouseAdapter } from './greenhouse.adapter.ts';
import { createHtmlPageMiner } from './html-page.miner.ts';
import { jazzAdapter } from './jazzhr.adapter.ts';
import { leverAdapter } from './lever.adapter.ts';
import { manatalAdapter } from './manatal.adapter.ts';
import type { JobPostToMine, Miner, MineOutcome, MiningAccess } from './miner-port.ts';
import { recruiteeAdapter } from './recruitee.adapter.ts';
import { smartRecruitersAdapter } from './smartrecruiters.adapter.ts';
import { syntheticAnswers } from './synthetic-answers.ts';
import { teamtailorAdapter } from './teamtailor.adapter.ts';
import { workableAdapter } from './workable.adapter.ts';
import { workdayWithoutAccount } from './browser/workday.miner.ts';
import { workdayBoardOf } from './workday-board.ts';

/**
 * Every third-party base URL an adapter calls. `{company}` is the employer's subdomain and `{host}`
 * the posting's own host, so a deployment can route through a gateway and tests through loopback.
 */
export type MinerEndpoints = Record<AtsEndpointName, string>;

export const defaultMinerEndpoints: MinerEndpoints = {
  greenhouseApi: 'https://boards-api.greenhouse.io',
  greenhouseBoards: 'https://boards.greenhouse.io',
  lever: 'https://{host}',
  ashby: 'https://jobs.ashbyhq.com',
  workable: 'https://apply.workable.com',
  smartRecruitersApi: 'https://api.smartrecruiters.com',
  smartRecruitersJobs: 'https://jobs.smartrecruiters.com',
  bamboohr: 'https://{company}.bamboohr.com',
  recruitee: 'https://{company}.recruitee.com',
  teamtailor: 'https://{host}',
  jazzhr: 'https://{company}.applytojob.com',
  breezy: 'https://{company}.breezy.hr',
  manatal: 'https://www.careers-page.com',
  // Not read by the miner: the vendor APIs the applications' API transports post to.
  leverApi: 'https://{host}',
  ashbyApi: 'https://api.ashbyhq.com',
  // `{company}` is the Workable account's subdomain, the board its key was registered for.
  workableApi: 'https://{company}.workable.com',
  bamboohrApi: 'https://api.bamboohr.com',
  jazzhrApi: 'https://api.resumatorapi.com',
  breezyApi: 'https://api.breezy.hr',
  teamtailorApi: 'https://api.teamtailor.com',
};

export type CreateMinerOptions = {
  fetch: SafeFetch;
  timeoutMs: number;
  endpoints?: Partial<MinerEndpoints>;
  /** The last resort for a page whose form only exists once its scripts run (createBrowserFormMiner). */
  browser?: Miner | undefined;
  /** Workday's application behind the client's tenant account (createWorkdayMiner); it needs a browser. */
  workday?: Miner | undefined;
};

type Adapters = { [Name in AtsName]: AtsAdapter<Extract<AtsTarget, { ats: Name }>> };

// ATSs whose form exists only behind a sign-in in a browser, for which no account can be
// registered (iCIMS; a myworkdaysite.com address that names no tenant): a plain fetch would
// report a misleading FormNotFound, so say plainly that we do not mine them.
const browserOnlyHosts = /(^|\.)myworkdaysite\.com$|(^|\.)icims\.com$/i;

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * The miner: recognises the ATS from the URL and reads its public form definition; any other page
 * goes to the generic server-rendered HTML miner. Every result is validated against the contract.
 */
export function createMiner(options: CreateMinerOptions): Miner {
  const endpoints = { ...defaultMinerEndpoints, ...options.endpoints };
  const htmlMiner = createHtmlPageMiner({ fetch: options.fetch, timeoutMs: options.timeoutMs });
  const adapters: Adapters = {
    greenhouse: greenhouseAdapter({ apiBaseUrl: endpoints.greenhouseApi, boardsBaseUrl: endpoints.greenhouseBoards }),
    lever: leverAdapter(endpoints.lever),
    ashby: ashbyAdapter(endpoints.ashby),
    workable: workableAdapter(endpoints.workable),
    smartrecruiters: smartRecruitersAdapter({ apiBaseUrl: endpoints.smartRecruitersApi, jobsBaseUrl: endpoints.smartRecruitersJobs }),
    bamboohr: bambooAdapter(endpoints.bamboohr),
    recruitee: recruiteeAdapter(endpoints.recruitee),
    teamtailor: teamtailorAdapter(endpoints.teamtailor),
    jazzhr: jazzAdapter(endpoints.jazzhr),
    breezy: breezyAdapter(endpoints.breezy),
    manatal: manatalAdapter(endpoints.manatal),
  };

  const mineWithAdapter = async (
    target: AtsTarget,
    jobPost: JobPostToMine,
    signal: AbortSignal,
    access?: MiningAccess,
  ): Promise<MineOutcome> => {
    const adapter = adapters[target.ats] as AtsAdapter<AtsTarget>;
    // The key goes only to the adapter of its own vendor.
    const credential = access?.credential?.ats === target.ats ? access.credential : undefined;
    const context: AdapterContext = {
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      signal,
      jobPost,
      ...(credential ? { credential } : {}),
    };
    let questions: Question[];
    try {
      questions = await adapter(target, context);
    } catch (error) {
      if (error instanceof NotThisAdapter) return htmlMiner(jobPost, signal);
      // The job's own deadline or a shutdown aborted us: that is the runtime's business, not the site's.
      if (signal.aborted) throw error;
      if (error instanceof MiningFailure) return { ok: false, errorCode: error.errorCode, adapter: target.ats, detail: error.message };
      throw error;
    }
    if (questions.length === 0)
      return { ok: false, errorCode: 'FormNotFound', adapter: target.ats, detail: 'the form definition has no questions' };
    const form = MinedForm.safeParse({ questions, answers: syntheticAnswers(questions) });
    if (!form.success)
      return {
        ok: false,
        errorCode: 'GenericWebsiteError',
        adapter: target.ats,
        detail: `mined form failed validation: ${form.error.message.slice(0, 500)}`,
      };
    return { ok: true, form: form.data, adapter: target.ats };
  };

  /** A page with no form of its own may embed or link one ATS posting: mine that instead. */
  const mineEmbedded = async (jobPost: JobPostToMine, signal: AbortSignal, pageOutcome: MineOutcome): Promise<MineOutcome> => {
    const context: AdapterContext = { fetch: options.fetch, timeoutMs: options.timeoutMs, signal, jobPost };
    let embedded: string | null;
    try {
      embedded = findEmbeddedPosting(
        await readText(await request(context, jobPost.url, { headers: { accept: 'text/html' } })),
        jobPost.url,
      );
    } catch (error) {
      if (signal.aborted) throw error;
      return pageOutcome;
    }
    const target = embedded ? detectAts(embedded) : null;
    if (!embedded || !target) return pageOutcome;
    return mineWithAdapter(target, { ...jobPost, url: embedded }, signal);
  };

  return async (jobPost, signal, access): Promise<MineOutcome> => {
    const target = detectAts(jobPost.url);
    if (target) return mineWithAdapter(target, jobPost, signal, access);
    // The account goes to the Workday miner only, and only for a Workday tenant's posting
    // (its own host, or a myworkdaysite.com path naming it).
    if (workdayBoardOf(jobPost.url)) {
      if (!access?.account) return workdayWithoutAccount(jobPost.url);
      if (!options.workday)
        return {
          ok: false,
          errorCode: 'UnsupportedWebsite',
          adapter: 'workday',
          detail: 'Workday is read in a browser, and this deployment runs none (MINING_BROWSER=off)',
        };
      return options.workday(jobPost, signal, { account: access.account });
    }
    if (browserOnlyHosts.test(hostOf(jobPost.url))) {
      return {
        ok: false,
        errorCode: 'UnsupportedWebsite',
        adapter: null,
        detail: 'this ATS needs a signed-in browser session; not mined yet',
      };
    }
    const outcome = await htmlMiner(jobPost, signal);
    if (outcome.ok || outcome.errorCode !== 'FormNotFound') return outcome;
    const embedded = await mineEmbedded(jobPost, signal, outcome);
    // Cheapest source first: only a page with no form in its HTML costs a browser.
    return !embedded.ok && embedded.errorCode === 'FormNotFound' && options.browser ? options.browser(jobPost, signal) : embedded;
  };
}
