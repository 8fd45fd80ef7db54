import { MinedForm, type Question } from '@quarry/contracts';
import type { Lookup } from '@quarry/safe-fetch';
import { errors as playwrightErrors, type Page } from 'playwright-core';
import type { MineOutcome, Miner, TenantAccount } from '../miner-port.ts';
import { syntheticAnswers } from '../synthetic-answers.ts';
import {
  closeWithin,
  createSignInMemory,
  followToForm,
  showsWall,
  signInOnce,
  type AccountWall,
  type ChromiumPool,
  type SignInMemory,
} from '@quarry/browser';
import { settle } from './page-snapshot.ts';
import { createHostGuard, httpUrlOf } from '@quarry/safe-fetch';
import { codeOfUnsafeUrl } from '../unsafe-url-failure.ts';
import { workdayBoardOfPage } from '../workday-board.ts';
import { fillPlaceholders, hasNextStep, readStep, saveStep, StepRefused, stepQuestions } from './workday-steps.ts';

const adapter = 'workday';

/** Workday's account wall and its sign-in form (the applier's Workday recipe signs in with the same). */
export const workdayAccountWall: AccountWall = {
  ats: 'workday',
  vendor: 'Workday',
  wall: '[data-automation-id="signInContent"], [data-automation-id="createAccountLink"], [data-automation-id="signInLink"]',
  open: '[data-automation-id="signInLink"]',
  email: '[data-automation-id="signInContent"] [data-automation-id="email"]',
  password: '[data-automation-id="signInContent"] [data-automation-id="password"]',
  submit: '[data-automation-id="signInSubmitButton"]',
  error: '[data-automation-id="signInContent"] [data-automation-id="errorMessage"]',
  // A code e-mailed to the account after its password (modelled: no capture of Workday's page;
  // a one-time-code box is what such pages carry).
  emailCode: '[data-automation-id="verificationCode"], input[autocomplete="one-time-code"]',
  // A tenant's own host, or host and tenant on the shared myworkdaysite.com hosts.
  boardOf: workdayBoardOfPage,
};

/** From the posting to the application: Apply, then "Apply Manually" on "Start Your Application". */
export const workdayFormLinks = ['[data-automation-id="adventureButton"]', '[data-automation-id="applyManually"]'] as const;

/** A closed or removed posting: the same words on every closed page measured, and no Apply. */
const notThere = /the page you are looking for doesn'?t exist/i;
const closedPage = '[data-automation-id="errorContainer"]';

async function isClosed(page: Page): Promise<boolean> {
  if ((await page.locator(workdayFormLinks[0]).count()) > 0) return false;
  return notThere.test(
    (await page
      .locator('body')
      .textContent()
      .catch(() => '')) ?? '',
  );
}

export type WorkdayMinerOptions = {
  pool: ChromiumPool;
  allowPrivate: string[];
  /** Name resolution for the SSRF guard (the system's by default). */
  lookup?: Lookup;
  /** The whole mining, from a free browser context to the last step read. */
  timeoutMs: number;
  /** Steps read at most (Workday's have five: four with questions, then Review). */
  maxSteps?: number;
  /** Sign-ins refused and under way, shared with whatever else signs in for this process. */
  signIns?: SignInMemory;
};

function failed(errorCode: Extract<MineOutcome, { ok: false }>['errorCode'], detail: string): MineOutcome {
  return { ok: false, errorCode, adapter, detail };
}

/** Without an account no browser is needed: every Workday application is behind the wall. */
export function workdayWithoutAccount(url: string): MineOutcome {
  const board = workdayBoardOfPage(new URL(url));
  return failed(
    'LoginRequired',
    `Workday keeps the application behind a candidate account on ${board}; the client registered none for it (POST /v1/recruitment/ats-credentials)`,
  );
}

/**
 * Mines a Workday posting with the client's candidate account on its tenant: opens the posting,
 * follows Apply and Apply Manually to the account wall, signs in once (on the account's own host
 * only), then reads every step's questions by Workday's field keys. A later step exists only once
 * the one before is saved, so each step's required fields get the synthetic answers and "Save and
 * Continue" is pressed: that keeps a draft in the candidate's account, never an application.
 * Reading stops at the step without questions (Review); its Submit is never pressed.
 */
export function createWorkdayMiner(options: WorkdayMinerOptions): Miner {
  const signIns = options.signIns ?? createSignInMemory();
  return async (jobPost, signal, access) => {
    const url = httpUrlOf(jobPost.url);
    if (!url) return failed('UrlInvalid', 'not an absolute http(s) URL');
    const account = access?.account;
    if (!account) return workdayWithoutAccount(url.href);
    const allowed = createHostGuard(options.allowPrivate, options.lookup);
    const refusal = await allowed.refusalOf(url);
    if (refusal) return failed(codeOfUnsafeUrl(refusal), refusal.message);
    return options.pool.withContext(async (context) => {
      const deadline = Date.now() + options.timeoutMs;
      await context.route('**/*', async (route) =>
        (await allowed(route.request().url())) ? route.continue() : route.abort('blockedbyclient'),
      );
      const page = await context.newPage();
      const abort = () => void page.close().catch(() => {});
      signal.addEventListener('abort', abort, { once: true });
      try {
        page.setDefaultTimeout(Math.min(10_000, options.timeoutMs));
        return await mine(page, url, account, deadline);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof StepRefused) return failed('GenericWebsiteError', error.message);
        if (error instanceof playwrightErrors.TimeoutError)
          return failed('NavigationTimeout', (error as Error).message.split('\n')[0] ?? 'timeout');
        throw error;
      } finally {
        signal.removeEventListener('abort', abort);
        await closeWithin(page);
      }
    });
  };

  async function mine(page: Page, url: URL, account: TenantAccount, deadline: number): Promise<MineOutcome> {
    let response;
    try {
      response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: Math.max(1_000, deadline - Date.now()) });
    } catch (error) {
      if (error instanceof playwrightErrors.TimeoutError) return failed('NavigationTimeout', `no page in ${options.timeoutMs} ms`);
      return failed('GenericWebsiteError', (error as Error).message.split('\n')[0] ?? 'navigation failed');
    }
    const status = response?.status() ?? 200;
    if (status === 404 || status === 410) return failed('JobNotFound', `HTTP ${status}`);
    if (status === 403 || status === 429) return failed('BotDetection', `HTTP ${status}`);
    if (status >= 400) return failed('GenericWebsiteError', `HTTP ${status}`);
    await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => {});
    // The posting is drawn after load: its Apply, or the closed page's words.
    await page
      .locator(`${workdayFormLinks[0]}, ${closedPage}`)
      .first()
      .waitFor({ state: 'attached', timeout: 8_000 })
      .catch(() => {});
    if (await isClosed(page)) return failed('JobNotFound', 'Workday says the page does not exist (the posting is closed or removed)');
    await followToForm(page, workdayFormLinks, workdayAccountWall);
    if (!(await showsWall(page, workdayAccountWall))) {
      if (await isClosed(page)) return failed('JobNotFound', 'Workday says the page does not exist (the posting is closed or removed)');
      return failed('FormNotFound', 'no account wall after Apply and Apply Manually: the posting has no Workday application');
    }
    const verdict = await signInOnce(page, workdayAccountWall, account, signIns);
    if (!verdict.signedIn) return failed(verdict.reason === 'emailCode' ? 'BotDetection' : 'LoginRequired', verdict.message);

    const questions: Question[] = [];
    for (let step = 1; step <= (options.maxSteps ?? 8); step += 1) {
      await settle(page, 250, 3_000);
      const shown = await readStep(page);
      // Review shows no field: what is left is Submit, which mining never presses.
      if (shown.fields.length === 0) break;
      const read = await stepQuestions(page, shown);
      questions.push(...read.filter((question) => !questions.some((earlier) => earlier.id === question.id)));
      if (!(await hasNextStep(page))) break;
      if (Date.now() > deadline) return failed('NavigationTimeout', `read ${step} step(s) of the Workday application before the deadline`);
      await fillPlaceholders(page, shown, read);
      await saveStep(page, shown.title, Math.max(1_000, Math.min(15_000, deadline - Date.now())));
    }
    if (questions.length === 0) return failed('FormNotFound', 'the Workday application showed no question after the sign-in');
    const form = MinedForm.safeParse({ questions, answers: syntheticAnswers(questions) });
    if (!form.success) return failed('GenericWebsiteError', `mined form failed validation: ${form.error.message.slice(0, 300)}`);
    return { ok: true, form: form.data, adapter };
  }
}
