import { readFileSync } from 'node:fs';
import type { Question } from '@quarry/contracts';
import { createSafeFetch } from '@quarry/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, minerEndpointsFor, startAtsFixtureServer, type AtsFixtureServer } from '@quarry/testing/miner';
import { createMiner } from './ats-router.miner.ts';
import type { Miner, MineOutcome } from './miner-port.ts';

const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
let server: AtsFixtureServer;
let miner: Miner;
const handwritten = (name: string) => readFileSync(`${fixturesDir}handwritten/${name}`, 'utf8');
const json = (body: unknown, status = 200) => ({
  status,
  contentType: 'application/json',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

beforeAll(async () => {
  server = await startAtsFixtureServer();
  miner = createMiner({ fetch: safeFetch, timeoutMs: 1_000, endpoints: minerEndpointsFor(server.origin) });
});
afterAll(async () => {
  await safeFetch.close();
  await server.close();
});

const mine = (url: string): Promise<MineOutcome> =>
  miner({ url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' }, AbortSignal.timeout(10_000));

function questionsOf(outcome: MineOutcome): Question[] {
  if (!outcome.ok) throw new Error(`expected a form, got ${outcome.errorCode}: ${outcome.detail}`);
  return outcome.form.questions;
}

const byId = (questions: Question[], id: string): Question => {
  const found = questions.find((question) => question.id === id);
  if (!found) throw new Error(`no question ${id} in ${questions.map((question) => question.id).join(', ')}`);
  return found;
};

describe('createMiner: failure codes', () => {
  it.each([
    [404, 'JobNotFound'],
    [410, 'JobNotFound'],
    [401, 'LoginRequired'],
    [403, 'BotDetection'],
    [429, 'BotDetection'],
    [500, 'GenericWebsiteError'],
  ] as const)('maps HTTP %i from the form definition to %s', async (status, errorCode) => {
    server.route(`GET /workable/api/v1/jobs/STATUS${status}/form`, json({ message: 'x' }, status));
    expect(await mine(`https://apply.workable.com/acme/j/STATUS${status}/`)).toMatchObject({ ok: false, errorCode, adapter: 'workable' });
  });

  it('maps a definition that does not answer in time to NavigationTimeout', async () => {
    server.route('GET /workable/api/v1/jobs/SLOW000001/form', { ...json([]), delayMs: 3_000 });
    expect(await mine('https://apply.workable.com/acme/j/SLOW000001/')).toMatchObject({ ok: false, errorCode: 'NavigationTimeout' });
  });

  it('reports a payload of an unknown shape as a typed failure, not a crash', async () => {
    server.route('GET /workable/api/v1/jobs/SHAPE00001/form', json([{ name: 'Details', fields: [{ id: 7 }] }]));
    const outcome = await mine('https://apply.workable.com/acme/j/SHAPE00001/');
    expect(outcome).toMatchObject({ ok: false, errorCode: 'GenericWebsiteError' });
    expect(outcome.ok ? '' : outcome.detail).toMatch(/unexpected Workable form payload/);
  });

  it('reports a captcha page where JSON was expected as BotDetection', async () => {
    server.route('GET /workable/api/v1/jobs/WALL000001/form', {
      contentType: 'text/html',
      body: '<div class="cf-challenge">captcha</div>',
    });
    expect(await mine('https://apply.workable.com/acme/j/WALL000001/')).toMatchObject({ ok: false, errorCode: 'BotDetection' });
  });

  it('reports an empty form definition as FormNotFound', async () => {
    server.route('GET /workable/api/v1/jobs/EMPTY00001/form', json([]));
    expect(await mine('https://apply.workable.com/acme/j/EMPTY00001/')).toMatchObject({ ok: false, errorCode: 'FormNotFound' });
  });

  it('reports a closed BambooHR opening as JobExpired', async () => {
    server.route('GET /bamboohr/acme/careers/99/detail', json({ result: { jobOpening: { jobOpeningStatus: 'Filled' }, formFields: {} } }));
    expect(await mine('https://acme.bamboohr.com/careers/99')).toMatchObject({ ok: false, errorCode: 'JobExpired', adapter: 'bamboohr' });
  });

  it('reports an Ashby posting that answers null as JobExpired', async () => {
    expect(await mine('https://jobs.ashbyhq.com/acme/0a1b2c3d-0000-4000-8000-00000000ffff')).toMatchObject({
      ok: false,
      errorCode: 'JobExpired',
      adapter: 'ashby',
    });
  });

  it('reports a Breezy "Position Closed" page as JobExpired', async () => {
    server.route('GET /breezy/acme/p/0a1b2c3d4e00-closed/apply', {
      contentType: 'text/html',
      body: '<html><body><h1>Position Closed</h1></body></html>',
    });
    expect(await mine('https://acme.breezy.hr/p/0a1b2c3d4e00-closed')).toMatchObject({ ok: false, errorCode: 'JobExpired' });
  });

  it('reports a Lever 404 (closed posting) as JobNotFound', async () => {
    expect(await mine('https://jobs.lever.co/acme/0a1b2c3d-0000-4000-8000-0000000000ff/apply')).toMatchObject({
      ok: false,
      errorCode: 'JobNotFound',
      adapter: 'lever',
    });
  });

  it('reports a Workday posting LoginRequired without an account, and hands the account to the Workday miner only, for a Workday host only', async () => {
    const posting = 'https://acme.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1';
    const account = {
      ats: 'workday',
      board: 'acme.wd5.myworkdayjobs.com',
      email: 'ada@example.com',
      password: 'correct horse battery staple',
    };
    const { given, workday } = recordingWorkdayMiner();
    const routed = createMiner({
      fetch: safeFetch,
      timeoutMs: 1_000,
      endpoints: minerEndpointsFor(server.origin),
      workday,
      browser: workday,
    });
    const post = (url: string) => ({ url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' });
    const without = await routed(post(posting), AbortSignal.timeout(10_000));
    expect(without).toMatchObject({ ok: false, errorCode: 'LoginRequired', adapter: 'workday' });
    expect(without.ok || without.detail).toMatch(/candidate account on acme\.wd5\.myworkdayjobs\.com; the client registered none/);
    expect(given).toEqual([]);
    expect(await routed(post(posting), AbortSignal.timeout(10_000), { account })).toMatchObject({
      errorCode: 'FormNotFound',
      adapter: 'workday',
    });
    expect(given).toEqual([{ url: posting, account }]);
    // Another vendor's page never sees the account, even when the browser miner reads it.
    await routed(post(`${server.origin}/pages/missing.html`), AbortSignal.timeout(10_000), { account });
    expect(given.slice(1).map((call) => call.account)).toEqual(given.slice(1).map(() => undefined));
    // Without a browser the account cannot be used: said plainly.
    expect(await mine(posting)).toMatchObject({ ok: false, errorCode: 'LoginRequired' });
    expect(await miner(post(posting), AbortSignal.timeout(10_000), { account })).toMatchObject({
      ok: false,
      errorCode: 'UnsupportedWebsite',
      adapter: 'workday',
    });
  });

  it('routes a myworkdaysite.com posting to the Workday miner like a tenant of its own host: LoginRequired on its host and tenant without an account', async () => {
    const posting = 'https://wd5.myworkdaysite.com/en-US/recruiting/acme/External/job/London/Engineer_R1';
    const account = {
      ats: 'workday',
      board: 'wd5.myworkdaysite.com/acme',
      email: 'ada@example.com',
      password: 'correct horse battery staple',
    };
    const { given, workday } = recordingWorkdayMiner();
    const routed = createMiner({ fetch: safeFetch, timeoutMs: 1_000, endpoints: minerEndpointsFor(server.origin), workday });
    const post = (url: string) => ({ url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' });
    const without = await routed(post(posting), AbortSignal.timeout(10_000));
    expect(without).toMatchObject({ ok: false, errorCode: 'LoginRequired', adapter: 'workday' });
    expect(without.ok || without.detail).toMatch(/candidate account on wd5\.myworkdaysite\.com\/acme; the client registered none/);
    expect(await routed(post(posting), AbortSignal.timeout(10_000), { account })).toMatchObject({
      errorCode: 'FormNotFound',
      adapter: 'workday',
    });
    expect(given).toEqual([{ url: posting, account }]);
  });

  it('reports iCIMS, and a myworkdaysite.com address naming no tenant, as UnsupportedWebsite without fetching them', async () => {
    expect(await mine('https://wd5.myworkdaysite.com/en-US/acme/job/London/Engineer_R1')).toMatchObject({
      ok: false,
      errorCode: 'UnsupportedWebsite',
      adapter: null,
    });
    expect(await mine('https://careers-acme.icims.com/jobs/1234/engineer/job')).toMatchObject({
      ok: false,
      errorCode: 'UnsupportedWebsite',
      adapter: null,
    });
  });
});

/** A stand-in for the Workday miner that records each posting and account it was handed. */
function recordingWorkdayMiner(): { given: Array<{ url: string; account: unknown }>; workday: Miner } {
  const given: Array<{ url: string; account: unknown }> = [];
  const workday: Miner = async (jobPost, _signal, access) => {
    given.push({ url: jobPost.url, account: access?.account });
    return { ok: false, errorCode: 'FormNotFound', adapter: 'workday', detail: 'stand-in' };
  };
  return { given, workday };
}

describe('createMiner: routing', () => {
  it('sends an unrecognised careers page to the generic HTML miner', async () => {
    const outcome = await mine(`${server.origin}/pages/dom/greenhouse-form.html`);
    expect(outcome).toMatchObject({ ok: true, adapter: 'html-form' });
  });

  it('resolves a ?gh_jid= career page to its Greenhouse board and mines the board API', async () => {
    server.route('GET /greenhouse-boards/embed/job_app?token=4000000001', {
      status: 301,
      contentType: 'text/html',
      body: '',
      headers: { location: 'https://boards.greenhouse.io/embed/job_app?for=acme&token=4000000001' },
    });
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000001?questions=true', json(handwritten('greenhouse-job.json')));
    const outcome = await mine('https://careers.acme.example/open-roles?gh_jid=4000000001');
    expect(outcome).toMatchObject({ ok: true, adapter: 'greenhouse' });
  });

  it('falls back to the page itself when Greenhouse cannot name the board', async () => {
    server.route('GET /pages/careers?gh_jid=4000000002', {
      contentType: 'text/html',
      body: '<form><label for="e">Email</label><input id="e" name="email" type="email"></form>',
    });
    const outcome = await mine(`${server.origin}/pages/careers?gh_jid=4000000002`);
    expect(outcome).toMatchObject({ ok: true, adapter: 'html-form' });
  });

  it('mines the ATS posting a form-less careers page embeds in an iframe', async () => {
    server.route('GET /pages/embedded-lever', {
      contentType: 'text/html',
      body: '<html><body><h1>Engineer</h1><iframe src="https://jobs.lever.co/acme/0a1b2c3d-0000-4000-8000-0000000000b1/apply"></iframe></body></html>',
    });
    const outcome = await mine(`${server.origin}/pages/embedded-lever`);
    expect(outcome).toMatchObject({ ok: true, adapter: 'lever' });
    expect(questionsOf(outcome).map((question) => question.id)).toContain('eeo[veteran]');
  });

  it('follows a single Apply link to an ATS posting, but does not guess between several', async () => {
    server.route('GET /pages/apply-link', {
      contentType: 'text/html',
      body: '<p>Engineer</p><a href="https://apply.workable.com/acme/j/ACME00002/">Apply</a>',
    });
    expect(await mine(`${server.origin}/pages/apply-link`)).toMatchObject({ ok: true, adapter: 'workable' });
    server.route('GET /pages/job-list', {
      contentType: 'text/html',
      body: '<a href="https://apply.workable.com/acme/j/ACME00001/">One</a><a href="https://apply.workable.com/acme/j/ACME00002/">Two</a>',
    });
    expect(await mine(`${server.origin}/pages/job-list`)).toMatchObject({ ok: false, errorCode: 'FormNotFound', adapter: 'html-form' });
  });

  it('gives the same ids when the same posting is mined again', async () => {
    const url = 'https://jobs.lever.co/acme/0a1b2c3d-0000-4000-8000-0000000000a1/apply';
    expect(questionsOf(await mine(url)).map((question) => question.id)).toEqual(
      questionsOf(await mine(url)).map((question) => question.id),
    );
  });
});

const greenhouseDocumented = (name: string) =>
  readFileSync(new URL(`../../testing/fixtures/vendor-apis/greenhouse/${name}`, import.meta.url), 'utf8');
const choiceTree = (question: Question) =>
  question.options?.map((option) =>
    'answer' in option ? [option.answer, option.conditionalQuestions.map((conditional) => conditional.id)] : option.id,
  );

describe('Greenhouse board API mapping', () => {
  it('maps questions, location, education, EEOC as the API takes it, and demographic self-describe boxes (hand-written payload)', async () => {
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000001?questions=true', json(handwritten('greenhouse-job.json')));
    const questions = questionsOf(await mine('https://job-boards.greenhouse.io/acme/jobs/4000000001'));
    expect(questions.map((question) => question.id)).not.toContain('question_30000005');
    expect(byId(questions, 'first_name')).toEqual({
      id: 'first_name',
      question: 'First Name',
      inputType: 'Text',
      label: 'Backend Engineer',
      mandatory: true,
      category: 'firstName',
    });
    expect(byId(questions, 'question_30000002')).toMatchObject({
      inputType: 'SelectOne',
      mandatory: true,
      category: 'sponsorship',
      options: [{ answer: 'Yes' }, { answer: 'No' }],
    });
    expect(byId(questions, 'question_30000003')).toMatchObject({
      inputType: 'SelectMultiple',
      options: [{ answer: 'English' }, { answer: 'Spanish' }],
    });
    expect(byId(questions, 'education')).toMatchObject({ inputType: 'ArrayOfObjects', mandatory: false, category: 'education' });
    expect(byId(questions, 'compliance_0_eeoc')).toMatchObject({
      inputType: 'TextLiteral',
      value: '<p>PUBLIC BURDEN STATEMENT: This survey should take about 5 minutes.</p>',
    });
    // The Job Board API has no field for a Hispanic/Latino question: Race is asked as the block lists it.
    expect(questions.map((question) => question.id)).not.toContain('hispanic_ethnicity');
    expect(byId(questions, 'race')).toMatchObject({
      inputType: 'SelectOne',
      category: 'race',
      options: [{ answer: 'Asian' }, { answer: 'White' }, { answer: 'Decline To Self Identify' }],
    });
    expect(byId(questions, 'veteran_status')).toMatchObject({ category: 'veteran' });
    const gender = byId(questions, 'demographic_7001');
    expect(gender.options?.[1]).toMatchObject({
      answer: 'I prefer to self-describe',
      conditionalQuestions: [{ id: 'demographic_7001_82_text', inputType: 'Text' }],
    });
  });

  it('mines a file-or-text field (résumé, cover letter) as one question whose parts are the file and the text, required as the post says', async () => {
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000001?questions=true', json(handwritten('greenhouse-job.json')));
    const questions = questionsOf(await mine('https://job-boards.greenhouse.io/acme/jobs/4000000001'));
    const accept = ['.pdf', '.doc', '.docx', '.txt', '.rtf'];
    expect(byId(questions, 'resume_or_text')).toEqual({
      id: 'resume_or_text',
      question: 'Resume/CV',
      inputType: 'FragmentedQuestion',
      label: 'Backend Engineer',
      mandatory: true,
      category: 'resume',
      options: [
        { id: 'resume', question: 'Resume/CV (file)', inputType: 'File', label: 'Backend Engineer', mandatory: false, accept },
        { id: 'resume_text', question: 'Resume/CV (text)', inputType: 'TextArea', label: 'Backend Engineer', mandatory: false },
      ],
    });
    expect(byId(questions, 'cover_letter_or_text')).toMatchObject({
      mandatory: false,
      category: 'coverLetter',
      options: [
        { id: 'cover_letter', inputType: 'File' },
        { id: 'cover_letter_text', inputType: 'TextArea' },
      ],
    });
    expect(questions.map((question) => question.id)).not.toContain('resume');
  });

  it("mines the location's hidden coordinates as optional questions, in both shapes a post gives them", async () => {
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000001?questions=true', json(handwritten('greenhouse-job.json')));
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000011?questions=true', json(greenhouseDocumented('backend-engineer.json')));
    for (const id of ['4000000001', '4000000011']) {
      const questions = questionsOf(await mine(`https://job-boards.greenhouse.io/acme/jobs/${id}`));
      expect(byId(questions, 'location')).toMatchObject({ inputType: 'Text', mandatory: true, category: 'city' });
      expect(byId(questions, 'latitude')).toMatchObject({ inputType: 'Text', mandatory: false });
      expect(byId(questions, 'longitude')).toMatchObject({ inputType: 'Text', mandatory: false });
    }
  });

  it('mines the GDPR consents a post requires: single-purpose (processing, retention), or the one general consent and the demographic-data consent', async () => {
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000002?questions=true', json(greenhouseDocumented('data-analyst-eu.json')));
    server.route('GET /greenhouse-api/v1/boards/acme/jobs/4000000003?questions=true', json(greenhouseDocumented('support-agent-eu.json')));
    const singlePurpose = questionsOf(await mine('https://job-boards.greenhouse.io/acme/jobs/4000000002')).filter(
      (question) => question.category === 'consent',
    );
    expect(singlePurpose.map((question) => [question.id, question.inputType, question.mandatory])).toEqual([
      ['data_compliance[gdpr_processing_consent_given]', 'Boolean', true],
      ['data_compliance[gdpr_retention_consent_given]', 'Boolean', true],
    ]);
    const general = questionsOf(await mine('https://job-boards.greenhouse.io/acme/jobs/4000000003')).filter(
      (question) => question.category === 'consent',
    );
    expect(general.map((question) => [question.id, question.mandatory])).toEqual([
      ['data_compliance[gdpr_consent_given]', true],
      ['data_compliance[gdpr_demographic_data_consent_given]', false],
    ]);
    const questions = questionsOf(await mine('https://job-boards.greenhouse.io/acme/jobs/4000000002'));
    expect(byId(questions, 'question_40000004')).toMatchObject({ inputType: 'File', mandatory: true });
    expect(choiceTree(byId(questions, 'question_40000001'))).toEqual([
      ['No', []],
      ['Yes', []],
    ]);
  });
});

describe('Recruitee offers mapping (hand-written payload)', () => {
  it('maps the standard toggles and open questions, and reports an unlisted offer as JobNotFound', async () => {
    server.route('GET /recruitee/acme/api/offers/', json(handwritten('recruitee-offers.json')));
    const questions = questionsOf(await mine('https://acme.recruitee.com/o/backend-engineer'));
    expect(questions.map((question) => [question.id, question.inputType, question.mandatory])).toEqual([
      ['candidate.name', 'Text', true],
      ['candidate.email', 'Text', true],
      ['candidate.phone', 'Text', true],
      ['candidate.cv', 'File', true],
      ['candidate.cover_letter', 'TextArea', false],
      ['open_question_501', 'Boolean', true],
      ['open_question_502', 'SelectMultiple', false],
      ['open_question_503', 'TextLiteral', false],
      ['open_question_504', 'Text', true],
    ]);
    expect(byId(questions, 'open_question_501')).toMatchObject({ category: 'workAuthorization' });
    expect(byId(questions, 'open_question_504')).toMatchObject({ category: 'startDate' });
    expect(await mine('https://acme.recruitee.com/o/closed-role')).toMatchObject({ ok: false, errorCode: 'JobNotFound' });
  });
});
