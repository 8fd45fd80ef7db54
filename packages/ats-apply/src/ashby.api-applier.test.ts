import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ashbyDoublePostings, startAshbyApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'ashby-key-1';
const postingUrl = (id: string) => `https://jobs.ashbyhq.com/acme/${id}`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'ashby', board: 'acme', key };
const field = (suffix: string) => `0a1b2c3d-0000-4000-8000-0000000000${suffix}`;

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: '_systemfield_name', value: 'Ada Lovelace' },
    { id: '_systemfield_email', value: candidate.email },
    { id: '_systemfield_resume', value: cvFile() },
    { id: field('b1'), value: true },
    { id: field('b2'), value: '2027-01-04T00:00:00.000Z' },
    { id: field('b3'), value: '7' },
    { id: field('b4'), value: 'The engines.\nAnd the notes.' },
    { id: field('b5'), value: 'Remote (UK)' },
    { id: field('b6'), value: ['English', 'Spanish'] },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: postingUrl(ashbyDoublePostings.everyKind),
  questions,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});
/** Another candidate each time: the double blocks a second application of an email to a role. */
let sequence = 0;
const someoneNew = (overrides: Partial<ApplicationToSubmit> = {}) => {
  sequence += 1;
  const email = `candidate-${sequence}@example.com`;
  return application({ candidate: { ...candidate, email }, answers: answers(['_systemfield_email']), ...overrides });
};

beforeAll(async () => {
  double = await startAshbyApiDouble({ key });
  questions = await mineWith(endpoints(), postingUrl(ashbyDoublePostings.everyKind));
});
afterAll(async () => double.close());

describe("Ashby's applicationForm.submit transport", () => {
  it("sends every answer by its Ashby path in Ashby's types, the résumé byte for byte, within the rate, after beforeSubmit", async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^ashby-form-instance-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['ashby:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe('/applicationForm.submit');
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
    const parts = sent?.parts ?? [];
    expect(partsNamed(parts, 'jobPostingId')).toEqual([ashbyDoublePostings.everyKind]);
    expect(partsNamed(parts, 'allowSubmissionForUnpublishedJobPosting')).toEqual(['false']);
    const submitted = JSON.parse(String(partsNamed(parts, 'applicationForm')[0])) as { fieldSubmissions: Array<{ path: string; value: unknown }> };
    expect(Object.fromEntries(submitted.fieldSubmissions.map((entry) => [entry.path, entry.value]))).toEqual({
      _systemfield_name: 'Ada Lovelace',
      _systemfield_email: candidate.email,
      _systemfield_phone: candidate.phone,
      // A file's value names the part that carries its bytes.
      _systemfield_resume: '_systemfield_resume',
      [field('b1')]: true,
      [field('b2')]: '2027-01-04',
      [field('b3')]: 7,
      [field('b4')]: 'The engines.\nAnd the notes.',
      [field('b5')]: 'remote-uk',
      [field('b6')]: ['en', 'es'],
    });
    expect(partsNamed(parts, '_systemfield_resume')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
  });

  it('refuses a required answer left empty (and an unknown option) before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const missing = await apply(applier, someoneNew({ answers: answers(['_systemfield_email', field('b1')]) }), hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(missing.status === 'failed' && missing.message).toMatch(new RegExp(field('b1')));
    const unknownOption = await apply(applier, someoneNew({ answers: [...answers(['_systemfield_email', field('b5')]), { id: field('b5'), value: 'Mars' }] }), hooks);
    expect(unknownOption).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports a closed posting (the posting query answers null) as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, someoneNew({ url: postingUrl(ashbyDoublePostings.closed) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('maps a second application of the same email to the role, which Ashby blocks, to AlreadyApplied', async () => {
    const { applier } = routerWith(endpoints());
    const first = someoneNew();
    expect(await apply(applier, first, hooksOn(double))).toMatchObject({ status: 'success' });
    const again = await apply(applier, first, hooksOn(double));
    expect(again).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied', submitted: false });
    expect(again.status === 'failed' && again.message).toMatch(/one application per role per 60 days/);
  });

  it("maps Ashby's refusals (unpublished, missing field, invalid file, rate limit, bad key) to the interface's codes, and a 5xx to unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [200, { success: false, errors: ['Job posting is not published or does not exist'] }, 'JobExpired', /not published/],
        [200, { success: false, errors: ['Missing required field: Preferred office'] }, 'MandatoryQuestionsNotAnswered', /Preferred office/],
        [200, { success: false, errors: ['invalid_input: _systemfield_resume: file type not supported'] }, 'FileTypeNotSupported', /file type not supported/],
        [429, { success: false, errors: ['rate_limit_exceeded'] }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => someoneNew(),
      revokedKey: { application: someoneNew({ credential: { ...credential, key: 'revoked' } }), message: /Ashby refused the registered API key \(HTTP 401/ },
      serverError: { status: 503, body: 'unavailable' },
    });
  });

  it('hands to the hosted form, without the key, answers the call has no field for: survey consents, education history', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const consentUrl = postingUrl(ashbyDoublePostings.consent);
    const consentQuestions = await mineWith(endpoints(), consentUrl);
    const consents = consentQuestions.filter((question) => question.id !== '_systemfield_name').map((question) => ({ id: question.id, value: (question.options ?? []).flatMap((option) => ('answer' in option ? [option.answer] : [])) }));
    expect(consents.map((answer) => answer.id)).toEqual(['_systemfield_data_consent_ack', 'untitled']);
    await apply(applier, someoneNew({ url: consentUrl, questions: consentQuestions, answers: [{ id: '_systemfield_name', value: 'Ada Lovelace' }, ...consents] }), hooksOn(double));

    const educationUrl = postingUrl(ashbyDoublePostings.surveyKinds);
    const educationQuestions = await mineWith(endpoints(), educationUrl);
    const education = [{ id: '_systemfield_education_history', value: [[{ id: '_systemfield_education_history.schoolName', value: 'University of London' }]] }];
    await apply(applier, someoneNew({ url: educationUrl, questions: educationQuestions, answers: [{ id: field('a2'), value: 'https://linkedin.example/in/ada' }, ...education] }), hooksOn(double));

    expect(hostedForm.calls).toHaveLength(2);
    expect(hostedForm.calls.map((call) => call.credential)).toEqual([undefined, undefined]);
    expect(double.submissions().length).toBe(before);
  });
});
