import { MinedForm } from '@quarry/contracts';
import { errors as playwrightErrors } from 'playwright-core';
import type { Miner, MineOutcome } from '../miner-port.ts';
import { syntheticAnswers } from '../synthetic-answers.ts';
import { closeWithin, type ChromiumPool } from '@quarry/browser';
import { probeConditionals } from './conditional-probe.ts';
import { fieldsToQuestions, type FormSnapshot } from './form-fields.ts';
import { minerPageScript, readComboboxOptions, settle, snapshotPage } from './page-snapshot.ts';
import { createHostGuard, httpUrlOf } from '@quarry/safe-fetch';
import { codeOfUnsafeUrl } from '../unsafe-url-failure.ts';
import { walkWizardSteps } from './wizard-steps.ts';

const adapter = 'browser';
const closedPosting =
  /no longer (accepting|available|open)|(position|job|posting|vacancy) (has been |is )?(closed|filled|expired)|applications? (are |is )?closed/i;
const botWall = /captcha|verify you are (a )?human|unusual traffic|access denied/i;

export type BrowserMinerOptions = {
  pool: ChromiumPool;
  allowPrivate: string[];
  timeoutMs: number;
  /** How deep conditional questions are probed (an option revealing a question revealing another: 2). */
  probeDepth: number;
  /** Upper bound on options chosen while probing one form. */
  maxProbeChoices: number;
  settleMs?: number;
  /** Steps of a multi-step form to walk through (the first included). */
  maxSteps?: number;
};

function failed(errorCode: Extract<MineOutcome, { ok: false }>['errorCode'], detail: string): MineOutcome {
  return { ok: false, errorCode, adapter, detail };
}

/**
 * A login wall is a password box with little else around it; an application form that also asks
 * the candidate to create a password (some ATSs do) is still a form.
 */
const hasLoginWall = (snapshot: FormSnapshot): boolean => snapshot.passwords > 0 && snapshot.fields.length <= 3;

/**
 * The generic engine: any careers page, driven in headless Chromium. Reads every control of every
 * frame and open shadow root, opens custom comboboxes for their options and probes selects and
 * radio groups for conditional questions. Every request of the page passes the SSRF guard.
 */
export function createBrowserFormMiner(options: BrowserMinerOptions): Miner {
  return async (jobPost, signal) => {
    const url = httpUrlOf(jobPost.url);
    if (!url) return failed('UrlInvalid', 'not an absolute http(s) URL');
    const allowed = createHostGuard(options.allowPrivate);
    const refusal = await allowed.refusalOf(url);
    if (refusal) return failed(codeOfUnsafeUrl(refusal), refusal.message);
    return options.pool.withContext(async (context) => {
      // From the moment a context is free: a job that waited for a slot still gets its full time.
      const deadline = Date.now() + options.timeoutMs;
      await context.addInitScript({ content: minerPageScript });
      await context.route('**/*', async (route) =>
        (await allowed(route.request().url())) ? route.continue() : route.abort('blockedbyclient'),
      );
      const page = await context.newPage();
      const abort = () => void page.close().catch(() => {});
      signal.addEventListener('abort', abort, { once: true });
      try {
        page.setDefaultTimeout(Math.min(10_000, options.timeoutMs));
        let response;
        try {
          response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: options.timeoutMs });
        } catch (error) {
          if (error instanceof playwrightErrors.TimeoutError) return failed('NavigationTimeout', `no page in ${options.timeoutMs} ms`);
          return failed('GenericWebsiteError', (error as Error).message.split('\n')[0] ?? 'navigation failed');
        }
        const status = response?.status() ?? 200;
        if (status === 404 || status === 410) return failed('JobNotFound', `HTTP ${status}`);
        if (status === 401) return failed('LoginRequired', 'HTTP 401');
        if (status === 403 || status === 429) return failed('BotDetection', `HTTP ${status}`);
        if (status >= 400) return failed('GenericWebsiteError', `HTTP ${status}`);
        // Script-rendered forms appear after load: wait for the DOM to go quiet, not for network idle.
        await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => {});
        await settle(page, 250, 3_000);

        const snapshot = await snapshotPage(page);
        if (hasLoginWall(snapshot)) return failed('LoginRequired', 'a sign-in form instead of an application form');
        if (snapshot.fields.length === 0) {
          if (closedPosting.test(snapshot.text)) return failed('JobExpired', 'the page says the posting is closed');
          if (botWall.test(snapshot.text) || (await page.locator('.g-recaptcha, .h-captcha, iframe[src*="captcha"]').count()) > 0) {
            return failed('BotDetection', 'captcha or bot wall instead of a form');
          }
          return failed('FormNotFound', 'no form controls on the page');
        }
        for (const field of snapshot.fields) {
          if (field.combobox && field.options.length === 0) field.options = await readComboboxOptions(page, field);
        }
        const built = fieldsToQuestions(snapshot.fields, jobPost.jobTitle);
        // One budget of option choices for the whole form, every wizard step included.
        const budget = { choices: options.maxProbeChoices, deadline, settleMs: options.settleMs ?? 300 };
        await probeConditionals(page, snapshot, built.byKey, { maxDepth: options.probeDepth, defaultLabel: jobPost.jobTitle, budget });
        const later = await walkWizardSteps(
          page,
          { fields: snapshot.fields, questions: built.byKey },
          {
            maxSteps: options.maxSteps ?? 6,
            defaultLabel: jobPost.jobTitle,
            deadline,
            probeStep: (stepSnapshot, questions) =>
              probeConditionals(page, stepSnapshot, questions, {
                maxDepth: options.probeDepth,
                defaultLabel: jobPost.jobTitle,
                budget,
                reloadable: false,
              }),
          },
        );
        if (later.loginWall) return failed('LoginRequired', 'an account wall appeared on a later step');
        const questions = [...built.questions, ...later.questions];
        const answers = syntheticAnswers(questions);
        const form = MinedForm.safeParse({ questions, answers });
        if (!form.success) return failed('GenericWebsiteError', `extracted form failed validation: ${form.error.message.slice(0, 300)}`);
        return { ok: true, form: form.data, adapter };
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (error instanceof playwrightErrors.TimeoutError)
          return failed('NavigationTimeout', (error as Error).message.split('\n')[0] ?? 'timeout');
        throw error;
      } finally {
        signal.removeEventListener('abort', abort);
        await closeWithin(page);
      }
    });
  };
}
