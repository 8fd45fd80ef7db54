import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { ashbyDoublePostings, startAshbyApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ashbyApiCoverage } from './ashby.api-applier.ts';
import { apply, candidate, cvFile, expectRefusals, hooksOn, mineWith, partsNamed, routerWith } from '@quarry/testing/ats-api-apply';

const key = 'ashby-key-1';
const postingUrl = (id: string) => `https://jobs.ashbyhq.com/acme/${id}`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'ashby', board: 'acme', key };
const field = (suffix: string) => `0a1b2c3d-0000-4000-8000-0000000000${suffix}`;
const education = '_systemfield_education_history';
const sample = () => ({ ...cvFile(), filename: 'sample.txt', contentType: 'text/plain', bytes: Buffer.from('fn main() {}\n') });

/** An answer to every question of the every-kind posting, surveys included. */
const answers = (email = candidate.email): ResolvedAnswer[] => [
  { id: '_systemfield_name', value: 'Ada Lovelace' },
  { id: '_systemfield_email', value: email },
  { id: '_systemfield_phone', value: candidate.phone },
  { id: '_systemfield_location', value: 'London, England, United Kingdom' },
  { id: '_systemfield_resume', value: cvFile() },
  { id: field('a1'), value: 'https://www.linkedin.com/in/ada' },
  { id: field('b1'), value: true },
  { id: field('b2'), value: '2027-01-04T00:00:00.000Z' },
  { id: field('b3'), value: '7' },
  { id: field('b4'), value: 'The engines.\nAnd the notes.' },
  { id: field('b5'), value: 'Remote (UK)' },
  { id: field('b6'), value: ['English', 'Spanish'] },
  { id: field('b7'), value: 'The Analytical Engine notes.' },
  { id: field('b8'), value: '4' },
  { id: field('b9'), value: sample() },
  {
    id: education,
    value: [
      [
        { id: `${education}.schoolName`, value: 'University of London' },
        { id: `${education}.degree`, value: 'BSc' },
        { id: `${education}.startDate`, value: '1830-09-01' },
      ],
    ],
  },
  { id: field('ba'), value: 'A friend' },
  { id: '_systemfield_eeoc_gender', value: 'Female' },
  { id: '_systemfield_eeoc_veteran_status', value: 'I am not a protected veteran' },
  { id: '_systemfield_data_consent_ack', value: true },
];
let people = 0;
const someoneNew = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => {
  const email = `ada+${(people += 1)}@example.com`;
  return {
    url: postingUrl(ashbyDoublePostings.everyKind),
    questions,
    answers: answers(email),
    candidate: { ...candidate, email },
    credential,
    ...overrides,
  };
};

beforeAll(async () => {
  double = await startAshbyApiDouble({ key });
  questions = await mineWith(endpoints(), postingUrl(ashbyDoublePostings.everyKind));
});
afterAll(async () => double.close());

describe("Ashby's applicationForm.submit transport", () => {
  it('mines a question for every field of the form and of its surveys', () => {
    expect(new Set(questions.filter((question) => question.inputType !== 'TextLiteral').map((question) => question.id))).toEqual(
      new Set([...answers().map((answer) => answer.id), '_systemfield_eeoc_race', '_systemfield_eeoc_disability_status']),
    );
  });

  it('sends every answer under its path in the value its type documents, files as parts, surveys through surveySubmission.create', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const application = someoneNew();
    const outcome = await apply(applier, application, hooks);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'success', transport: { kind: 'vendorApi', vendor: 'ashby' } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [submit, ...surveys] = double.submissions().slice(before);
    const parts = submit?.parts ?? [];
    expect(partsNamed(parts, 'jobPostingId')).toEqual([ashbyDoublePostings.everyKind]);
    expect(partsNamed(parts, 'allowSubmissionForUnpublishedJobPosting')).toEqual(['false']);
    const submitted = JSON.parse(String(partsNamed(parts, 'applicationForm')[0])) as {
      fieldSubmissions: Array<{ path: string; value: unknown }>;
    };
    expect(Object.fromEntries(submitted.fieldSubmissions.map((entry) => [entry.path, entry.value]))).toEqual({
      _systemfield_name: 'Ada Lovelace',
      _systemfield_email: application.candidate.email,
      _systemfield_phone: candidate.phone,
      _systemfield_location: { city: 'London', region: 'England', country: 'United Kingdom' },
      _systemfield_resume: '_systemfield_resume',
      [field('a1')]: 'https://www.linkedin.com/in/ada',
      [field('b1')]: true,
      [field('b2')]: '2027-01-04',
      [field('b3')]: 7,
      [field('b4')]: 'The engines.\nAnd the notes.',
      [field('b5')]: 'remote-uk',
      [field('b6')]: ['en', 'es'],
      [field('b7')]: { type: 'PlainText', value: 'The Analytical Engine notes.' },
      [field('b8')]: { score: 4 },
      [field('b9')]: field('b9'),
      [education]: [{ schoolName: 'University of London', degree: 'BSc', startDate: '1830-09-01' }],
      [field('ba')]: 'A friend',
    });
    expect(partsNamed(parts, '_systemfield_resume')).toEqual([
      { filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes },
    ]);
    expect(partsNamed(parts, field('b9'))).toEqual([{ filename: 'sample.txt', type: 'text/plain', bytes: sample().bytes }]);
    expect(surveys.map((survey) => [survey.path, (survey.json as { submittedValues: unknown }).submittedValues])).toEqual([
      ['/surveySubmission.create', { _systemfield_eeoc_gender: 'Female', _systemfield_eeoc_veteran_status: 'not-veteran' }],
      ['/surveySubmission.create', { _systemfield_data_consent_ack: true }],
    ]);
    expect(ashbyApiCoverage.fields.map((entry) => entry.field)).toEqual(
      expect.arrayContaining(['jobPostingId', 'allowSubmissionForUnpublishedJobPosting', 'applicationForm']),
    );
    const named = new Set(ashbyApiCoverage.fields.map((entry) => entry.field));
    for (const [name, value] of parts)
      expect(named.has(name) || (typeof value !== 'string' && named.has('<file part named by its value>')), name).toBe(true);
  });

  it('refuses a required answer left empty (and an unknown option) before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const application = someoneNew();
    const missing = await apply(
      applier,
      { ...application, answers: application.answers.filter((answer) => answer.id !== field('b1')) },
      hooks,
    );
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    const unknownOption = await apply(
      applier,
      {
        ...application,
        answers: [...application.answers.filter((answer) => answer.id !== field('b5')), { id: field('b5'), value: 'Mars' }],
      },
      hooks,
    );
    expect(unknownOption).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports an unpublished posting, which Ashby refuses with job_posting_not_published, as JobExpired', async () => {
    const { applier } = routerWith(endpoints());
    const application = someoneNew({ url: postingUrl(ashbyDoublePostings.closed) });
    const outcome = await apply(
      applier,
      {
        ...application,
        answers: application.answers.filter(
          (answer) =>
            answer.id.startsWith('_systemfield_') && ['_systemfield_name', '_systemfield_email', '_systemfield_phone'].includes(answer.id),
        ),
      },
      hooksOn(double),
    );
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/job_posting_not_published/);
  });

  it('maps a second application of the same email to the role, which Ashby blocks by its application limits, to AlreadyApplied', async () => {
    const { applier } = routerWith(endpoints());
    const first = someoneNew();
    expect(await apply(applier, first, hooksOn(double))).toMatchObject({ status: 'success' });
    const again = await apply(applier, first, hooksOn(double));
    expect(again).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied', submitted: false });
    expect(again.status === 'failed' && again.message).toMatch(/one application per candidate/);
  });

  it("maps Ashby's documented failures (by errorInfo code first, message second) to the interface's codes, a 5xx to unknown", async () => {
    const { applier } = routerWith(endpoints());
    const error = (code: string, message: string) => ({ success: false, errors: [code], errorInfo: { code, message } });
    await expectRefusals(double, applier, {
      cases: [
        [200, error('job_posting_not_published', 'The job posting is not published'), 'JobExpired', /not published/],
        [200, error('invalid_input', 'Missing required field: Preferred office'), 'MandatoryQuestionsNotAnswered', /Preferred office/],
        [200, error('invalid_input', 'Resume: file type not supported'), 'FileTypeNotSupported', /file type not supported/],
        [200, error('invalid_input', 'Email: email is not a valid email address'), 'ApplicantDetailsInvalid', /not a valid email/],
        [429, error('rate_limit_exceeded', 'Too many requests'), 'ApplicationFailed', /rate-limited/],
      ],
      application: () => someoneNew(),
      revokedKey: {
        application: someoneNew({ credential: { ...credential, key: 'revoked' } }),
        message: /Ashby refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 503, body: 'unavailable' },
    });
    // The documented way to see a validation failure: this email always fails.
    const simulated = await apply(
      applier,
      {
        ...someoneNew(),
        answers: answers('testing-fail-validation@example.com'),
        candidate: { ...candidate, email: 'testing-fail-validation@example.com' },
      },
      hooksOn(double),
    );
    expect(simulated).toMatchObject({ status: 'failed', submitted: false });
  });

  it('says the application was submitted when a survey is refused after it', async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext({
      status: 200,
      body: { success: true, results: { submittedFormInstance: { id: 'missing-instance' }, formMessages: { blocked: false } } },
    });
    const outcome = await apply(applier, someoneNew(), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: true });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/recorded the application .* not its survey answers/);
  });

  it('hands to the hosted form, without the key, an answer the form has no field for', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const application = someoneNew();
    await apply(applier, { ...application, answers: [...application.answers, { id: 'not-a-field', value: 'x' }] }, hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
