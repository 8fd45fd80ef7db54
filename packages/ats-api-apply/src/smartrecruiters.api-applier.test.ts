import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { smartRecruitersApiCoverage } from './smartrecruiters.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, jsonAt, mineWith, routerWith, expectRefusals } from '@quarry/testing/ats-api-apply';

const key = 'sr-token-1';
const postingUrl = (id: string) => `https://jobs.smartrecruiters.com/acme/${id}-data-analyst`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'smartrecruiters', board: 'acme', key };
const q = (n: number) => `0b6f2d8e-1a4c-4e3b-9f10-2c5d7e8a9b0${n}`;
const f = (n: number) => `a8e1c2d3-000${n}-4a00-8000-00000000000${n}`;

const pageAnswers = (): ResolvedAnswer[] => [
  { id: 'firstName', value: 'Ada' },
  { id: 'lastName', value: 'Lovelace' },
  { id: 'email', value: candidate.email },
  { id: 'confirmEmail', value: candidate.email },
  { id: 'placeOfResidence', value: 'London' },
  { id: 'phoneNumber', value: candidate.phone },
  {
    id: 'experience',
    value: [
      [
        { id: 'experience.title', value: 'Analyst' },
        { id: 'experience.company', value: 'Analytical Engine Co' },
        { id: 'experience.current', value: true },
        { id: 'experience.startDate', value: '1843-01-01T00:00:00.000Z' },
        { id: 'experience.location', value: 'London' },
        { id: 'experience.description', value: 'Notes on the engine' },
      ],
    ],
  },
  {
    id: 'education',
    value: [
      [
        { id: 'education.institution', value: 'University of London' },
        { id: 'education.degree', value: 'Mathematics (private tuition)' },
        { id: 'education.major', value: 'Mathematics' },
        { id: 'education.startDate', value: '1832-09-01T00:00:00.000Z' },
        { id: 'education.endDate', value: '1835-06-30' },
        { id: 'education.description', value: 'With Augustus De Morgan' },
      ],
    ],
  },
  { id: 'socialProfiles.linkedIn', value: 'https://linkedin.example/in/ada' },
  { id: 'socialProfiles.website', value: 'https://ada.example' },
  { id: 'socialProfiles.facebook', value: 'https://facebook.example/ada' },
  { id: 'socialProfiles.x', value: 'https://x.example/ada' },
  { id: 'resume', value: cvFile() },
  { id: 'messageToHiringManager', value: 'Dear team,\nI write programs.' },
];
/** An answer to every screening question of the configuration, by field type. */
const screeningAnswers = (): ResolvedAnswer[] => [
  { id: `screening.${q(1)}`, value: true },
  { id: `screening.${q(2)}`, value: 'One month' },
  { id: `screening.${q(3)}`, value: 'A weekly sales dashboard\nfor the board.' },
  { id: `screening.${q(4)}`, value: 'Remote (UK)' },
  { id: `screening.${q(5)}`, value: ['SQL', 'dbt'] },
  { id: `screening.${q(6)}`, value: ['Early', 'Weekend'] },
  {
    id: 'screening.languages',
    value: [
      [
        { id: 'screening.languages.language', value: 'English' },
        { id: 'screening.languages.level', value: 'Native' },
      ],
      [
        { id: 'screening.languages.language', value: 'French' },
        { id: 'screening.languages.level', value: 'Fluent' },
      ],
    ],
  },
  { id: 'screening.ethnicGroupsDescriptions', value: 'Prefer not to say' },
  { id: 'consent.SINGLE', value: true },
];
const answers = (without: string[] = []): ResolvedAnswer[] =>
  [...pageAnswers(), ...screeningAnswers()].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: postingUrl(smartRecruitersDoublePostings.captured),
  questions,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});

beforeAll(async () => {
  double = await startSmartRecruitersApiDouble({ key });
  questions = await mineWith(endpoints(), postingUrl(smartRecruitersDoublePostings.captured));
});
afterAll(async () => double.close());

describe("SmartRecruiters' Application API transport", () => {
  it("mines the screening questions with the employer's key (the page shows them only after Next), and carries an answer to each", async () => {
    const keyed = await mineWith(endpoints(), postingUrl(smartRecruitersDoublePostings.captured), { credential });
    const screening = keyed.filter((question) => question.id.startsWith('screening.'));
    // Every screening question of the configuration, under the id the transport answers it by.
    expect(
      screening
        .filter((question) => question.inputType !== 'TextLiteral')
        .map((question) => question.id)
        .sort(),
    ).toEqual(
      screeningAnswers()
        .map((answer) => answer.id)
        .filter((id) => id.startsWith('screening.'))
        .sort(),
    );
    // An information field takes no answer: shown as text.
    expect(screening.find((question) => question.id === `screening.${q(7)}`)).toMatchObject({ inputType: 'TextLiteral' });
    expect(screening.find((question) => question.id === `screening.${q(4)}`)).toMatchObject({ inputType: 'SelectOne', mandatory: true });
    expect(screening.find((question) => question.id === 'screening.languages')).toMatchObject({ inputType: 'ArrayOfObjects' });
    // Another company's key is not this posting's: its screening questions are not asked for.
    const otherKey = await mineWith(endpoints(), postingUrl(smartRecruitersDoublePostings.captured), {
      credential: { ...credential, board: 'other' },
    });
    expect(otherKey.some((question) => question.id.startsWith('screening.'))).toBe(false);

    // The client answers them by the mined kinds (a choice by its label); every one reaches the API.
    const byKind = (question: Question): ResolvedAnswer['value'] => {
      const labels = (question.options ?? []).flatMap((option) => ('answer' in option ? [option.answer] : []));
      if (question.inputType === 'SelectOne') return labels[0];
      if (question.inputType === 'SelectMultiple') return labels.slice(0, 2);
      if (question.inputType === 'ArrayOfObjects')
        return [(question.options ?? []).flatMap((part) => ('id' in part ? [{ id: part.id, value: byKind(part) }] : []))];
      return `Answer to ${question.id}`;
    };
    const given = screening
      .filter((question) => question.inputType !== 'TextLiteral')
      .map((question) => ({ id: question.id, value: byKind(question) }));
    const before = double.submissions().length;
    const outcome = await apply(
      routerWith(endpoints()).applier,
      application({ questions: keyed, answers: [...pageAnswers(), ...given] }),
      hooksOn(double),
    );
    expect(outcome).toMatchObject({ status: 'success' });
    const sent = (jsonAt(double.submissions()[before], 'answers') as Array<{ id: string }>).map((answer) => answer.id).sort();
    expect(sent).toEqual(given.map((answer) => answer.id.slice('screening.'.length)).sort());
  });

  it('sends every page answer and every screening answer under the attribute the Application API documents, after beforeSubmit', async () => {
    expect(questions.map((question) => question.id).sort()).toEqual(
      pageAnswers()
        .map((answer) => answer.id)
        .sort(),
    );
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
    expect(sent?.path).toBe('/postings/7c1e4a2b-5d3f-4e8a-9b61-0f2d3c4b5a01/candidates');
    expect(sent?.headers['x-smarttoken']).toBe(key);
    const { resume, ...rest } = sent?.json as { resume: { fileContent: string } };
    expect(rest).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: candidate.email,
      phoneNumber: candidate.phone,
      location: { city: 'London' },
      experience: [
        {
          title: 'Analyst',
          company: 'Analytical Engine Co',
          current: true,
          startDate: '1843-01-01',
          location: 'London',
          description: 'Notes on the engine',
        },
      ],
      education: [
        {
          institution: 'University of London',
          degree: 'Mathematics (private tuition)',
          major: 'Mathematics',
          startDate: '1832-09-01',
          endDate: '1835-06-30',
          description: 'With Augustus De Morgan',
        },
      ],
      web: {
        linkedIn: 'https://linkedin.example/in/ada',
        website: 'https://ada.example',
        facebook: 'https://facebook.example/ada',
        twitter: 'https://x.example/ada',
      },
      messageToHiringManager: 'Dear team,\nI write programs.',
      answers: [
        { id: q(1), records: [{ fields: { [f(1)]: ['1'] } }] },
        { id: q(2), records: [{ fields: { [f(2)]: ['One month'] } }] },
        { id: q(3), records: [{ fields: { [f(3)]: ['A weekly sales dashboard\nfor the board.'] } }] },
        { id: q(4), records: [{ fields: { [f(4)]: ['rem'] } }] },
        { id: q(5), records: [{ fields: { [f(5)]: ['sql', 'dbt'] } }] },
        { id: q(6), records: [{ fields: { [f(6)]: ['early', 'weekend'] } }] },
        {
          id: 'languages',
          records: [{ fields: { language: ['en'], level: ['native'] } }, { fields: { language: ['fr'], level: ['fluent'] } }],
        },
        { id: 'ethnicGroupsDescriptions', records: [{ fields: { ethnicity: ['decline'] } }] },
      ],
      consentDecisions: { SINGLE: true },
    });
    expect(jsonAt(sent, 'resume.fileName')).toBe('Ada Lovelace CV.pdf');
    expect(jsonAt(sent, 'resume.mimeType')).toBe('application/pdf');
    expect(Buffer.from(resume.fileContent, 'base64')).toEqual(cvFile().bytes);
  });

  it('sends only attributes its coverage lists, and the coverage lists every attribute it sent', async () => {
    const before = double.submissions().length;
    await apply(routerWith(endpoints()).applier, application(), hooksOn(double));
    const [sent] = double.submissions().slice(before);
    const json = sent?.json as Record<string, unknown>;
    const sentNames = Object.entries(json).flatMap(([name, value]) =>
      name === 'location' || name === 'web' ? Object.keys(value as object).map((inner) => `${name}.${inner}`) : [name],
    );
    const listed = smartRecruitersApiCoverage.fields.map((field) => field.field);
    expect(sentNames.filter((name) => !listed.includes(name))).toEqual([]);
    expect(listed.filter((name) => !sentNames.includes(name))).toEqual([]);
  });

  it('stops before sending when a required screening question has no answer, an answer is not one of its values, or the posting is inactive or unknown', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const unanswered = await apply(applier, application({ answers: answers([`screening.${q(4)}`]) }), hooks);
    expect(unanswered).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(unanswered.status === 'failed' && unanswered.message).toMatch(/Which office/);
    const misfit = await apply(
      applier,
      application({ answers: [...answers([`screening.${q(4)}`]), { id: `screening.${q(4)}`, value: 'Paris' }] }),
      hooks,
    );
    expect(misfit).toMatchObject({ status: 'failed', errorCode: 'ApplicantDetailsInvalid', submitted: false });
    expect(await apply(applier, application({ url: postingUrl(smartRecruitersDoublePostings.inactive) }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(await apply(applier, application({ url: postingUrl('744000000000999') }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("answers the double's own validation: an education entry without the degree the API requires is a required answer missing", async () => {
    const { applier } = routerWith(endpoints());
    const withoutDegree = answers(['education']).concat({
      id: 'education',
      value: [[{ id: 'education.institution', value: 'University of London' }]],
    });
    const outcome = await apply(applier, application({ answers: withoutDegree }), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/degree are required/);
  });

  it("maps the Application API's error codes and messages to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    const error = (code: string, message: string) => ({ errors: [{ id: 'e1', code, message }] });
    await expectRefusals(double, applier, {
      cases: [
        [
          400,
          error('DATA_VALIDATION_ERROR', `The following screening questions are required: ${q(1)}.`),
          'MandatoryQuestionsNotAnswered',
          /screening questions are required/,
        ],
        [
          400,
          error('DATA_VALIDATION_ERROR', `Values for the following screening questions' answers are incorrect: ${q(4)}.`),
          'ApplicantDetailsInvalid',
          /answers are incorrect/,
        ],
        [400, error('FILE_UPLOAD_ERROR', 'resume: file type application/zip is not supported'), 'FileTypeNotSupported', /not supported/],
        [400, error('FILE_UPLOAD_ERROR', 'resume: the file exceeds 2 MB'), 'FileFailedToUpload', /2 MB/],
        [404, error('RESOURCE_NOT_FOUND_ERROR', 'Posting 7c1e not found or not active'), 'JobExpired', /not active/],
        [404, error('COMPANY_NOT_FOUND_ERROR', 'Company acme not found'), 'JobNotFound', /Company acme not found/],
        [400, error('APPLY_API_ERROR', 'Application could not be created'), 'ApplicationFailed', /could not be created/],
      ],
      application: () => application(),
      revokedKey: {
        application: application({ credential: { ...credential, key: 'revoked' } }),
        message: /SmartRecruiters refused the registered API key \(HTTP 401: INVALID_API_KEY_ERROR: Invalid API key/,
      },
      serverError: { status: 503, body: 'unavailable' },
    });
  });

  it('hands an answer the request has no attribute for to the hosted form, without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    await apply(
      applier,
      application({ answers: [...answers(['experience']), { id: 'experience', value: [[{ id: 'experience.salary', value: '100' }]] }] }),
      hooksOn(double),
    );
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
