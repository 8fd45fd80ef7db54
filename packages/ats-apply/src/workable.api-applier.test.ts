import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minerFixture, type VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, jsonAt, mineWith, routerWith, expectRefusals } from './vendor-cases.test-support.ts';
import { startWorkableApiDouble, workableDoubleJobs } from '@quarry/testing';

const key = 'workable-token-1';
const jobUrl = (shortcode: string) => `https://apply.workable.com/acme/j/${shortcode}/`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'workable', board: 'acme', key };
type FormField = { id: string; type: string; required?: boolean; options?: Array<{ name: string; value: string }> };
const capturedFields = (JSON.parse(minerFixture('ats/workable/tenant-a.json')) as Array<{ fields: FormField[] }>).flatMap((section) => section.fields);

/** An answer to every mined question, by its kind (a choice by its label, as clients answer). */
function answerEvery(mined: Question[]): ResolvedAnswer[] {
  // The run places the candidate's details on the questions they answer.
  const details: Record<string, string> = { firstname: candidate.firstName, lastname: candidate.lastName, email: candidate.email, phone: candidate.phone };
  return mined.map((question): ResolvedAnswer => {
    if (details[question.id]) return { id: question.id, value: details[question.id] };
    switch (question.inputType) {
      case 'Boolean':
        return { id: question.id, value: question.id.endsWith('05') };
      case 'SelectOne':
      case 'SelectMultiple': {
        const labels = (question.options ?? []).flatMap((option) => ('answer' in option ? [option.answer] : []));
        return { id: question.id, value: question.inputType === 'SelectOne' ? labels[1] : labels.slice(0, 2) };
      }
      case 'File':
        return { id: question.id, value: cvFile() };
      case 'ArrayOfObjects':
        return question.id === 'education'
          ? { id: 'education', value: [[{ id: 'education.school', value: 'University of London' }, { id: 'education.start_date', value: '1832-09-01T00:00:00.000Z' }, { id: 'education.end_date', value: '1835-06-30' }]] }
          : { id: 'experience', value: [[{ id: 'experience.title', value: 'Analyst' }, { id: 'experience.current', value: true }, { id: 'experience.start_date', value: '1842-01-01' }]] };
      default:
        return { id: question.id, value: `Answer to ${question.id}\non two lines` };
    }
  });
}

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: jobUrl(workableDoubleJobs.tenantA),
  questions,
  answers: answerEvery(questions),
  candidate,
  credential,
  ...overrides,
});

beforeAll(async () => {
  double = await startWorkableApiDouble({ key });
  questions = await mineWith(endpoints(), jobUrl(workableDoubleJobs.tenantA));
});
afterAll(async () => double.close());

describe("Workable's candidate API transport", () => {
  it("sends every answer under Workable's key in its encoding (checked, choice ids, dates, base64 résumé), after beforeSubmit", async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^workable-candidate-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['workable:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe(`/accounts/acme/spi/v3/jobs/${workableDoubleJobs.tenantA}/candidates`);
    expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    expect(jsonAt(sent, 'sourced')).toBe(false);
    expect(jsonAt(sent, 'candidate.firstname')).toBe('Ada');
    expect(jsonAt(sent, 'candidate.lastname')).toBe('Lovelace');
    expect(jsonAt(sent, 'candidate.email')).toBe(candidate.email);
    expect(jsonAt(sent, 'candidate.phone')).toBe(candidate.phone);
    expect(jsonAt(sent, 'candidate.headline')).toBe('Answer to headline\non two lines');
    expect(jsonAt(sent, 'candidate.address')).toBe('Answer to address\non two lines');
    expect(jsonAt(sent, 'candidate.cover_letter')).toBe('Answer to cover_letter\non two lines');
    expect(jsonAt(sent, 'candidate.summary')).toBe('Answer to summary\non two lines');
    expect(Buffer.from(String(jsonAt(sent, 'candidate.resume.data')), 'base64')).toEqual(cvFile().bytes);
    expect(jsonAt(sent, 'candidate.resume.name')).toBe('Ada Lovelace CV.pdf');
    expect(jsonAt(sent, 'candidate.education_entries')).toEqual([{ school: 'University of London', start_date: '1832-09-01', end_date: '1835-06-30' }]);
    expect(jsonAt(sent, 'candidate.experience_entries')).toEqual([{ title: 'Analyst', current: true, start_date: '1842-01-01' }]);
    // Each employer question, checked against the captured form itself.
    const sentAnswers = new Map((jsonAt(sent, 'candidate.answers') as Array<{ question_key: string }>).map((answer) => [answer.question_key, answer]));
    const employerQuestions = capturedFields.filter((field) => field.id.startsWith('QA_'));
    expect([...sentAnswers.keys()].sort()).toEqual(employerQuestions.map((field) => field.id).sort());
    for (const field of employerQuestions) {
      const single = questions.find((question) => question.id === field.id)?.inputType === 'SelectOne';
      const optionIds = (field.options ?? []).map((option) => option.name);
      const expected =
        field.type === 'boolean'
          ? { checked: field.id.endsWith('05') }
          : field.type === 'multiple'
            ? { choices: single ? optionIds.slice(1, 2) : optionIds.slice(0, 2) }
            : { body: `Answer to ${field.id}\non two lines` };
      expect(sentAnswers.get(field.id), field.id).toEqual({ question_key: field.id, ...expected });
    }
  });

  it('refuses a required question left empty before anything is sent; the API itself answers 422', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answerEvery(questions).filter((answer) => answer.id !== 'QA_9530805') }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/QA_9530805/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports a closed job (its form answers 404) as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ url: jobUrl(workableDoubleJobs.closed) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Workable's refusals (blank field, invalid résumé, archived job, duplicate, rate limit, bad token) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [422, { error: "Validation failed: QA_9530805 can't be blank" }, 'MandatoryQuestionsNotAnswered', /can't be blank/],
        [422, { error: 'Validation failed: resume file type is not supported' }, 'FileTypeNotSupported', /file type/],
        [404, { error: 'Not found' }, 'JobExpired', /Not found/],
        [422, { error: 'Validation failed: candidate already exists for this job' }, 'AlreadyApplied', /already exists/],
        [429, { error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => application(),
      revokedKey: { application: application({ credential: { ...credential, key: 'revoked' } }), message: /Workable refused the registered API key \(HTTP 401/ },
      serverError: { status: 500, body: 'oops' },
    });
  });

  it('hands a file answer to an employer question (the API takes only its URL) to the hosted form, without the token', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const withFile = application({ answers: [...answerEvery(questions), { id: 'avatar', value: cvFile() }], questions: [...questions, { ...questions[0], id: 'avatar' } as Question] });
    await apply(applier, withFile, hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
