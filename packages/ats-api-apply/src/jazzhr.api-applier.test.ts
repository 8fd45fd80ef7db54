import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jazzApplicantParameters, jazzDoubleJobs, startJazzApiDouble } from '@quarry/testing';
import { jazzApiCoverage } from './jazzhr.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, mineWith, routerWith, expectRefusals } from '@quarry/testing/ats-api-apply';

const key = 'jazz-key-1';
const jobUrl = (code: string) => `https://acme.applytojob.com/apply/${code}/Example-Job`;
let double: Awaited<ReturnType<typeof startJazzApiDouble>>;
/** The posting whose every box has an applicant parameter. */
let carried: Question[];
/** The posting with a questionnaire, canned yes/no questions, education and EEO. */
let withQuestionnaire: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'jazzhr', board: 'acme', key };

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'resumator-firstname-value', value: 'Ada' },
    { id: 'resumator-lastname-value', value: 'Lovelace' },
    { id: 'resumator-email-value', value: candidate.email },
    { id: 'resumator-phone-value', value: candidate.phone },
    { id: 'resumator-address-value', value: '12 St James’s Square' },
    { id: 'resumator-city-value', value: 'London' },
    { id: 'resumator-state-value', value: 'Greater London' },
    { id: 'resumator-postal-value', value: 'SW1Y 4JH' },
    { id: 'resumator-resume-value', value: cvFile() },
    { id: 'resumator-coverletter-value', value: 'Dear Acme,\nI write programs.' },
    { id: 'resumator-start-value', value: '2027-01-04T00:00:00.000Z' },
    { id: 'resumator-salary-value', value: '£85,000' },
    { id: 'resumator-linkedin-value', value: 'https://www.linkedin.com/in/ada' },
    { id: 'resumator-references-value', value: 'Charles Babbage, +44 20 7946 0001' },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: jobUrl(jazzDoubleJobs.carried),
  questions: carried,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});

beforeAll(async () => {
  double = await startJazzApiDouble({ key });
  carried = await mineWith(endpoints(), jobUrl(jazzDoubleJobs.carried));
  withQuestionnaire = await mineWith(endpoints(), jobUrl(jazzDoubleJobs.withQuestionnaire));
});
afterAll(async () => double.close());

describe("JazzHR's applicants API transport", () => {
  it('sends each answered box under its documented applicant parameter, the job by its API id and the résumé in base64, after beforeSubmit; JazzHR keeps every one', async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^prospect_/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['jazzhr:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    const { 'base64-resume': resume, ...rest } = sent?.json as Record<string, string>;
    expect(rest).toEqual({
      apikey: key,
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: candidate.email,
      phone: candidate.phone,
      address: '12 St James’s Square',
      city: 'London',
      state: 'Greater London',
      postal: 'SW1Y 4JH',
      coverletter: 'Dear Acme,\nI write programs.',
      start: '2027-01-04',
      salary: '£85,000',
      linkedin: 'https://www.linkedin.com/in/ada',
      references: 'Charles Babbage, +44 20 7946 0001',
      job: 'job_20261101090000_PLATFORMENG',
    });
    expect(Buffer.from(resume ?? '', 'base64')).toEqual(cvFile().bytes);
    // Every parameter sent is one the coverage lists and JazzHR documents, so JazzHR kept it.
    const listed = new Set(jazzApiCoverage.fields.map((field) => field.field));
    const documented = new Set<string>(jazzApplicantParameters);
    for (const name of Object.keys(sent?.json as object)) {
      expect(listed, name).toContain(name);
      expect(documented, name).toContain(name);
    }
    const { apikey: _key, ...keptAsSent } = sent?.json as Record<string, unknown>;
    expect(double.applicants().at(-1)).toEqual(keptAsSent);
  });

  it('refuses a box the page requires and JazzHR does not (the city) before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answers(['resumator-city-value']) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/resumator-city-value/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports a job the API lists as Closed as JobExpired, and one it does not list as JobNotFound, without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    expect(await apply(applier, application({ url: jobUrl(jazzDoubleJobs.closed) }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(await apply(applier, application({ url: jobUrl('ZzZzZ99999') }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobNotFound',
      submitted: false,
    });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps JazzHR's refusals (missing field, invalid résumé, duplicate, bad key) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'email is required' }, 'MandatoryQuestionsNotAnswered', /email is required/],
        [400, { error: 'base64-resume: invalid file format' }, 'FileTypeNotSupported', /invalid file format/],
        [409, { error: 'Applicant already exists for this job' }, 'AlreadyApplied', /already exists/],
      ],
      application: () => application(),
      revokedKey: {
        application: application({ credential: { ...credential, key: 'revoked' } }),
        message: /JazzHR refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 500, body: 'oops' },
    });
  });

  it('hands questionnaire, canned yes/no, education and EEO answers (no documented value) to the hosted form, naming each, without the key', async () => {
    // The EEO status radios are one choice each (the miner once read every radio as its own text box).
    const veteran = withQuestionnaire.filter((question) => question.id === 'resumator-eeoc_veteran-value');
    expect(veteran).toHaveLength(1);
    expect(veteran[0]).toMatchObject({ inputType: 'SelectOne', category: 'veteran' });
    expect(veteran[0]?.options).toHaveLength(3);
    const pageOnly = withQuestionnaire.filter((question) =>
      /questionnaire|eeo|over18|weekends|evenings|license|education/.test(question.id),
    );
    expect(new Set(pageOnly.map((question) => question.inputType))).toEqual(
      new Set(['SelectOne', 'SelectMultiple', 'Text', 'TextArea', 'Date']),
    );
    for (const question of pageOnly) {
      const { applier, hostedForm } = routerWith(endpoints());
      const before = double.submissions().length;
      const value =
        question.inputType === 'SelectMultiple'
          ? [question.options?.[0] && 'answer' in question.options[0] ? question.options[0].answer : '']
          : question.inputType === 'SelectOne'
            ? question.options?.[0] && 'answer' in question.options[0]
              ? question.options[0].answer
              : ''
            : question.inputType === 'Date'
              ? '2026-11-28'
              : 'Four years';
      const outcome = await apply(
        applier,
        application({
          url: jobUrl(jazzDoubleJobs.withQuestionnaire),
          questions: withQuestionnaire,
          answers: [...answers(), { id: question.id, value }],
        }),
        hooksOn(double),
      );
      expect(hostedForm.calls, question.id).toHaveLength(1);
      expect(hostedForm.calls[0]?.credential).toBeUndefined();
      expect(outcome.transport).toMatchObject({ kind: 'hostedForm' });
      expect(double.submissions().length).toBe(before);
    }
  });
});
