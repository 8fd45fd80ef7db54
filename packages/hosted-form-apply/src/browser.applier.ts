// Longer than 400 lines: one run of the hosted-form engine, from the sign-in wall to the outcome page;
// its steps share the page, the intent hook and the run's abort signal, read top to bottom.
import type { ApplicationErrorCode } from '@quarry/contracts';
import {
  closeWithin,
  createSignInMemory,
  followToForm,
  showsWall,
  signInOnce,
  type ChromiumPool,
  type SignInMemory,
} from '@quarry/browser';
import { locateQuestions, nextButton, settle, settleAfterInput, snapshotPage } from '@quarry/miner';
import { createHostGuard, httpUrlOf, type Lookup } from '@quarry/safe-fetch';
import { errors as playwrightErrors, type Frame, type Locator, type Page } from 'playwright-core';
import type { LocatedQuestion, RawField } from '@quarry/miner';
import type { Question } from '@quarry/contracts';
import type { Applier, ApplicationToSubmit, SubmitOutcome } from './applier-port.ts';
import { applierPageScript, callApplier } from './applier-page.ts';
import { botCheckHeaders, submitButtonText } from './application-page-rules.ts';
import { recipeFor, vendorTextOf, type AtsRecipe } from './ats-recipes.ts';
import { fillScoped } from './recipe-fill.ts';
import { emptyResumedDraft } from './resumed-draft.ts';
import { addInstance, FillError, fillQuestion, positionsOf, type FillContext } from './fill-question.ts';
import { botCheckMessage, classifyAfterClick, readPage, refusalOf, worstFieldError, type PageReading } from './outcome-page.ts';

export type BrowserApplierOptions = {
  pool: ChromiumPool;
  /** Hosts the page may reach although they resolve to private addresses (tests, an intranet ATS). */
  allowPrivate: string[];
  /** The whole application, from a free browser context to the outcome. */
  timeoutMs: number;
  /**
   * How long the page may take to show what followed the final click before the outcome is
   * `unknown`; by default, the rest of `timeoutMs`: a site slow to answer is waited for, since
   * "unknown" is only for when nobody could read the answer.
   */
  outcomeWaitMs?: number;
  /** Steps of a multi-step form to walk through (the first included). */
  maxSteps?: number;
  /** Name resolution for the SSRF guard (the system's by default). */
  lookup?: Lookup;
  /** Sign-ins refused and under way, shared with whatever else signs in for this process. */
  signIns?: SignInMemory;
};

/** Rounds of filling per step: a choice may reveal a question, whose answer may reveal another. */
const revealRounds = 4;

type FormSnapshot = Awaited<ReturnType<typeof snapshotPage>>;

const failedBefore = (errorCode: ApplicationErrorCode, message: string): SubmitOutcome => ({
  status: 'failed',
  errorCode,
  message,
  submitted: false,
});

/**
 * The generic engine: opens the job post in Chromium (every request through the SSRF guard),
 * finds the controls of the questions the miner mined by the same ids, fills every answer as a
 * person would (steps of a wizard included), calls `beforeSubmit` once, before the first write
 * the vendor keeps (the final click, or an earlier upload or saved answer its recipe names),
 * and reads the outcome from what the page shows.
 */
export function createBrowserApplier(options: BrowserApplierOptions): Applier {
  // Accounts a vendor refused, by fingerprint: never tried again (a wrong password tried by every
  // queued application would lock the account) until the client registers them anew.
  const signIns = options.signIns ?? createSignInMemory();
  return async (application, hooks, signal) => {
    const url = httpUrlOf(application.url);
    if (!url) return failedBefore('ApplicationFailed', 'the job post URL is not an absolute http(s) URL');
    const unanswered = application.questions.filter(
      (question) => question.mandatory && !application.answers.some((answer) => answer.id === question.id),
    );
    if (unanswered.length > 0)
      return failedBefore(
        'MandatoryQuestionsNotAnswered',
        `no answer to ${unanswered.map((question) => `${question.id} ("${question.question}")`).join(', ')}`,
      );
    const allowed = createHostGuard(options.allowPrivate, options.lookup);
    if (!(await allowed(url.href))) return failedBefore('ApplicationFailed', `refused: ${url.hostname} is not a public address`);

    return options.pool.withContext(async (context) => {
      const deadline = Date.now() + options.timeoutMs;
      await context.addInitScript({ content: applierPageScript });
      await context.route('**/*', async (route) =>
        (await allowed(route.request().url())) ? route.continue() : route.abort('blockedbyclient'),
      );
      const page = await context.newPage();
      const abort = () => void page.close().catch(() => {});
      signal.addEventListener('abort', abort, { once: true });
      let hookCalled = false;
      try {
        page.setDefaultTimeout(Math.min(10_000, options.timeoutMs));
        return await apply(page, application, url, deadline, async () => {
          hookCalled = true;
          await hooks.beforeSubmit();
        });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        // The hook's own failure: nothing was clicked, and the caller must hear it as it was thrown.
        if (error instanceof HookFailed) throw error.cause;
        if (hookCalled) return { status: 'unknown', message: `the engine failed after the final click was prepared: ${firstLine(error)}` };
        if (error instanceof playwrightErrors.TimeoutError)
          return failedBefore('ApplicationFailed', `the page did not respond in time: ${firstLine(error)}`);
        throw error;
      } finally {
        signal.removeEventListener('abort', abort);
        await closeWithin(page);
      }
    });

    async function apply(
      page: Page,
      application: ApplicationToSubmit,
      url: URL,
      deadline: number,
      beforeSubmit: () => Promise<void>,
    ): Promise<SubmitOutcome> {
      let response;
      try {
        response = await page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: Math.max(1_000, deadline - Date.now()) });
      } catch (error) {
        return failedBefore('ApplicationFailed', `the job post did not open: ${firstLine(error)}`);
      }
      const status = response?.status() ?? 200;
      await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => {});
      await settle(page, 250, 3_000);
      const recipe = await recipeFor(
        page,
        application.questions.map((question) => question.id),
      );
      const headers = response ? await response.allHeaders().catch(() => ({}) as Record<string, string>) : {};
      const walledBy = botCheckHeaders.find((check) => check.value.test(headers[check.header] ?? ''));
      const opening = await readPage(page);
      // A bot wall ends the application before anything is written (an upload, a saved answer).
      if (walledBy || opening.botCheck || opening.challenge || status === 403 || status === 429) {
        const reading = walledBy && !opening.botCheck ? { ...opening, botCheck: walledBy.vendor } : opening;
        if (reading.botCheck || reading.challenge || status === 403 || status === 429)
          return failedBefore(
            'BotDetection',
            reading.botCheck || reading.challenge
              ? botCheckMessage(reading, recipe)
              : `HTTP ${status}${recipe ? ` from ${recipe.vendor}` : ''}`,
          );
      }
      const vendorRefusal = status < 400 || status === 404 || status === 410 ? refusalOf(opening, recipe) : null;
      if (vendorRefusal && vendorRefusal.code !== 'BotDetection') return failedBefore(vendorRefusal.code, vendorRefusal.message);
      if (status === 404 || status === 410) return failedBefore('JobNotFound', `HTTP ${status}`);
      if (status >= 400) return failedBefore('ApplicationFailed', `HTTP ${status}`);
      if (recipe?.openForm) await followToForm(page, recipe.openForm, recipe.accountWall ?? null);
      if (recipe?.accountWall && (await showsWall(page, recipe.accountWall))) {
        // Without an account for this very host the wall ends it LoginRequired; a refusal, LoginFailed.
        const verdict = await signInOnce(page, recipe.accountWall, application.account, signIns);
        if (!verdict.signedIn) return failedBefore(verdict.reason === 'emailCode' ? 'BotDetection' : 'ApplicationFailed', verdict.message);
      }

      let snapshot: FormSnapshot | null = await snapshotPage(page, { withText: false });
      if (snapshot.fields.length === 0) {
        const refusal = refusalOf(opening, recipe);
        return refusal ? failedBefore(refusal.code, refusal.message) : failedBefore('ApplicationFailed', 'no application form on the page');
      }
      // The at-most-once record comes before the first write the vendor keeps: an upload on
      // choose, an answer saved as it is given, or the final click.
      let recorded = false;
      const recordIntent = async () => {
        if (recorded) return;
        // An answer that excludes the candidate (a knockout question) ends it before anything is kept.
        const excluded = await knockoutShown(page, recipe);
        if (excluded) throw new Excluded(excluded.code, excluded.message);
        recorded = true;
        try {
          await beforeSubmit();
        } catch (error) {
          throw new HookFailed(error);
        }
      };
      const plan: FillPlan = { recipe, recordIntent, questions: questionsById(application.questions) };

      const answers = new Map(application.answers.map((answer) => [answer.id, answer.value]));
      const topLevel = new Set(application.questions.map((question) => question.id));
      const filled = new Set<string>();
      // The final button as the last step showed it; a locator, so the click finds it afresh.
      let submit: Locator | null = null;
      for (let step = 1; ; step += 1) {
        // The first round of a step reads the page once: the snapshot taken to open it is still current.
        const problem = await fillStep(page, answers, filled, snapshot, plan).catch(excludedOutcome);
        snapshot = null;
        if (typeof problem === 'object' && problem) return problem;
        if (problem) {
          // A knockout answer disables the rest of the form: the next box cannot be filled.
          const excluded = await knockoutShown(page, recipe);
          return excluded ? excludedOutcome(new Excluded(excluded.code, excluded.message)) : failedBefore('ApplicationFailed', problem);
        }
        submit = await findSubmit(page, recipe);
        const pending = [...answers.keys()].filter((id) => topLevel.has(id) && !filled.has(id));
        // A "Continue" beside a submit button, with every answer placed, is the submit's neighbour (a
        // "save" link), not a step: pressing it could be the irreversible step without the hook.
        if (submit && pending.length === 0) break;
        const stepControls = new Set((await snapshotPage(page, { withText: false })).fields.map(controlKey));
        if (step >= (options.maxSteps ?? 8) || Date.now() > deadline || !(await pressNext(page))) {
          if (pending.length > 0) return failedBefore('ApplicationFailed', `no control on the page answers ${pending.join(', ')}`);
          if (!submit) return failedBefore('ApplicationFailed', 'no submit button on the page');
          break;
        }
        // A step that will not move on shows why (a required box left empty), or stays as it was.
        // A step moved on when a control appeared or one went (a review step shows none).
        const nowControls = new Set((await snapshotPage(page, { withText: false })).fields.map(controlKey));
        const moved = [...nowControls].some((key) => !stepControls.has(key)) || [...stepControls].some((key) => !nowControls.has(key));
        if (!moved) {
          const shown = await readPage(page);
          if (shown.errors.length === 0) return failedBefore('ApplicationFailed', `step ${step} did not move on when Next was pressed`);
          const worst = worstFieldError(shown.errors);
          return failedBefore(worst.code === 'ApplicationFailed' ? 'MandatoryQuestionsNotAnswered' : worst.code, worst.message);
        }
      }

      const before = await readPage(page);
      if (before.challenge || before.botCheck) return failedBefore('BotDetection', botCheckMessage(before, recipe));
      if (before.errors.length > 0) {
        const worst = vendorTextOf(recipe, before.errors) ?? worstFieldError(before.errors);
        return failedBefore(worst.code, worst.message);
      }
      const invalid = await nativelyInvalid(page);
      if (invalid) return failedBefore(invalid.code, invalid.message);
      if (!submit) return failedBefore('ApplicationFailed', 'no submit button on the page');

      const excluded = await recordIntent().then(() => null, excludedOutcome);
      if (excluded) return excluded;
      let navigationStatus: number | null = null;
      page.on('response', (answer) => {
        if (answer.request().isNavigationRequest() && answer.frame() === page.mainFrame()) navigationStatus = answer.status();
      });
      // A form post navigates; a script-sent form changes the page in place once its request is done.
      const navigated = page
        .waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: 5_000 })
        .catch(() => null);
      // Not waiting for the navigation the click starts: a site that takes longer than the click's
      // own limit to answer the post would make the click throw, and the answer would be lost.
      await submit.click({ timeout: 10_000, noWaitAfter: true });
      await Promise.race([navigated, settleAfterInput(page.mainFrame(), 100, 5_000)]);
      return readOutcome(
        page,
        before,
        () => navigationStatus,
        options.outcomeWaitMs === undefined ? deadline : Math.min(deadline, Date.now() + options.outcomeWaitMs),
        recipe,
      );
    }
  };
}

/** The page says an answer excludes the candidate: nothing more is written. */
class Excluded extends Error {
  readonly code: ApplicationErrorCode;
  constructor(code: ApplicationErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The recipe's knockout words, when the page shows them. */
async function knockoutShown(page: Page, recipe: AtsRecipe | null): Promise<{ code: ApplicationErrorCode; message: string } | null> {
  if (!recipe?.knockout) return null;
  const said = recipe.knockout.pattern.exec((await readPage(page)).text)?.[0];
  return said ? { code: recipe.knockout.code, message: `${recipe.vendor} says "${said}"` } : null;
}

const excludedOutcome = (error: unknown): SubmitOutcome => {
  if (error instanceof Excluded) return failedBefore(error.code, `the candidate is excluded by a knockout answer: ${error.message}`);
  throw error;
};

class HookFailed extends Error {
  constructor(cause: unknown) {
    super('beforeSubmit failed', { cause });
  }
}

/** A control across two reads of the page. */
const controlKey = (field: RawField) => `${field.frameUrl} ${field.selector || field.label} ${field.type}`;

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';

/**
 * Fills what the current step shows, round after round while answers reveal more questions.
 * Returns why a value could not be placed, or null.
 */
async function fillStep(
  page: Page,
  answers: Map<string, unknown>,
  filled: Set<string>,
  current: FormSnapshot | null,
  plan: FillPlan,
): Promise<string | null> {
  const { recipe } = plan;
  // A file-or-text question (Greenhouse's résumé) counts as a file: its file part uploads on choose.
  const isFile = (id: string) => {
    const question = plan.questions.get(id);
    return (
      question?.inputType === 'File' ||
      (question?.inputType === 'FragmentedQuestion' &&
        (question.options ?? []).some((part) => 'inputType' in part && part.inputType === 'File'))
    );
  };
  // A write the vendor keeps comes after the at-most-once record: every answer on a page that saves
  // answers as given, a file on a page that uploads on choose.
  const writes = (id: string) => recipe?.earlyWrites === 'answers' || (recipe?.earlyWrites === 'files' && isFile(id));
  // A resumed draft (Workday's) is emptied of what the candidate's answers do not set before anything is filled.
  if (recipe?.resumedDraft) {
    try {
      if ((await emptyResumedDraft(page, recipe, plan.questions, answers, plan.recordIntent)) > 0) current = null;
    } catch (error) {
      if (error instanceof FillError || error instanceof playwrightErrors.TimeoutError)
        return `the ${recipe.vendor} draft could not be emptied: ${firstLine(error)}`;
      throw error;
    }
  }
  for (let round = 0; round < revealRounds; round += 1) {
    let progressed = false;
    const attempt = async (id: string, fill: () => Promise<boolean>): Promise<string | null> => {
      try {
        if (!(await fill())) return null;
      } catch (error) {
        if (error instanceof FillError || error instanceof playwrightErrors.TimeoutError) return `question ${id}: ${firstLine(error)}`;
        throw error;
      }
      filled.add(id);
      progressed = true;
      return null;
    };
    const scopedFill = (id: string) =>
      attempt(id, () =>
        fillScoped(page, recipe as AtsRecipe, plan.questions.get(id) as Question, answers.get(id), () =>
          writes(id) ? plan.recordIntent() : Promise.resolve(),
        ),
      );
    const open = () => [...answers.keys()].filter((id) => !filled.has(id) && plan.questions.has(id));
    // Files go last: every other answer is in place before the first upload; first where the page
    // rewrites boxes from a chosen file.
    const filesLast = (ids: string[]) =>
      recipe?.filesFirst
        ? [...ids.filter(isFile), ...ids.filter((id) => !isFile(id))]
        : [...ids.filter((id) => !isFile(id)), ...ids.filter(isFile)];
    const afterFile = async (id: string) => {
      if (recipe?.filesFirst && isFile(id)) await settleAfterInput(page.mainFrame(), 100, 5_000);
    };

    // A vendor whose controls sit in a wrapper named by the field (Workable's data-ui) is filled there first.
    if (recipe?.scopeFirst) {
      for (const id of open().filter((id) => !isFile(id))) {
        const problem = await scopedFill(id);
        if (problem) return problem;
      }
    }
    const snapshot = round === 0 && current && !progressed ? current : await snapshotPage(page, { withText: false });
    const context: FillContext = { page, nth: positionsOf(snapshot.fields) };
    const located = new Map([...locateQuestions(snapshot.fields)].filter(([id]) => !filled.has(id) && answers.has(id)));
    for (const id of filesLast([...located.keys()])) {
      const entry = located.get(id) as LocatedQuestion;
      const problem = await attempt(id, async () => {
        if (writes(id)) await plan.recordIntent();
        if (entry.question.inputType === 'ArrayOfObjects') await fillRepeatable(page, id, answers.get(id));
        else if (plan.questions.get(id)?.inputType === 'FragmentedQuestion' && entry.question.inputType !== 'FragmentedQuestion')
          await fillParts(page, context, snapshot, recipe, id, answers.get(id));
        else await fillQuestion(context, entry, answers.get(id));
        await afterFile(id);
        return true;
      });
      if (problem) return problem;
    }
    // A split question (address, city, postcode) the page groups under another title: its parts
    // are named by their own ids, so they are found one by one.
    for (const id of open().filter(
      (candidate) => plan.questions.get(candidate)?.inputType === 'FragmentedQuestion' && !located.has(candidate),
    )) {
      const loose = locateQuestions(snapshot.fields.map((field) => ({ ...field, fragment: '' })));
      const parts = Array.isArray(answers.get(id)) ? (answers.get(id) as Array<{ id: string; value: unknown }>) : [];
      if (parts.length === 0 || !parts.every((part) => loose.has(part.id))) continue;
      const problem = await attempt(id, async () => {
        if (writes(id)) await plan.recordIntent();
        for (const part of parts) await fillQuestion(context, loose.get(part.id) as LocatedQuestion, part.value);
        return true;
      });
      if (problem) return problem;
    }
    // Ids the page does not name its controls by: the recipe says where their controls are.
    if (recipe?.fieldScope || recipe?.questionBlock) {
      for (const id of filesLast(open())) {
        const problem = await scopedFill(id);
        if (!problem) await afterFile(id);
        if (problem) return problem;
      }
    }
    if (!progressed) return null;
    await settleAfterInput(page.mainFrame(), 30, 1_500);
    // Every answer placed: no choice can reveal a question still to answer, so no need to read again.
    if ([...answers.keys()].every((id) => filled.has(id))) return null;
  }
  return null;
}

/**
 * A split question whose first part's control is named by the question's own id (Breezy's
 * `cSalary`, with its period list beside it): each part by its name, else by the recipe's
 * `partControls`.
 */
async function fillParts(
  page: Page,
  context: FillContext,
  snapshot: FormSnapshot,
  recipe: AtsRecipe | null,
  id: string,
  value: unknown,
): Promise<void> {
  const named = locateQuestions(snapshot.fields.map((field) => ({ ...field, fragment: '' })));
  for (const part of Array.isArray(value) ? (value as Array<{ id: string; value: unknown }>) : []) {
    const located = named.get(part.id);
    if (located) {
      await fillQuestion(context, located, part.value);
      continue;
    }
    const selector = recipe?.partControls?.[part.id];
    const control = selector ? page.locator(selector).first() : null;
    if (!control || (await control.count()) === 0) throw new FillError(`question ${id} has no part ${part.id} on the page`);
    const text = String(part.value);
    if ((await control.evaluate((element) => element.tagName)) === 'SELECT')
      await control.selectOption({ label: text }, { timeout: 5_000 });
    else await control.fill(text, { timeout: 5_000 });
  }
}

type FillPlan = {
  recipe: AtsRecipe | null;
  /** Records the at-most-once intent, once: before the first write the vendor keeps. */
  recordIntent: () => Promise<void>;
  questions: Map<string, Question>;
};

/** Every question of the form by id, the parts of repeatable and split questions included. */
function questionsById(questions: Question[]): Map<string, Question> {
  const byId = new Map<string, Question>();
  const visit = (list: Question[]) => {
    for (const question of list) {
      // A part may share its question's id (Breezy's `cSalary`): the question keeps the id.
      if (!byId.has(question.id)) byId.set(question.id, question);
      for (const option of question.options ?? []) {
        if ('conditionalQuestions' in option) visit(option.conditionalQuestions);
        else visit([option]);
      }
    }
  };
  visit(questions);
  return byId;
}

/** A repeatable group: the first instance is on the page; each further one is added with its "Add another" button. */
async function fillRepeatable(page: Page, id: string, value: unknown): Promise<void> {
  const instances = Array.isArray(value) ? (value as Array<Array<{ id: string; value: unknown }>>) : [];
  for (let index = 0; index < instances.length; index += 1) {
    let snapshot = await snapshotPage(page, { withText: false });
    let located = locateQuestions(snapshot.fields).get(id);
    if (located && located.instances.length <= index) {
      await addInstance({ page, nth: positionsOf(snapshot.fields) }, located.fields[0] as (typeof located.fields)[number]);
      await settleAfterInput(page.mainFrame(), 30, 1_500);
      snapshot = await snapshotPage(page, { withText: false });
      located = locateQuestions(snapshot.fields).get(id);
    }
    const parts = located?.instances[index];
    if (!parts) throw new FillError(`entry ${index + 1} of ${id} could not be added`);
    const context: FillContext = { page, nth: positionsOf(snapshot.fields) };
    for (const part of instances[index] ?? []) {
      const partLocated = parts.get(part.id);
      if (!partLocated) throw new FillError(`entry ${index + 1} of ${id} has no part ${part.id}`);
      await fillQuestion(context, partLocated, part.value);
    }
  }
}

/** Presses a wizard's Next (the miner's wording); false when the step has none. */
async function pressNext(page: Page): Promise<boolean> {
  for (const frame of page.frames()) {
    const button = frame.getByRole('button', { name: nextButton }).filter({ visible: true }).first();
    if ((await button.count()) === 0) continue;
    await button.click({ timeout: 10_000 });
    await settleAfterInput(frame, 30, 1_500);
    await settle(page, 150, 3_000);
    return true;
  }
  return false;
}

/** The final button: one whose words say submit or apply, else the form's only other submit button. */
async function findSubmit(page: Page, recipe: AtsRecipe | null): Promise<Locator | null> {
  if (recipe?.submit) {
    const own = page.locator(recipe.submit).filter({ visible: true }).first();
    if ((await own.count()) > 0) return own;
  }
  for (const frame of page.frames()) {
    const named = frame.getByRole('button', { name: submitButtonText }).filter({ visible: true });
    if ((await named.count()) > 0) return named.first();
  }
  for (const frame of page.frames()) {
    const typed = frameSubmits(frame);
    if ((await typed.count()) === 1) return typed.first();
  }
  return null;
}

const frameSubmits = (frame: Frame) =>
  frame
    .locator('form button[type="submit"], form input[type="submit"], form button:not([type])')
    .filter({ visible: true })
    .filter({ hasNotText: nextButton });

/**
 * The browser's own validation (a `required` box left empty, an email box without @): the click
 * would not send the form, and the page would show a bubble no script can read afterwards.
 */
async function nativelyInvalid(page: Page): Promise<{ code: ApplicationErrorCode; message: string } | null> {
  for (const frame of page.frames()) {
    const invalid = await callApplier<{ missing: boolean; message: string } | null>(frame, 'firstInvalid').catch(() => null);
    if (invalid) return { code: invalid.missing ? 'MandatoryQuestionsNotAnswered' : 'ApplicantDetailsInvalid', message: invalid.message };
  }
  return null;
}

/** Reads the page after the click until it says something conclusive, or the wait is over (`unknown`, never success). */
async function readOutcome(
  page: Page,
  before: PageReading,
  navigationStatus: () => number | null,
  until: number,
  recipe: AtsRecipe | null,
): Promise<SubmitOutcome> {
  let last = 'the page showed nothing after the submission';
  for (;;) {
    await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, Math.min(5_000, until - Date.now())) }).catch(() => {});
    await settle(page, 100, 2_000).catch(() => {});
    const after = await readPage(page);
    const verdict = classifyAfterClick(before, after, navigationStatus(), recipe);
    if (verdict.status !== 'pending') {
      const screenshot = await page.screenshot({ type: 'png', timeout: 5_000 }).catch(() => undefined);
      const shot = screenshot ? { screenshot } : {};
      if (verdict.status === 'success') return { status: 'success', confirmation: verdict.confirmation, ...shot };
      return { status: 'failed', errorCode: verdict.code, message: verdict.message, submitted: true, ...shot };
    }
    last = verdict.message;
    if (Date.now() >= until) break;
    await page.waitForTimeout(Math.min(250, Math.max(0, until - Date.now())));
  }
  const screenshot = await page.screenshot({ type: 'png', timeout: 5_000 }).catch(() => undefined);
  return { status: 'unknown', message: last, ...(screenshot ? { screenshot } : {}) };
}
