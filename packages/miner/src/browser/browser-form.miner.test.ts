import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Question } from '@quarry/contracts';
import { fixtureForms } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sectionsFormQuestions, summarize } from '@quarry/testing/miner';
import type { MineOutcome } from '../miner-port.ts';
import { createBrowserFormMiner } from './browser-form.miner.ts';
import { createChromiumPool, type ChromiumPool } from '@quarry/browser';
import { minerPageScript } from './page-snapshot.ts';

const fixtures = new URL('../../fixtures/', import.meta.url);
let server: Server;
let origin: string;
// A second site, on an address the allow-list does not name.
let refusedSite: Server;
let refusedOrigin: string;
const refusedHits: string[] = [];
let pool: ChromiumPool;
const requested: string[] = [];

const pages: Record<string, string> = {
  '/closed': '<html><body><h1>Analyst</h1><p>This position has been filled.</p></body></html>',
  '/login':
    '<html><body><form><label for="u">Email</label><input id="u" type="email"><label for="p">Password</label><input id="p" type="password"></form></body></html>',
  '/sections': fixtureForms.sections,
  '/captcha': '<html><body><h1>Please verify you are a human</h1><div class="g-recaptcha"></div></body></html>',
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requested.push(`${request.headers.host} ${request.url}`);
    if (pages[path]) return response.writeHead(200, { 'content-type': 'text/html' }).end(pages[path]);
    if (path === '/slow') return; // never answers
    if (path === '/delayed') {
      const delayMs = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('ms') ?? 100);
      return void setTimeout(() => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), delayMs);
    }
    if (path.startsWith('/dom/') || path.startsWith('/browser/')) {
      const file = path.startsWith('/dom/') ? new URL(`ats${path}`, fixtures) : new URL(path.slice(1), fixtures);
      const body = await readFile(file).catch(() => null);
      if (body) return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    }
    response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  refusedSite = createServer((request, response) => {
    refusedHits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html' }).end('<form><input name="q"></form>');
  });
  refusedSite.listen(0, '127.0.0.2');
  await new Promise((resolve) => refusedSite.once('listening', resolve));
  refusedOrigin = `http://127.0.0.2:${(refusedSite.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const site of [server, refusedSite]) {
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
  }
});

const miner = (timeoutMs = 15_000) =>
  createBrowserFormMiner({ pool, allowPrivate: ['127.0.0.1'], timeoutMs, probeDepth: 2, maxProbeChoices: 40, settleMs: 150 });
const mine = (path: string, timeoutMs?: number) =>
  miner(timeoutMs)({ url: `${origin}${path}`, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' }, new AbortController().signal);

async function questionsOf(path: string): Promise<Question[]> {
  const outcome = await mine(path);
  if (!outcome.ok) throw new Error(`${path}: ${outcome.errorCode} ${outcome.detail}`);
  return outcome.form.questions;
}

const find = (questions: Question[], id: string): Question => {
  const question = questions.find((candidate) => candidate.id === id);
  if (!question) throw new Error(`no ${id} among ${questions.map((candidate) => candidate.id).join(', ')}`);
  return question;
};
const optionNamed = (question: Question, answer: string) => {
  const option = question.options?.find((candidate) => 'answer' in candidate && candidate.answer === answer);
  if (!option || !('conditionalQuestions' in option)) throw new Error(`no option ${answer} on ${question.id}`);
  return option;
};

// Production's headless shell (ADR 0021), and the full browser a deployment may point CHROMIUM_PATH at.
const browsers = [...new Set([process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell', '/usr/bin/chromium'])];

describe.each(browsers)('browser form miner in %s', (executablePath) => {
  beforeAll(() => {
    pool = createChromiumPool({ executablePath, recycleAfterJobs: 3 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('attaches conditional questions to the option that reveals them, two levels deep', async () => {
    const questions = await questionsOf('/browser/conditional.html');
    expect(questions.map((question) => question.id)).toEqual(['sponsorship', 'worked_before', 'consent']);
    const sponsorship = find(questions, 'sponsorship');
    expect(sponsorship).toMatchObject({ inputType: 'SelectOne', mandatory: true, label: 'Eligibility', category: 'sponsorship' });
    const visa = find(optionNamed(sponsorship, 'Yes').conditionalQuestions, 'visa');
    expect(visa).toMatchObject({ question: 'Which visa would you need?', inputType: 'SelectOne' });
    expect(optionNamed(visa, 'Other').conditionalQuestions.map((question) => question.id)).toEqual(['visa_other']);
    expect(optionNamed(visa, 'Skilled Worker').conditionalQuestions).toEqual([]);
    expect(optionNamed(sponsorship, 'No').conditionalQuestions).toEqual([]);
    const worked = find(questions, 'worked_before');
    expect(optionNamed(worked, 'Yes').conditionalQuestions).toMatchObject([{ id: 'worked_when', inputType: 'Date' }]);
    expect(find(questions, 'consent')).toMatchObject({ inputType: 'Boolean', mandatory: true, category: 'consent' });
  });

  it('labels each question with its section and names an unlabeled group by the text before it, as the HTML extractor does', async () => {
    const actual = summarize(await questionsOf('/sections'));
    const read = sectionsFormQuestions
      .map(({ id }) => actual.find((question) => question.id === id))
      .map((question) => question && { id: question.id, question: question.question, label: question.label });
    expect(read).toEqual(sectionsFormQuestions.map(({ id, question, label }) => ({ id, question, label })));
  });

  it('drops placeholder options and widget internals, and keeps compound parts and multi-selects required, as the HTML extractor does', async () => {
    expect(summarize(await questionsOf('/sections'))).toEqual(sectionsFormQuestions);
  });

  it('never submits the form while probing', async () => {
    requested.length = 0;
    await questionsOf('/browser/conditional.html');
    expect(requested.filter((line) => /submit|POST/i.test(line))).toEqual([]);
  });

  it('reads a script-rendered form, a combobox whose options exist only while open, and a hidden file input', async () => {
    const questions = await questionsOf('/browser/combobox.html');
    expect(find(questions, 'name')).toMatchObject({ question: 'Full name', mandatory: true, category: 'fullName' });
    const team = find(questions, 'team');
    expect(team).toMatchObject({ question: 'Which team?', inputType: 'SelectOne', mandatory: true });
    expect(team.options?.map((option) => ('answer' in option ? option.answer : ''))).toEqual(['Engineering', 'Design', 'Sales']);
    // A menu that a click does not open (react-select's openMenuOnClick={false}) opens on ArrowDown.
    const office = find(questions, 'office');
    expect(office).toMatchObject({ question: 'Preferred office', inputType: 'SelectOne', mandatory: true });
    expect(office.options?.map((option) => ('answer' in option ? option.answer : ''))).toEqual(['London', 'Lisbon']);
    expect(find(questions, 'resume')).toMatchObject({ inputType: 'File', accept: ['.pdf'], question: 'Resume/CV', category: 'resume' });
  });

  it('reads iframes and open shadow roots, skipping closed roots and hidden fields', async () => {
    const questions = await questionsOf('/dom/frames-shadow.html');
    const ids = questions.map((question) => question.id);
    expect(ids).toEqual(expect.arrayContaining(['full_name', 'country', 'phone', 'letter', 'nick', 'cv']));
    expect(ids).not.toContain('old_phone');
    expect(ids).not.toContain('hidden-away');
    expect(find(questions, 'cv')).toMatchObject({ inputType: 'File', question: 'Resume file', label: 'Documents' });
    expect(find(questions, 'phone')).toMatchObject({ mandatory: false });
  });

  it('resolves labels, groups and required signals of the generic DOM fixture', async () => {
    const questions = await questionsOf('/dom/form.html');
    expect(find(questions, 'first')).toMatchObject({
      question: 'First name',
      mandatory: true,
      category: 'firstName',
      label: 'Your details',
    });
    expect(find(questions, 'last_name')).toMatchObject({ question: 'Last name', category: 'lastName' });
    expect(find(questions, 'email')).toMatchObject({ question: 'Email address', mandatory: true, category: 'email' });
    expect(find(questions, 'note')).toMatchObject({ inputType: 'TextArea', mandatory: true });
    expect(find(questions, 'start')).toMatchObject({ inputType: 'Date' });
    expect(find(questions, 'shift')).toMatchObject({ inputType: 'SelectOne', question: 'Preferred shift', label: 'About the role' });
    expect(find(questions, 'lang')).toMatchObject({ inputType: 'SelectMultiple', question: 'Languages' });
    expect(find(questions, 'adult')).toMatchObject({ inputType: 'Boolean' });
    const mode = questions.find((question) => question.question === 'Work mode');
    expect(mode?.options?.map((option) => ('answer' in option ? option.answer : ''))).toEqual(['Remote', 'Hybrid']);
    expect(questions.map((question) => question.id)).not.toContain('honeypot');
  });

  it('makes checkboxes that share a name one SelectMultiple question, fieldset or not', async () => {
    // Lever's card questions: three checkboxes named cards[acme][field3], each in its own label.
    const questions = await questionsOf('/dom/lever-form.html');
    expect(find(questions, 'cards[acme][field3]')).toMatchObject({
      question: 'cards[acme][field3]',
      inputType: 'SelectMultiple',
      options: [{ answer: 'Python' }, { answer: 'SQL' }, { answer: 'Excel' }],
    });
    expect(questions.map((question) => question.id)).not.toContain('cards[acme][field3]_2');
  });

  it('reads styled radios by the text beside them, and their drawn twins as the same option', async () => {
    // Workable: <input type=radio> + an empty <div role=radio> (the look) + <span>YES</span>.
    const questions = await questionsOf('/dom/workable-form.html');
    const answers = (id: string) => find(questions, id).options?.map((option) => ('answer' in option ? option.answer : ''));
    expect(find(questions, 'QA_3')).toMatchObject({ question: 'Are you authorized to work in the US?', inputType: 'SelectOne' });
    expect(answers('QA_3')).toEqual(['YES', 'NO']);
    // An icon's fallback text (an <svg>) is not part of the option.
    expect(answers('QA_4')).toEqual(['Yes - please add details below', 'No']);
    expect(questions.map((question) => question.id)).not.toContain('Are_you_authorized_to_work_in_the_US_');
  });

  it('maps every input type, including repeatable groups, split questions and legal text', async () => {
    const outcome = await mine('/browser/every-type.html');
    if (!outcome.ok) throw new Error(`${outcome.errorCode}: ${outcome.detail}`);
    const { questions, answers } = outcome.form;
    expect(questions.map((question) => [question.id, question.inputType])).toEqual([
      ['full_name', 'Text'],
      ['summary', 'TextArea'],
      ['visa', 'SelectOne'],
      ['skills', 'SelectMultiple'],
      ['available', 'Date'],
      ['remote', 'Boolean'],
      ['cv', 'File'],
      ['graduation_date', 'FragmentedQuestion'],
      ['work_experience', 'ArrayOfObjects'],
      [expect.stringMatching(/^literal:/), 'TextLiteral'],
      ['privacy', 'Boolean'],
    ]);
    expect(find(questions, 'graduation_date')).toMatchObject({
      question: 'Graduation date',
      mandatory: true,
      options: [
        { id: 'graduation_month', inputType: 'SelectOne' },
        { id: 'graduation_year', inputType: 'Text' },
      ],
    });
    expect(find(questions, 'work_experience')).toMatchObject({
      question: 'Work experience',
      category: 'experience',
      options: [
        { id: 'company', question: 'Company', inputType: 'Text' },
        { id: 'title', question: 'Title', inputType: 'Text' },
      ],
    });
    const literal = questions.find((question) => question.inputType === 'TextLiteral');
    expect(literal?.value).toContain('<strong>12 months</strong>');
    expect(answers).toContainEqual({ id: 'full_name', value: 'Jane Doe' });
    expect(answers).toContainEqual({
      id: 'graduation_date',
      value: [
        { id: 'graduation_month', value: 'January' },
        { id: 'graduation_year', value: 'Yes' },
      ],
    });
    expect(answers).toContainEqual({
      id: 'work_experience',
      value: [
        [
          { id: 'company', value: 'Yes' },
          { id: 'title', value: 'Yes' },
        ],
      ],
    });
    expect(answers.map((answer) => answer.id)).not.toContain(literal?.id);
  });

  it('walks a three-step wizard with its answers and stops before the final submit', async () => {
    requested.length = 0;
    const outcome = await mine('/browser/wizard.html');
    if (!outcome.ok) throw new Error(`${outcome.errorCode}: ${outcome.detail}`);
    const { questions, answers } = outcome.form;
    expect(questions.map((question) => [question.id, question.label])).toEqual([
      ['email', 'Step 1: Contact'],
      ['phone', 'Step 1: Contact'],
      ['travel', 'Step 2: Experience'],
      ['years', 'Step 2: Experience'],
      ['why', 'Step 2: Experience'],
      ['terms', 'Step 3: Review'],
    ]);
    expect(find(questions, 'years')).toMatchObject({ inputType: 'SelectOne', mandatory: true });
    // Probed on step 2 too, without the reload that would return to step 1: a select is put back
    // as it was; a radio group cannot be unchecked, so it goes back to its option that revealed
    // nothing, and the select probed after it is not credited with what "Yes" revealed.
    const revealed = (id: string) =>
      (find(questions, id)?.options ?? [])
        .flatMap((option) => ('answer' in option ? [option] : []))
        .map((option) => [option.answer, option.conditionalQuestions?.map((question) => question.id) ?? []]);
    expect(revealed('travel')).toEqual([
      ['No', []],
      ['Yes', ['travel_share']],
    ]);
    expect(revealed('years')).toEqual([
      ['0-2', []],
      ['3-5', []],
      ['6+', ['team_size']],
    ]);
    expect(answers).toEqual(
      expect.arrayContaining([
        { id: 'email', value: 'jane.doe@example.com' },
        { id: 'years', value: '0-2' },
        { id: 'terms', value: true },
      ]),
    );
    expect(requested.filter((line) => line.includes('/submitted'))).toEqual([]);
  });

  it('probes small choice sets before larger ones can spend the budget', async () => {
    // Two 24-option selects (48 choices) come first on the page; the budget here is 40 choices.
    const questions = await questionsOf('/browser/many-choices.html');
    expect(optionNamed(find(questions, 'sponsorship'), 'Yes').conditionalQuestions?.map((question) => question.id)).toEqual(['visa_type']);
    expect(optionNamed(find(questions, 'sponsorship'), 'No').conditionalQuestions).toEqual([]);
  });

  it('probes only the follow-up option of a long list', async () => {
    const questions = await questionsOf('/browser/long-select.html');
    const country = find(questions, 'country');
    expect(country.options).toHaveLength(71);
    expect(optionNamed(country, 'Other (please specify)').conditionalQuestions?.map((question) => question.id)).toEqual(['country_other']);
  });

  it('resets a radio group by its option that revealed nothing, not by reloading the page', async () => {
    requested.length = 0;
    const questions = await questionsOf('/browser/radio-reset.html');
    expect(optionNamed(find(questions, 'licence'), 'Yes').conditionalQuestions?.map((question) => question.id)).toEqual(['licence_class']);
    expect(optionNamed(find(questions, 'licence'), 'No').conditionalQuestions).toEqual([]);
    // Probed after the group: credited only with what it reveals itself.
    expect(optionNamed(find(questions, 'notice'), 'Other').conditionalQuestions?.map((question) => question.id)).toEqual(['notice_other']);
    expect(optionNamed(find(questions, 'notice'), 'Immediately').conditionalQuestions).toEqual([]);
    expect(requested.filter((line) => line.includes('/browser/radio-reset.html'))).toHaveLength(1);
  });

  // One retry: on a 2-core machine running the whole suite, a ~100 ms page timer can fire late
  // enough to miss the probe's settle budget once (seen in a full CI run); a miner that does not
  // wait for late reveals fails both attempts.
  it('waits for a reveal that comes after a debounce or a request, however quiet the page is meanwhile', { retry: 1 }, async () => {
    // Both follow-ups arrive ~100 ms after the choice with no DOM change before: a fixed quiet
    // period shorter than that would credit neither option.
    const questions = await questionsOf('/browser/late-reveals.html');
    expect(questions.map((question) => question.id)).toEqual(['sponsorship', 'relocate']);
    expect(optionNamed(find(questions, 'sponsorship'), 'Yes').conditionalQuestions?.map((question) => question.id)).toEqual(['visa_type']);
    expect(optionNamed(find(questions, 'sponsorship'), 'No').conditionalQuestions).toEqual([]);
    expect(optionNamed(find(questions, 'relocate'), 'Yes').conditionalQuestions?.map((question) => question.id)).toEqual(['city']);
    expect(optionNamed(find(questions, 'relocate'), 'No').conditionalQuestions).toEqual([]);
  });

  it('leaves the page’s timers and fetch looking native to its own scripts', async () => {
    const seen = await pool.withContext(async (context) => {
      await context.addInitScript({ content: minerPageScript });
      const page = await context.newPage();
      await page.goto(`${origin}/browser/conditional.html`);
      // Page code (a string: the test's types know no DOM).
      return page.evaluate(`[setTimeout, clearTimeout, requestAnimationFrame, fetch, XMLHttpRequest.prototype.send, Function.prototype.toString]
        .map((native) => [native.name, native.length, Function.prototype.toString.call(native), String(native)])`);
    });
    expect(seen).toEqual([
      ['setTimeout', 1, 'function setTimeout() { [native code] }', 'function setTimeout() { [native code] }'],
      ['clearTimeout', 0, 'function clearTimeout() { [native code] }', 'function clearTimeout() { [native code] }'],
      [
        'requestAnimationFrame',
        1,
        'function requestAnimationFrame() { [native code] }',
        'function requestAnimationFrame() { [native code] }',
      ],
      ['fetch', 1, 'function fetch() { [native code] }', 'function fetch() { [native code] }'],
      ['send', 0, 'function send() { [native code] }', 'function send() { [native code] }'],
      ['toString', 0, 'function toString() { [native code] }', 'function toString() { [native code] }'],
    ]);
  });

  it('waits for a wizard step that arrives after a pause', async () => {
    // The page is quiet for 600 ms after Next: a walk that gave up after its first short settle,
    // or after the fixed 300 ms it used to wait, would miss the step.
    const questions = await questionsOf('/browser/wizard-slow-step.html');
    expect(questions.map((question) => [question.id, question.label])).toEqual([
      ['email', 'Contact'],
      ['start', 'Availability'],
    ]);
  });

  it.each([
    ['/missing', 'JobNotFound'],
    ['/closed', 'JobExpired'],
    ['/login', 'LoginRequired'],
    ['/captcha', 'BotDetection'],
  ] as const)('maps %s to %s', async (path, errorCode) => {
    expect(await mine(path)).toMatchObject({ ok: false, errorCode, adapter: 'browser' });
  });

  it('reports a page that never answers as NavigationTimeout', async () => {
    expect(await mine('/slow', 1_500)).toMatchObject({ ok: false, errorCode: 'NavigationTimeout' });
  });

  it('refuses private job URLs and blocks the page’s requests to refused hosts', async () => {
    const refused: MineOutcome = await miner()(
      { url: `${refusedOrigin}/apply`, employer: 'Acme', jobTitle: 'x', country: 'gb' },
      new AbortController().signal,
    );
    expect(refused).toMatchObject({ ok: false, errorCode: 'AddressRefused' });
    requested.length = 0;
    refusedHits.length = 0;
    const outcome = await mine(`/browser/tracker.html?beacon=${encodeURIComponent(`${refusedOrigin}/beacon.gif`)}`);
    expect(outcome.ok).toBe(true);
    expect(requested.some((line) => line.includes('/beacon.gif'))).toBe(true);
    expect(refusedHits).toEqual([]);
    // The same beacon does arrive when the allow-list names that address: the block above was the guard.
    const open = createBrowserFormMiner({
      pool,
      allowPrivate: ['127.0.0.1', '127.0.0.2'],
      timeoutMs: 15_000,
      probeDepth: 0,
      maxProbeChoices: 0,
    });
    await open(
      {
        url: `${origin}/browser/tracker.html?beacon=${encodeURIComponent(`${refusedOrigin}/beacon.gif`)}`,
        employer: 'Acme',
        jobTitle: 'x',
        country: 'gb',
      },
      new AbortController().signal,
    );
    expect(refusedHits).toEqual(['/beacon.gif']);
  });
});

// About the pool the miner runs in, not the browser: the production binary is enough.
describe('browser form miner waiting for a context', () => {
  it('counts a job’s time from when it gets a browser context, not from when it waited for one', async () => {
    const onePool = createChromiumPool({
      executablePath: browsers[0] ?? '/usr/bin/chromium-headless-shell',
      recycleAfterJobs: 10,
      maxContexts: 1,
    });
    try {
      // The only context is busy for longer than the job's whole time budget.
      const busy = onePool.withContext(() => new Promise((resolve) => setTimeout(resolve, 3_500)));
      const waiting = createBrowserFormMiner({
        pool: onePool,
        allowPrivate: ['127.0.0.1'],
        timeoutMs: 3_000,
        probeDepth: 2,
        maxProbeChoices: 40,
        settleMs: 150,
      });
      const outcome = await waiting(
        { url: `${origin}/browser/conditional.html`, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' },
        new AbortController().signal,
      );
      await busy;
      if (!outcome.ok) throw new Error(`${outcome.errorCode}: ${outcome.detail}`);
      // Probing runs against the deadline: a deadline spent waiting would have probed nothing.
      expect(optionNamed(find(outcome.form.questions, 'sponsorship'), 'Yes').conditionalQuestions.map((question) => question.id)).toEqual([
        'visa',
      ]);
    } finally {
      await onePool.close();
    }
  }, 20_000);
});
