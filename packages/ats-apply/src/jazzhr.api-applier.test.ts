import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jazzDoubleJobs, startJazzApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'jazz-key-1';
const jobUrl = (code: string) => `https://acme.applytojob.com/apply/${code}/Example-Job`;
let double: VendorApiDouble;
let captured: Question[];
/** The captured page without its questionnaire and EEO block: what the API can carry whole. */
let questions: Question[];
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
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url: jobUrl(jazzDoubleJobs.tenantB), questions, answers: answers(), candidate, credential, ...overrides });

beforeAll(async () => {
  double = await startJazzApiDouble({ key });
  captured = await mineWith(endpoints(), jobUrl(jazzDoubleJobs.tenantB));
  questions = captured.filter((question) => !question.id.startsWith('resumator-questionnaire') && !question.id.startsWith('resumator-eeo'));
});
afterAll(async () => double.close());

describe("JazzHR's applicants API transport", () => {
  it("sends each field of the apply page under the API's attribute, the job by its API id and the résumé byte for byte in base64, after beforeSubmit", async () => {
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
      job: 'job_20261101090000_TENANTB',
    });
    expect(Buffer.from(resume ?? '', 'base64')).toEqual(cvFile().bytes);
  });

  it('refuses a field the page requires and JazzHR does not (the address) before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answers(['resumator-city-value']) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/resumator-city-value/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports a job the API lists as Closed, or does not list, as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    expect(await apply(applier, application({ url: jobUrl(jazzDoubleJobs.closed) }), hooks)).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(await apply(applier, application({ url: jobUrl('ZzZzZ99999') }), hooks)).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
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
      revokedKey: { application: application({ credential: { ...credential, key: 'revoked' } }), message: /JazzHR refused the registered API key \(HTTP 401/ },
      serverError: { status: 500, body: 'oops' },
    });
  });

  it('hands the captured questionnaire answers (no API field) to the hosted form, without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const questionnaire = captured.filter((question) => question.id.startsWith('resumator-questionnaire'));
    expect(questionnaire.length).toBeGreaterThan(0);
    const answered = questionnaire.map((question) => ({ id: question.id, value: question.inputType === 'SelectMultiple' ? ['YES'] : question.inputType === 'SelectOne' ? 'YES' : 'Ten years' }));
    await apply(applier, application({ questions: captured, answers: [...answers(), ...answered] }), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
