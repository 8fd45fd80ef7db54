import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { startWorkableApiDouble, workableDoubleJobs, type VendorApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workableApiCoverage } from './workable.api-applier.ts';
import { apply, candidate, cvFile, expectRefusals, hooksOn, jsonAt, mineWith, routerWith } from '@quarry/testing/ats-api-apply';

const key = 'workable-token-1';
const jobUrl = (shortcode: string) => `https://apply.workable.com/acme/j/${shortcode}/`;
let double: VendorApiDouble;
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'workable', board: 'acme', key };
const permit = { ...cvFile(), filename: 'Work permit.pdf' };

/** An answer to every question mined from the job with every kind, as a client gives them (choices by their words). */
const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'firstname', value: 'Ada' },
    { id: 'lastname', value: 'Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'headline', value: 'Analyst of engines' },
    { id: 'phone', value: candidate.phone },
    { id: 'address', value: 'London, United Kingdom' },
    {
      id: 'education',
      value: [
        [
          { id: 'education.school', value: 'University of London' },
          { id: 'education.degree', value: 'Mathematics' },
          { id: 'education.start_date', value: '1832-09-01T00:00:00.000Z' },
          { id: 'education.end_date', value: '1835-06-30' },
        ],
      ],
    },
    {
      id: 'experience',
      value: [
        [
          { id: 'experience.title', value: 'Analyst' },
          { id: 'experience.company', value: 'Analytical Engine' },
          { id: 'experience.current', value: true },
          { id: 'experience.start_date', value: '1842-01-01' },
        ],
      ],
    },
    { id: 'summary', value: 'I wrote the first program.\nFor an engine.' },
    { id: 'resume', value: cvFile() },
    { id: 'cover_letter', value: 'Dear Acme,\nI write programs.' },
    { id: 'QA_9530805', value: true },
    { id: 'QA_9530809', value: 'Female' },
    { id: 'QA_9831316', value: ['English', 'French'] },
    { id: 'QA_9530830', value: 'Over 5 years' },
    { id: 'QA_9831317', value: 'Italian' },
    { id: 'QA_9530840', value: 'A weaver\nwith a loom.' },
    { id: 'QA_9530850', value: '45' },
    { id: 'QA_9530860', value: '2027-01-04T00:00:00.000Z' },
    { id: 'QA_9530870', value: permit },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: jobUrl(workableDoubleJobs.everyKind),
  questions,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});

/** The JSON paths a candidate body carries, as the coverage names them (`candidate.answers[].body`). */
function sentPaths(body: unknown): string[] {
  const { sourced, candidate: sent } = body as { sourced?: unknown; candidate: Record<string, unknown> };
  const paths = [
    ...(sourced === undefined ? [] : ['sourced']),
    ...Object.keys(sent)
      .filter((name) => name !== 'answers')
      .map((name) => `candidate.${name}`),
  ];
  for (const entry of (sent.answers ?? []) as Array<Record<string, unknown>>)
    paths.push(...Object.keys(entry).map((name) => `candidate.answers[].${name}`));
  return [...new Set(paths)];
}

beforeAll(async () => {
  double = await startWorkableApiDouble({ key });
  questions = await mineWith(endpoints(), jobUrl(workableDoubleJobs.everyKind));
});
afterAll(async () => double.close());

describe("Workable's candidate API transport", () => {
  it('answers every mined question of the job with every kind', () => {
    expect(questions.map((question) => question.id).sort()).toEqual(
      answers()
        .map((answer) => answer.id)
        .sort(),
    );
  });

  it("sends every answer in Workable's documented attribute and encoding (a file question as base64, choices by id), after beforeSubmit", async () => {
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
    expect(sent?.path).toBe(`/accounts/acme/spi/v3/jobs/${workableDoubleJobs.everyKind}/candidates`);
    expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    expect(jsonAt(sent, 'sourced')).toBe(false);
    expect(jsonAt(sent, 'candidate')).toMatchObject({
      firstname: 'Ada',
      lastname: 'Lovelace',
      email: candidate.email,
      phone: candidate.phone,
      headline: 'Analyst of engines',
      address: 'London, United Kingdom',
      summary: 'I wrote the first program.\nFor an engine.',
      cover_letter: 'Dear Acme,\nI write programs.',
      resume: { name: 'Ada Lovelace CV.pdf', data: cvFile().bytes.toString('base64') },
      education_entries: [{ school: 'University of London', degree: 'Mathematics', start_date: '1832-09-01', end_date: '1835-06-30' }],
      experience_entries: [{ title: 'Analyst', company: 'Analytical Engine', current: true, start_date: '1842-01-01' }],
    });
    expect(jsonAt(sent, 'candidate.answers')).toEqual([
      { question_key: 'QA_9530805', checked: true },
      { question_key: 'QA_9530809', choices: ['5094526'] },
      { question_key: 'QA_9831316', choices: ['5249620', '5249622'] },
      { question_key: 'QA_9530830', choices: ['5094563'] },
      { question_key: 'QA_9831317', body: 'Italian' },
      { question_key: 'QA_9530840', body: 'A weaver\nwith a loom.' },
      { question_key: 'QA_9530850', value: 45 },
      { question_key: 'QA_9530860', date: '2027-01-04' },
      { question_key: 'QA_9530870', file: { name: 'Work permit.pdf', data: permit.bytes.toString('base64') } },
    ]);
    const listed = new Set(workableApiCoverage.fields.map((field) => field.field));
    expect(sentPaths(sent?.json).filter((path) => !listed.has(path))).toEqual([]);
  });

  it('hands a photo (avatar: no documented attribute) to the hosted form, without the token, before sending anything', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const url = jobUrl(workableDoubleJobs.paragraphs);
    const mined = await mineWith(endpoints(), url);
    const before = double.submissions().length;
    await apply(
      applier,
      {
        url,
        questions: mined,
        candidate,
        credential,
        answers: [{ id: 'avatar', value: { ...cvFile(), filename: 'ada.png', contentType: 'image/png' } }],
      },
      hooksOn(double),
    );
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });

  it('refuses a required question left empty before anything is sent; a closed job (its application form answers 404) is JobExpired', async () => {
    const { applier } = routerWith(endpoints());
    const before = double.submissions().length;
    for (const left of ['QA_9530850', 'resume']) {
      const hooks = hooksOn(double);
      const outcome = await apply(applier, application({ answers: answers([left]) }), hooks);
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
      expect(outcome.status === 'failed' && outcome.message).toContain(left);
      expect(hooks.calls).toBe(0);
    }
    const closed = await apply(applier, application({ url: jobUrl(workableDoubleJobs.closed) }), hooksOn(double));
    expect(closed).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(double.submissions().length).toBe(before);
  });

  it("maps Workable's refusals (422 blank or invalid, 404, 429 rate limit, refused token) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [422, { error: "Validation failed: answer to QA_9530805 can't be blank" }, 'MandatoryQuestionsNotAnswered', /can't be blank/],
        [422, { error: 'Validation failed: resume file type is not supported' }, 'FileTypeNotSupported', /file type/],
        [422, { error: 'Validation failed: email is invalid' }, 'ApplicantDetailsInvalid', /email is invalid/],
        [404, { error: 'Not found' }, 'JobExpired', /Not found/],
        [429, { error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => application(),
      revokedKey: {
        application: application({ credential: { ...credential, key: 'revoked' } }),
        message: /Workable refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 500, body: 'oops' },
    });
  });
});
