import type { Question } from '@quarry/contracts';
import { createChromiumPool, type ChromiumPool } from '@quarry/browser';
import { createBrowserFormMiner, syntheticAnswers } from '@quarry/miner';
import { startApplicationSites, type ApplicationSites } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileToUpload, ResolvedAnswer, SubmitHooks, SubmitOutcome } from './applier-port.ts';
import { createBrowserApplier } from './browser.applier.ts';

let sites: ApplicationSites;
let pool: ChromiumPool;

beforeAll(async () => {
  sites = await startApplicationSites();
  pool = createChromiumPool({ executablePath: '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 2 });
});

afterAll(async () => {
  await pool?.close();
  await sites?.close();
});

const candidate = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0001' };
// Not a real PDF: bytes the site must get back unchanged, a NUL and high bytes included.
const pdf: FileToUpload = {
  type: 'File',
  filename: 'ada-cv.pdf',
  contentType: 'application/pdf',
  bytes: Buffer.from([
    0x25,
    0x50,
    0x44,
    0x46,
    0x2d,
    0x31,
    0x2e,
    0x37,
    0x0a,
    0x00,
    0xff,
    0xfe,
    0x80,
    ...Buffer.from('Ada Lovelace, analyst'),
  ]),
};
const letter: FileToUpload = {
  type: 'File',
  filename: 'letter.txt',
  contentType: 'text/plain',
  bytes: Buffer.from('Dear team,\nI would like to join.\n'),
};

/** Mines the page with the real browser miner: the questions and ids an application is built from. */
async function mine(path: string): Promise<Question[]> {
  const miner = createBrowserFormMiner({
    pool,
    allowPrivate: ['127.0.0.1'],
    timeoutMs: 20_000,
    probeDepth: 1,
    maxProbeChoices: 10,
    settleMs: 100,
  });
  const outcome = await miner(
    { url: `${sites.origin}${path}`, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' },
    new AbortController().signal,
  );
  if (!outcome.ok) throw new Error(`${path}: ${outcome.errorCode} ${outcome.detail}`);
  return outcome.form.questions;
}

/** The miner's own answers for every question, files as bytes, then the test's answers by id. */
function answersFor(questions: Question[], overrides: Record<string, unknown>): ResolvedAnswer[] {
  const answers = syntheticAnswers(questions).map((answer) => {
    const question = questions.find((candidate) => candidate.id === answer.id);
    return question?.inputType === 'File' ? { id: answer.id, value: pdf } : answer;
  });
  for (const [id, value] of Object.entries(overrides)) {
    if (!questions.some((question) => question.id === id))
      throw new Error(`no question ${id} among ${questions.map((question) => question.id).join(', ')}`);
    const existing = answers.find((answer) => answer.id === id);
    if (existing) existing.value = value;
    else answers.push({ id, value });
  }
  return answers;
}

const applier = () => createBrowserApplier({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 30_000, outcomeWaitMs: 3_000 });

/** Runs the applier; the hook marks the site's event log, so the order of hook and POST is visible. */
async function apply(
  path: string,
  questions: Question[],
  answers: ResolvedAnswer[],
  hooks?: SubmitHooks,
): Promise<{ outcome: SubmitOutcome; hookCalls: number }> {
  let hookCalls = 0;
  const outcome = await applier()(
    { url: `${sites.origin}${path}`, questions, answers, candidate },
    hooks ?? {
      beforeSubmit: async () => {
        hookCalls += 1;
        sites.events.push(`hook ${path}`);
      },
    },
    new AbortController().signal,
  );
  return { outcome, hookCalls };
}

const receivedAt = (path: string) => sites.received.filter((submission) => submission.path === path);
const isPng = (bytes: Buffer | undefined) =>
  bytes?.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) ?? false;

describe('createBrowserApplier', () => {
  it('fills a one-page form (text, select, radios, checkboxes, date, textarea, file, consent) and reads the confirmation', async () => {
    const questions = await mine('/one-page');
    const answers = answersFor(questions, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0001',
      country: 'Germany',
      work_auth: 'No',
      'languages[]': ['TypeScript', 'Rust'],
      start_date: '2027-01-15',
      motivation: 'Engines.\nAnd analysis.',
      resume: pdf,
      privacy: true,
    });
    const { outcome, hookCalls } = await apply('/one-page', questions, answers);
    expect(outcome).toMatchObject({ status: 'success', confirmation: { text: expect.stringContaining('Thank you for applying') } });
    expect(isPng(outcome.screenshot)).toBe(true);
    expect(hookCalls).toBe(1);
    const [submission] = receivedAt('/one-page/submit');
    expect(submission?.fields).toEqual({
      first_name: ['Ada'],
      last_name: ['Lovelace'],
      email: ['ada@example.com'],
      phone: ['+44 20 7946 0001'],
      country: ['de'],
      work_auth: ['no'],
      'languages[]': ['ts', 'rust'],
      start_date: ['2027-01-15'],
      motivation: ['Engines.\r\nAnd analysis.'],
      privacy: ['accepted'],
    });
    expect(submission?.files.resume).toEqual([{ filename: 'ada-cv.pdf', contentType: 'application/pdf', bytes: pdf.bytes }]);
  });

  it('calls beforeSubmit exactly once, before the site receives the POST', async () => {
    const questions = await mine('/reference');
    const { hookCalls } = await apply('/reference', questions, answersFor(questions, {}));
    expect(hookCalls).toBe(1);
    const relevant = sites.events.filter((event) => event === 'hook /reference' || event === 'POST /reference/submit');
    expect(relevant).toEqual(['hook /reference', 'POST /reference/submit']);
  });

  it('sends nothing when beforeSubmit throws, and rethrows its error', async () => {
    const questions = await mine('/strict');
    const before = receivedAt('/strict/submit').length;
    const refusal = new Error('the intent could not be recorded');
    await expect(
      apply('/strict', questions, answersFor(questions, { phone: '+44 1' }), { beforeSubmit: () => Promise.reject(refusal) }).then(
        (result) => result.outcome,
      ),
    ).rejects.toBe(refusal);
    expect(receivedAt('/strict/submit').length).toBe(before);
  });

  it('walks a three-step wizard with Next and submits on the last step', async () => {
    const questions = await mine('/wizard');
    expect(questions.map((question) => question.id)).toEqual(['first_name', 'last_name', 'email', 'years', 'relocate', 'sql']);
    const answers = answersFor(questions, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      years: '6+',
      relocate: 'Yes',
      sql: 'A window function over ten years of sales.',
    });
    const { outcome } = await apply('/wizard', questions, answers);
    expect(outcome.status).toBe('success');
    expect(receivedAt('/wizard/submit')[0]?.fields).toEqual({
      first_name: ['Ada'],
      last_name: ['Lovelace'],
      email: ['ada@example.com'],
      years: ['6+'],
      relocate: ['yes'],
      sql: ['A window function over ten years of sales.'],
    });
  });

  it('types into a react-select style list, picks the option, and reads a confirmation rendered in place', async () => {
    const questions = await mine('/combobox');
    const office = questions.find((question) => question.id === 'office');
    expect(office?.options?.map((option) => ('answer' in option ? option.answer : ''))).toEqual([
      'Amsterdam',
      'Berlin',
      'Lisbon',
      'London',
      'New York',
    ]);
    const { outcome } = await apply('/combobox', questions, answersFor(questions, { office: 'Lisbon', first_name: 'Ada' }));
    const [submission] = receivedAt('/combobox/submit');
    expect(submission?.fields).toMatchObject({ office: ['Lisbon'], first_name: ['Ada'] });
    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^SUP-70\d\d$/) } });
  });

  it('adds entries to a repeatable group and uploads two files whose bytes the site receives unchanged', async () => {
    const questions = await mine('/repeat-upload');
    const group = questions.find((question) => question.inputType === 'ArrayOfObjects');
    expect(group?.options?.map((part) => ('id' in part ? part.id : ''))).toEqual(['company', 'title']);
    const entries = [
      [
        { id: 'company', value: 'Analytical Engines Ltd' },
        { id: 'title', value: 'Analyst' },
      ],
      [
        { id: 'company', value: 'Babbage & Co' },
        { id: 'title', value: 'Translator' },
      ],
      [
        { id: 'company', value: 'Royal Society' },
        { id: 'title', value: 'Fellow' },
      ],
    ];
    const { outcome } = await apply(
      '/repeat-upload',
      questions,
      answersFor(questions, { [group?.id ?? '']: entries, cv: pdf, cover_letter: letter }),
    );
    expect(outcome.status).toBe('success');
    const [submission] = receivedAt('/repeat-upload/submit');
    expect(submission?.fields).toMatchObject({
      'experience[0][company]': ['Analytical Engines Ltd'],
      'experience[0][title]': ['Analyst'],
      'experience[1][company]': ['Babbage & Co'],
      'experience[1][title]': ['Translator'],
      'experience[2][company]': ['Royal Society'],
      'experience[2][title]': ['Fellow'],
    });
    expect(submission?.files).toEqual({
      cv: [{ filename: 'ada-cv.pdf', contentType: 'application/pdf', bytes: pdf.bytes }],
      cover_letter: [{ filename: 'letter.txt', contentType: 'text/plain', bytes: letter.bytes }],
    });
  });

  it("reports the site's own message when it rejects a missing answer", async () => {
    const questions = await mine('/strict');
    const answers = answersFor(questions, {}).filter((answer) => answer.id !== 'phone');
    const { outcome } = await apply('/strict', questions, answers);
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'MandatoryQuestionsNotAnswered',
      submitted: true,
      message: 'Phone number is required.',
    });
    expect(receivedAt('/strict/submit').at(-1)?.fields.phone).toEqual(['']);
  });

  it('reports a captcha after the submit as BotDetection', async () => {
    const questions = await mine('/captcha');
    const { outcome } = await apply('/captcha', questions, answersFor(questions, {}));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'BotDetection', submitted: true });
    expect(receivedAt('/captcha/submit')).toHaveLength(1);
  });

  it("waits for a slow site's answer up to the application's own timeout, and reads it, instead of calling it unknown", async () => {
    const questions = await mine('/slow');
    // No outcome wait of its own: the site answers 16 s after the post, past any fixed wait after the click.
    const patient = createBrowserApplier({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 40_000 });
    const outcome = await patient(
      { url: `${sites.origin}/slow`, questions, answers: answersFor(questions, {}), candidate },
      { beforeSubmit: async () => {} },
      new AbortController().signal,
    );
    expect(outcome, JSON.stringify({ ...outcome, screenshot: undefined })).toMatchObject({ status: 'success' });
    expect(receivedAt('/slow/submit')).toHaveLength(1);
  });

  it('reports an "already applied" answer as AlreadyApplied', async () => {
    const questions = await mine('/duplicate');
    const { outcome } = await apply('/duplicate', questions, answersFor(questions, {}));
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'AlreadyApplied',
      submitted: true,
      message: expect.stringContaining('already applied'),
    });
  });

  it('reads the reference number of a confirmation page reached by redirect', async () => {
    const questions = await mine('/reference');
    const { outcome } = await apply('/reference', questions, answersFor(questions, {}));
    expect(outcome).toMatchObject({
      status: 'success',
      confirmation: { reference: expect.stringMatching(/^APP-209\d\d$/), text: expect.stringContaining('Thank you for your application') },
    });
  });

  it('reports a closed posting as JobExpired and a missing one as JobNotFound, without calling the hook', async () => {
    const questions = await mine('/reference');
    const closed = await apply('/closed', questions, answersFor(questions, {}));
    expect(closed.outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    const gone = await apply('/gone', questions, answersFor(questions, {}));
    expect(gone.outcome).toMatchObject({ status: 'failed', errorCode: 'JobNotFound', submitted: false });
    expect(closed.hookCalls + gone.hookCalls).toBe(0);
  });

  it('refuses an answer the page cannot take before anything is sent', async () => {
    const questions = await mine('/one-page');
    const before = receivedAt('/one-page/submit').length;
    const { outcome, hookCalls } = await apply('/one-page', questions, answersFor(questions, { country: 'Atlantis' }));
    expect(outcome).toMatchObject({
      status: 'failed',
      errorCode: 'ApplicationFailed',
      submitted: false,
      message: expect.stringContaining('Atlantis'),
    });
    expect(hookCalls).toBe(0);
    expect(receivedAt('/one-page/submit').length).toBe(before);
  });
});
