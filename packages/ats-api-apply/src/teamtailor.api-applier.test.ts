import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamtailorApiDouble, teamtailorDoubleJobs } from '@quarry/testing';
import { teamtailorApiCoverage } from './teamtailor.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, jsonAt, mineWith, routerWith } from '@quarry/testing/ats-api-apply';

const key = 'teamtailor-key-1';
const jobUrl = (path: string) => `https://acme.teamtailor.com/${path}`;
let double: Awaited<ReturnType<typeof startTeamtailorApiDouble>>;
/** The captured form: uploads, location and consents besides the questions. */
let captured: Question[];
/** The form whose every box has a documented field: contact, cover letter, knockout and screening answers. */
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'teamtailor', board: 'acme', key };
const screening = [
  { id: 'candidate[answers_attributes][0][boolean]', value: true },
  { id: 'candidate[answers_attributes][1][text]', value: 'Toronto, Ontario' },
  { id: 'candidate[answers_attributes][2][text]', value: 'https://www.linkedin.com/in/ada' },
  { id: 'candidate[answers_attributes][3][number]', value: '95000' },
  { id: 'candidate[answers_attributes][4][text]', value: 'Charles Babbage' },
];
const carried = new Set([
  'candidate[first_name]',
  'candidate[last_name]',
  'candidate[email]',
  'candidate[phone]',
  'candidate[job_applications_attributes][0][cover_letter]',
  ...screening.map((answer) => answer.id),
]);

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'candidate[first_name]', value: 'Ada' },
    { id: 'candidate[last_name]', value: 'Lovelace' },
    { id: 'candidate[email]', value: candidate.email },
    { id: 'candidate[phone]', value: candidate.phone },
    { id: 'candidate[job_applications_attributes][0][cover_letter]', value: 'Dear Acme,\nI write programs.' },
    ...screening,
  ].filter((answer) => !without.includes(answer.id));

let sequence = 0;
const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => {
  sequence += 1;
  const email = `teamtailor-${sequence}@example.com`;
  return {
    url: jobUrl(teamtailorDoubleJobs.carried),
    questions,
    answers: [...answers(['candidate[email]']), { id: 'candidate[email]', value: email }],
    candidate: { ...candidate, email },
    credential,
    ...overrides,
  };
};

beforeAll(async () => {
  double = await startTeamtailorApiDouble({ key });
  captured = await mineWith(endpoints(), jobUrl(teamtailorDoubleJobs.captured));
  questions = await mineWith(endpoints(), jobUrl(teamtailorDoubleJobs.carried));
});
afterAll(async () => double.close());

describe("Teamtailor's API transport", () => {
  it('records the candidate, the job application (job, cover letter), then each screening answer under its question, beforeSubmit before the first write', async () => {
    expect(questions.map((question) => question.id).sort()).toEqual([...carried].sort());
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const sent = application({ answers: answers(), candidate });
    const outcome = await apply(applier, sent, hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^7\d+$/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['teamtailor:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [created, linked, ...answered] = double.submissions().slice(before);
    expect(created?.headers.authorization).toBe(`Token token=${key}`);
    expect(created?.headers['x-api-version']).toBeTruthy();
    expect(created?.headers['content-type']).toBe('application/vnd.api+json');
    expect(jsonAt(created, 'data.type')).toBe('candidates');
    expect(jsonAt(created, 'data.attributes')).toEqual({
      'first-name': 'Ada',
      'last-name': 'Lovelace',
      email: candidate.email,
      phone: candidate.phone,
      sourced: false,
      merge: true,
    });
    expect(jsonAt(linked, 'data.type')).toBe('job-applications');
    expect(jsonAt(linked, 'data.attributes')).toEqual({ 'cover-letter': 'Dear Acme,\nI write programs.' });
    expect(jsonAt(linked, 'data.relationships.job.data')).toEqual({ type: 'jobs', id: '4959370' });
    const candidateId = jsonAt(linked, 'data.relationships.candidate.data.id');
    expect(candidateId).toMatch(/^5\d+$/);
    expect(
      answered.map((request) => [
        request.path,
        jsonAt(request, 'data.relationships.question.data.id'),
        jsonAt(request, 'data.attributes'),
        jsonAt(request, 'data.relationships.candidate.data.id'),
      ]),
    ).toEqual([
      ['/api/v1/answers', '100626', { boolean: true }, candidateId],
      ['/api/v1/answers', '100638', { text: 'Toronto, Ontario' }, candidateId],
      ['/api/v1/answers', '100966', { text: 'https://www.linkedin.com/in/ada' }, candidateId],
      ['/api/v1/answers', '100762', { number: 95000 }, candidateId],
      ['/api/v1/answers', '100633', { text: 'Charles Babbage' }, candidateId],
    ]);
    expect(double.kept().answers.filter((answer) => answer.relationships?.candidate?.data.id === candidateId)).toHaveLength(5);
    // Every name sent is one the coverage lists.
    const listed = new Set(teamtailorApiCoverage.fields.map((field) => field.field));
    for (const request of [created, linked, ...answered]) {
      const data = jsonAt(request, 'data') as { attributes: object; relationships?: object };
      for (const name of Object.keys(data.attributes)) expect(listed, name).toContain(`data.attributes.${name}`);
      for (const name of Object.keys(data.relationships ?? {})) expect(listed, name).toContain(`data.relationships.${name}`);
    }
  });

  it('reports a screening answer Teamtailor refuses after the candidate was written as failed, submitted', async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext(
      { status: 201, body: { data: { id: '59999999', type: 'candidates' } } },
      { status: 201, body: { data: { id: '79999999', type: 'job-applications' } } },
      {
        status: 422,
        body: {
          errors: [
            {
              status: '422',
              title: 'Unprocessable Entity',
              detail: 'boolean is invalid for a Boolean question',
              source: { pointer: '/data/attributes/boolean' },
            },
          ],
        },
      },
    );
    const outcome = await apply(applier, application(), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'failed', submitted: true });
    expect(outcome.status === 'failed' && outcome.message).toMatch(
      /refused the answer to question 100626; the candidate 59999999 was recorded/,
    );
  });

  it("maps Teamtailor's refusal of a second application of the candidate to the job to AlreadyApplied, submitted (the candidate was merged)", async () => {
    const { applier } = routerWith(endpoints());
    const once = application();
    expect(await apply(applier, once, hooksOn(double))).toMatchObject({ status: 'success' });
    const again = await apply(applier, once, hooksOn(double));
    expect(again).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied', submitted: true });
    expect(again.status === 'failed' && again.message).toMatch(/already applied to this job/);
  });

  it('refuses a required field left empty, and an archived job, before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const withPhoneRequired = application({
      answers: answers(['candidate[phone]']),
      candidate: { email: 'no-phone@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    });
    const missing = await apply(applier, withPhoneRequired, hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(missing.status === 'failed' && missing.message).toMatch(/candidate\[phone\]/);
    expect(await apply(applier, application({ url: jobUrl(teamtailorDoubleJobs.archived) }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(await apply(applier, application({ url: jobUrl('jobs/4950000-never') }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobNotFound',
      submitted: false,
    });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Teamtailor's refusals of the candidate (blank email, bad key) and a 5xx after the job application left to the interface's outcomes", async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext({ status: 422, body: { errors: [{ detail: "email can't be blank" }] } });
    expect(await apply(applier, application(), hooksOn(double))).toMatchObject({
      status: 'failed',
      errorCode: 'MandatoryQuestionsNotAnswered',
      submitted: false,
    });
    const refused = await apply(applier, application({ credential: { ...credential, key: 'revoked' } }), hooksOn(double));
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'ApiKeyRejected', submitted: false });
    expect(refused.status === 'failed' && refused.message).toMatch(/Teamtailor refused the registered API key \(HTTP 401/);
    double.replyNext({ status: 201, body: { data: { id: '59999998', type: 'candidates' } } }, { status: 503, body: 'unavailable' });
    const lost = await apply(applier, application(), hooksOn(double));
    expect(lost).toMatchObject({ status: 'unknown' });
    expect(lost.status === 'unknown' && lost.message).toMatch(/recorded the candidate \(59999998\)/);
  });

  it("hands each of the captured form's résumé, files, location and consents (no documented field) to the hosted form, without the key", async () => {
    const rest = captured.filter((question) => !carried.has(question.id));
    expect(rest.map((question) => question.id).sort()).toEqual([
      'candidate[consent_given]',
      'candidate[consent_given_future_jobs]',
      'candidate[file_remote_url]',
      'candidate[location][query]',
      'candidate[resume_remote_url]',
    ]);
    for (const question of rest) {
      const { applier, hostedForm } = routerWith(endpoints());
      const before = double.submissions().length;
      const more: ResolvedAnswer = {
        id: question.id,
        value: question.inputType === 'File' ? cvFile() : question.inputType === 'Boolean' ? true : 'London',
      };
      await apply(
        applier,
        application({ url: jobUrl(teamtailorDoubleJobs.captured), questions: captured, answers: [...answers(), more] }),
        hooksOn(double),
      );
      expect(hostedForm.calls, question.id).toHaveLength(1);
      expect(hostedForm.calls[0]?.credential).toBeUndefined();
      expect(double.submissions().length).toBe(before);
    }
  });
});
