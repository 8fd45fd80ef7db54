import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, jsonAt, mineWith, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'sr-token-1';
const postingUrl = (id: string) => `https://jobs.smartrecruiters.com/acme/${id}-example-job`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'smartrecruiters', board: 'acme', key };

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'firstName', value: 'Ada' },
    { id: 'lastName', value: 'Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'confirmEmail', value: candidate.email },
    { id: 'placeOfResidence', value: 'London' },
    { id: 'phoneNumber', value: candidate.phone },
    { id: 'education', value: [[{ id: 'education.institution', value: 'University of London' }, { id: 'education.startDate', value: '1832-09-01T00:00:00.000Z' }, { id: 'education.endDate', value: '1835-06-30' }]] },
    { id: 'socialProfiles.linkedIn', value: 'https://linkedin.example/in/ada' },
    { id: 'socialProfiles.website', value: 'https://ada.example' },
    { id: 'resume', value: cvFile() },
    { id: 'messageToHiringManager', value: 'Dear team,\nI write programs.' },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url: postingUrl(smartRecruitersDoublePostings.captured), questions, answers: answers(), candidate, credential, ...overrides });

beforeAll(async () => {
  double = await startSmartRecruitersApiDouble({ key });
  questions = await mineWith(endpoints(), postingUrl(smartRecruitersDoublePostings.captured));
});
afterAll(async () => double.close());

describe("SmartRecruiters' Application API transport", () => {
  it("sends every answer of the captured form under the API's attribute (city, web profiles, education dates, base64 résumé), after beforeSubmit", async () => {
    expect(questions.map((question) => question.id)).toEqual(expect.arrayContaining(answers().map((answer) => answer.id)));
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^sr-candidate-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['smartrecruiters:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe('/postings/00000000-0000-4000-a000-000000000001/candidates');
    expect(sent?.headers['x-smarttoken']).toBe(key);
    const { resume, ...rest } = sent?.json as { resume: { fileContent: string } };
    expect(rest).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: candidate.email,
      phoneNumber: candidate.phone,
      location: { city: 'London' },
      education: [{ institution: 'University of London', startDate: '1832-09-01', endDate: '1835-06-30' }],
      web: { linkedin: 'https://linkedin.example/in/ada', website: 'https://ada.example' },
      messageToHiringManager: 'Dear team,\nI write programs.',
    });
    expect(jsonAt(sent, 'resume.fileName')).toBe('Ada Lovelace CV.pdf');
    expect(jsonAt(sent, 'resume.mimeType')).toBe('application/pdf');
    expect(Buffer.from(resume.fileContent, 'base64')).toEqual(cvFile().bytes);
  });

  it('stops before sending when the API requires a screening answer the posting page does not show, or the posting is inactive', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const screened = await apply(applier, application({ url: postingUrl(smartRecruitersDoublePostings.screened) }), hooks);
    expect(screened).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(screened.status === 'failed' && screened.message).toMatch(/UK driving licence/);
    const inactive = await apply(applier, application({ url: postingUrl(smartRecruitersDoublePostings.inactive) }), hooks);
    expect(inactive).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    const unknown = await apply(applier, application({ url: postingUrl('744000000000999') }), hooks);
    expect(unknown).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps SmartRecruiters' refusals (required field, invalid résumé, closed, duplicate, bad key) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    const before = double.submissions().length;
    // Without a résumé (not required by our checks here), the double itself refuses it.
    const blank = await apply(applier, application({ answers: answers(['resume']) }), hooksOn(double));
    expect(blank).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(blank.status === 'failed' && blank.message).toMatch(/resume is required/);
    expect(double.submissions().length).toBe(before + 1);
    await expectRefusals(double, applier, {
      cases: [
        [400, { message: 'Validation failed', errors: [{ code: 'INVALID_FILE', message: 'resume: file type not supported' }] }, 'FileTypeNotSupported', /file type not supported/],
        [404, { message: 'Posting not found or no longer active' }, 'JobExpired', /no longer active/],
        [409, { message: 'Candidate already applied to this posting' }, 'AlreadyApplied', /already applied/],
      ],
      application: () => application(),
      revokedKey: { application: application({ credential: { ...credential, key: 'revoked' } }), message: /SmartRecruiters refused the registered API key \(HTTP 401: Authentication data missing/ },
      serverError: { status: 503, body: 'unavailable' },
    });
  });

  it('hands experience entries (no measured sub-fields) to the hosted form, without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    await apply(applier, application({ answers: [...answers(), { id: 'experience', value: [[{ id: 'experience.title', value: 'Analyst' }]] }] }), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
