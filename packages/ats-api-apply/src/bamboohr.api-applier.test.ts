import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bambooDoubleJobs, startBambooApiDouble } from '@quarry/testing';
import { bambooApiCoverage } from './bamboohr.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from '@quarry/testing/ats-api-apply';

const key = 'bamboo-key-1';
const jobUrl = (id: string) => `https://acme.bamboohr.com/careers/${id}`;
let double: Awaited<ReturnType<typeof startBambooApiDouble>>;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'bamboohr', board: 'acme', key };
const coverLetter = {
  type: 'File' as const,
  filename: 'cover.docx',
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  bytes: Buffer.from([0x50, 0x4b, 3, 4, 0, 13, 10, 255]),
};

/** An answer to every question of the standard-field opening, and the parameter it must arrive as. */
const answersWithFields = (): Array<[id: string, value: ResolvedAnswer['value'], parameter: string, sent: unknown]> => [
  ['firstName', 'Ada', 'firstName', 'Ada'],
  ['lastName', 'Lovelace', 'lastName', 'Lovelace'],
  ['email', candidate.email, 'email', candidate.email],
  ['phone', candidate.phone, 'phoneNumber', candidate.phone],
  ['streetAddress', '12 St James’s Square', 'address', '12 St James’s Square'],
  ['city', 'Salt Lake City', 'city', 'Salt Lake City'],
  ['state', 'UT', 'state', 'UT'],
  ['zip', '84101', 'zip', '84101'],
  ['countryId', 'United States', 'country', 'United States'],
  ['linkedinUrl', 'https://linkedin.example/in/ada', 'linkedinUrl', 'https://linkedin.example/in/ada'],
  ['dateAvailable', '2027-02-01T00:00:00.000Z', 'dateAvailable', '2027-02-01'],
  ['desiredPay', '$70,000 a year', 'desiredSalary', '$70,000 a year'],
  ['websiteUrl', 'https://ada.example', 'websiteUrl', 'https://ada.example'],
  ['educationLevelId', "College - Master's Degree", 'highestEducation', "College - Master's Degree"],
  ['educationInstitutionName', 'University of London', 'collegeName', 'University of London'],
  ['references', 'Charles Babbage, +44 20 7946 0002\nMary Somerville', 'references', 'Charles Babbage, +44 20 7946 0002\nMary Somerville'],
  ['referredBy', 'Charles Babbage', 'referredBy', 'Charles Babbage'],
  ['resumeFileId', cvFile(), 'resumeFile', { filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }],
  [
    'coverLetterFileId',
    coverLetter,
    'coverLetterFile',
    { filename: 'cover.docx', type: coverLetter.contentType, bytes: coverLetter.bytes },
  ],
];
const answers = (without: string[] = []): ResolvedAnswer[] =>
  answersWithFields()
    .filter(([id]) => !without.includes(id))
    .map(([id, value]) => ({ id, value }));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: jobUrl(bambooDoubleJobs.standardOnly),
  questions,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});

beforeAll(async () => {
  double = await startBambooApiDouble({ key });
  questions = await mineWith(endpoints(), jobUrl(bambooDoubleJobs.standardOnly));
});
afterAll(async () => double.close());

describe("BambooHR's Add New Candidate transport", () => {
  it('sends an answer to every mined question in the parameter Add New Candidate documents for it, after beforeSubmit', async () => {
    expect(questions.map((question) => question.id).sort()).toEqual(
      answers()
        .map((answer) => answer.id)
        .sort(),
    );
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^40\d\d$/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['bamboohr:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    const parts = sent?.parts ?? [];
    for (const [, , parameter, value] of answersWithFields()) expect(partsNamed(parts, parameter), parameter).toEqual([value]);
    expect(partsNamed(parts, 'jobId')).toEqual([bambooDoubleJobs.standardOnly]);
    // The double kept every parameter: none was one the reference does not document.
    expect(double.recorded().at(-1)?.ignored).toEqual([]);
  });

  it('sends only parameters its coverage lists, and the coverage lists only what it sends or hands to the page', async () => {
    const before = double.submissions().length;
    await apply(routerWith(endpoints()).applier, application(), hooksOn(double));
    const sentNames = new Set(
      double
        .submissions()
        .slice(before)
        .flatMap((request) => request.parts.map(([name]) => name)),
    );
    const listed = new Set(bambooApiCoverage.fields.map((field) => field.field));
    expect([...sentNames].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !sentNames.has(name))).toEqual([]);
    for (const field of bambooApiCoverage.fields) expect(field.source).toMatch(/^https:\/\/documentation\.bamboohr\.com\//);
  });

  it('refuses a required field left empty before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answers(['resumeFileId']) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/resumeFileId/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports an opening no longer open as JobExpired, and an unknown one as JobExpired, without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    expect(await apply(applier, application({ url: jobUrl(bambooDoubleJobs.closed) }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(await apply(applier, application({ url: jobUrl('999') }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps BambooHR's documented statuses and the double's own refusals to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'Missing required field(s): firstName' }, 'MandatoryQuestionsNotAnswered', /firstName/],
        [400, { error: 'The job opening is not open for applications' }, 'JobExpired', /not open/],
        [400, { error: 'jobId 21: job opening not found' }, 'JobNotFound', /not found/],
        [400, { error: 'dateAvailable must have the format YYYY-MM-DD' }, 'ApplicantDetailsInvalid', /YYYY-MM-DD/],
        [404, { error: 'Not found' }, 'JobNotFound', /Not found/],
        [403, { error: 'The API key owner has no access to ATS settings' }, 'ApiKeyRejected', /ATS settings/],
      ],
      application: () => application(),
      revokedKey: {
        application: application({ credential: { ...credential, key: 'revoked' } }),
        message: /BambooHR refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 502, body: 'bad gateway' },
    });
  });

  it('hands custom questions of every type and the EEO answers (no documented parameter) to the hosted form, without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const url = jobUrl(bambooDoubleJobs.customAndEeo);
    const mined = await mineWith(endpoints(), url);
    const pageOnly = mined.filter(
      (question) => question.id.startsWith('customQuestionAnswers.') || /^(gender|ethnicity|veteranStatus|disability)Id$/.test(question.id),
    );
    expect(pageOnly.map((question) => question.inputType).sort()).toEqual([
      'Boolean',
      'File',
      'SelectMultiple',
      'SelectOne',
      'SelectOne',
      'SelectOne',
      'SelectOne',
      'Text',
      'TextArea',
    ]);
    for (const question of pageOnly) {
      hostedForm.calls.length = 0;
      const answer =
        question.inputType === 'Boolean'
          ? true
          : question.inputType === 'File'
            ? cvFile()
            : question.inputType === 'SelectMultiple'
              ? ['Days']
              : question.inputType === 'SelectOne'
                ? 'Decline to answer'
                : 'An answer';
      await apply(
        applier,
        application({
          url,
          questions: mined,
          answers: [
            ...answers().filter((given) => mined.some((minedQuestion) => minedQuestion.id === given.id)),
            { id: question.id, value: answer },
          ],
        }),
        hooksOn(double),
      );
      expect(hostedForm.calls, question.id).toHaveLength(1);
      expect(hostedForm.calls[0]?.credential).toBeUndefined();
    }
    expect(double.submissions().length).toBe(before);
  });
});
