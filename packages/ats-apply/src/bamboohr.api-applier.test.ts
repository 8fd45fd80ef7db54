import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bambooDoubleJobs, startBambooApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'bamboo-key-1';
const jobUrl = (id: string) => `https://acme.bamboohr.com/careers/${id}`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'bamboohr', board: 'acme', key };
const coverLetter = { type: 'File' as const, filename: 'cover.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: Buffer.from([0x50, 0x4b, 3, 4, 0, 13, 10, 255]) };

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'firstName', value: 'Ada' },
    { id: 'lastName', value: 'Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'phone', value: candidate.phone },
    { id: 'streetAddress', value: '12 St James’s Square' },
    { id: 'city', value: 'London' },
    { id: 'state', value: 'NY' },
    { id: 'zip', value: 'SW1Y 4JH' },
    { id: 'countryId', value: 'Canada' },
    { id: 'linkedinUrl', value: 'https://linkedin.example/in/ada' },
    { id: 'dateAvailable', value: '2027-02-01T00:00:00.000Z' },
    { id: 'coverLetterFileId', value: coverLetter },
    { id: 'websiteUrl', value: 'https://ada.example' },
    { id: 'resumeFileId', value: cvFile() },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url: jobUrl(bambooDoubleJobs.standardOnly), questions, answers: answers(), candidate, credential, ...overrides });

beforeAll(async () => {
  double = await startBambooApiDouble({ key });
  questions = await mineWith(endpoints(), jobUrl(bambooDoubleJobs.standardOnly));
});
afterAll(async () => double.close());

describe("BambooHR's applicant-tracking API transport", () => {
  it("sends each standard field under the API's name (options as text, the date as YYYY-MM-DD, both files byte for byte), after beforeSubmit", async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^50\d\d$/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['bamboohr:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${key}:x`).toString('base64')}`);
    const parts = sent?.parts ?? [];
    const expected: Array<[string, string]> = [
      ['firstName', 'Ada'], ['lastName', 'Lovelace'], ['email', candidate.email], ['phoneNumber', candidate.phone], ['address', '12 St James’s Square'],
      ['city', 'London'], ['state', 'NY'], ['zip', 'SW1Y 4JH'], ['country', 'Canada'], ['linkedinUrl', 'https://linkedin.example/in/ada'],
      ['dateAvailable', '2027-02-01'], ['websiteUrl', 'https://ada.example'], ['jobId', bambooDoubleJobs.standardOnly],
    ];
    for (const [name, value] of expected) expect(partsNamed(parts, name), name).toEqual([value]);
    expect(partsNamed(parts, 'resumeFile')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
    expect(partsNamed(parts, 'coverLetterFile')).toEqual([{ filename: 'cover.docx', type: coverLetter.contentType, bytes: coverLetter.bytes }]);
  });

  it('refuses a required field left empty before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answers(['zip']) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/zip/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports an opening no longer open as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ url: jobUrl(bambooDoubleJobs.closed) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps BambooHR's refusals (missing field, closed, invalid file, duplicate, bad key) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'Missing required field: zip' }, 'MandatoryQuestionsNotAnswered', /zip/],
        [400, { error: 'Job opening is not open' }, 'JobExpired', /not open/],
        [400, { error: 'resumeFile: invalid file type' }, 'FileTypeNotSupported', /invalid file type/],
        [409, { error: 'Applicant already applied to this job opening' }, 'AlreadyApplied', /already applied/],
      ],
      application: () => application(),
      revokedKey: { application: application({ credential: { ...credential, key: 'revoked' } }), message: /BambooHR refused the registered API key \(HTTP 401/ },
      serverError: { status: 502, body: 'bad gateway' },
    });
  });

  it("hands the captured forms' custom questions and EEO answers (no API field) to the hosted form, without the key", async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const url = jobUrl(bambooDoubleJobs.tenantA);
    const captured = await mineWith(endpoints(), url);
    const custom = captured.filter((question) => question.id.startsWith('customQuestionAnswers.') || question.id === 'veteranStatusId');
    expect(custom.length).toBeGreaterThan(0);
    await apply(applier, application({ url, questions: captured, answers: [...answers(), ...custom.map((question) => ({ id: question.id, value: question.inputType === 'Boolean' ? true : 'Decline to answer' }))] }), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
