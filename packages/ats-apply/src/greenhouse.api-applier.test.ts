import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { greenhouseDoubleJob, startGreenhouseApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'gh-board-key-1';
let double: VendorApiDouble;
const endpoints = () => double.endpoints;
let questions: Question[];
const url = `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`;
const credential = { ats: 'greenhouse', board: 'acme', key };

const answers = (extra: ResolvedAnswer[] = [], without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'first_name', value: 'Ada' },
    { id: 'last_name', value: 'Lovelace' },
    { id: 'email', value: candidate.email },
    { id: 'resume', value: cvFile() },
    { id: 'question_30000001', value: 'https://linkedin.example/in/ada' },
    { id: 'question_30000002', value: 'No' },
    { id: 'question_30000003', value: ['English', 'Spanish'] },
    { id: 'question_30000004', value: 'Because of the engines.\nAnd the notes.' },
    { id: 'location', value: 'London' },
    { id: 'gender', value: 'Female' },
    ...extra,
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url, questions, answers: answers(), candidate, credential, ...overrides });

beforeAll(async () => {
  double = await startGreenhouseApiDouble({ key });
  questions = await mineWith(endpoints(), url);
});
afterAll(async () => double.close());

describe("Greenhouse's Job Board API transport", () => {
  it('sends every answer under its Greenhouse field name in its encoding, after beforeSubmit, with the board key as Basic user', async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success' });
    expect(limited).toEqual(['greenhouse:acme']);
    expect(hostedForm.calls).toHaveLength(0);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe(`/v1/boards/acme/jobs/${greenhouseDoubleJob()}`);
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
    const parts = sent?.parts ?? [];
    expect(partsNamed(parts, 'first_name')).toEqual(['Ada']);
    expect(partsNamed(parts, 'last_name')).toEqual(['Lovelace']);
    expect(partsNamed(parts, 'email')).toEqual([candidate.email]);
    expect(partsNamed(parts, 'phone')).toEqual([candidate.phone]);
    expect(partsNamed(parts, 'question_30000001')).toEqual(['https://linkedin.example/in/ada']);
    // Selects travel as the option's value id, a multi-select as repeated `name[]` parts.
    expect(partsNamed(parts, 'question_30000002')).toEqual(['0']);
    expect(partsNamed(parts, 'question_30000003[]')).toEqual(['101', '102']);
    expect(partsNamed(parts, 'question_30000004')).toEqual(['Because of the engines.\nAnd the notes.']);
    expect(partsNamed(parts, 'location')).toEqual(['London']);
    expect(partsNamed(parts, 'gender')).toEqual(['2']);
    expect(partsNamed(parts, 'resume')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
  });

  it('refuses an application that leaves a required question empty, which Greenhouse itself would accept, before anything is sent', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ answers: answers([], ['question_30000002']) }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/question_30000002/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('reports a job no longer on the board as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application({ url: 'https://job-boards.greenhouse.io/acme/jobs/4000000999' }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Greenhouse's refusals (invalid file, closed, missing field, duplicate, rate limit) to the interface's codes with its message", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'Invalid attachment: resume must be a pdf, doc, docx, txt or rtf file and > 0 bytes' }, 'FileTypeNotSupported', /Invalid attachment/],
        [400, { error: 'This job is not live and published' }, 'JobExpired', /not live/],
        [400, { errors: [{ field: 'question_30000002', message: 'is required' }] }, 'MandatoryQuestionsNotAnswered', /question_30000002/],
        [400, { error: 'Candidate has already applied to this job' }, 'AlreadyApplied', /already applied/],
        [429, { error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => application(),
    });
  });

  it('says a refused key is a refused key, and a 5xx after the request left is unknown, never success', async () => {
    const { applier } = routerWith(endpoints());
    const refused = await apply(applier, application({ credential: { ...credential, key: 'revoked' } }), hooksOn(double));
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'ApiKeyRejected', submitted: false });
    expect(refused.status === 'failed' && refused.message).toMatch(/refused the registered API key \(HTTP 401/);
    double.replyNext({ status: 502, body: 'Bad gateway' });
    expect(await apply(applier, application(), hooksOn(double))).toMatchObject({ status: 'unknown' });
  });

  it('hands to the hosted form an application with answers the API has no field for (education), without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const education = [{ id: 'education', value: [[{ id: 'education.school_name', value: 'University of London' }]] }];
    const outcome = await apply(applier, application({ answers: answers(education) }), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'success' });
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });

  it('uses the hosted form when the client has no key for this board', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const { credential: _none, ...withoutKey } = application();
    await apply(applier, withoutKey, hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
  });
});
