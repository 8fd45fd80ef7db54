import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamtailorApiDouble, teamtailorDoubleJobs } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, jsonAt, mineWith, routerWith } from './vendor-cases.test-support.ts';

const key = 'teamtailor-key-1';
const jobUrl = (path: string) => `https://acme.teamtailor.com/${path}`;
let double: VendorApiDouble;
let captured: Question[];
/** The captured form's contact fields and cover letter: what the API carries whole. */
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'teamtailor', board: 'acme', key };
const carried = new Set(['candidate[first_name]', 'candidate[last_name]', 'candidate[email]', 'candidate[phone]', 'candidate[job_applications_attributes][0][cover_letter]']);

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'candidate[first_name]', value: 'Ada' },
    { id: 'candidate[last_name]', value: 'Lovelace' },
    { id: 'candidate[email]', value: candidate.email },
    { id: 'candidate[phone]', value: candidate.phone },
    { id: 'candidate[job_applications_attributes][0][cover_letter]', value: 'Dear Acme,\nI write programs.' },
  ].filter((answer) => !without.includes(answer.id));

let sequence = 0;
const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => {
  sequence += 1;
  const email = `teamtailor-${sequence}@example.com`;
  return { url: jobUrl(teamtailorDoubleJobs.captured), questions, answers: [...answers(['candidate[email]']), { id: 'candidate[email]', value: email }], candidate: { ...candidate, email }, credential, ...overrides };
};

beforeAll(async () => {
  double = await startTeamtailorApiDouble({ key });
  captured = await mineWith(endpoints(), jobUrl(teamtailorDoubleJobs.captured));
  questions = captured.filter((question) => carried.has(question.id));
});
afterAll(async () => double.close());

describe("Teamtailor's API transport", () => {
  it('records the candidate, then the job application linking it to the job with the cover letter, beforeSubmit before the first write', async () => {
    expect(questions.map((question) => question.id).sort()).toEqual([...carried].sort());
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const sent = application({ answers: answers(), candidate });
    const outcome = await apply(applier, sent, hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^tt-application-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['teamtailor:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [created, linked] = double.submissions().slice(before);
    expect(created?.headers.authorization).toBe(`Token token=${key}`);
    expect(created?.headers['x-api-version']).toBeTruthy();
    expect(created?.headers['content-type']).toBe('application/vnd.api+json');
    expect(jsonAt(created, 'data.type')).toBe('candidates');
    expect(jsonAt(created, 'data.attributes')).toEqual({ 'first-name': 'Ada', 'last-name': 'Lovelace', email: candidate.email, phone: candidate.phone, sourced: false, merge: true });
    expect(jsonAt(linked, 'data.type')).toBe('job-applications');
    expect(jsonAt(linked, 'data.attributes')).toEqual({ 'cover-letter': 'Dear Acme,\nI write programs.' });
    expect(jsonAt(linked, 'data.relationships.job.data')).toEqual({ type: 'jobs', id: '4959352' });
    expect(jsonAt(linked, 'data.relationships.candidate.data.id')).toMatch(/^tt-candidate-/);
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
    const withPhoneRequired = application({ answers: answers(['candidate[phone]']), candidate: { email: 'no-phone@example.com', firstName: 'Ada', lastName: 'Lovelace' } });
    const missing = await apply(applier, withPhoneRequired, hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(missing.status === 'failed' && missing.message).toMatch(/candidate\[phone\]/);
    expect(await apply(applier, application({ url: jobUrl(teamtailorDoubleJobs.archived) }), hooks)).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Teamtailor's refusals of the candidate (blank email, bad key) and a 5xx after the job application left to the interface's outcomes", async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext({ status: 422, body: { errors: [{ detail: "email can't be blank" }] } });
    expect(await apply(applier, application(), hooksOn(double))).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    const refused = await apply(applier, application({ credential: { ...credential, key: 'revoked' } }), hooksOn(double));
    expect(refused).toMatchObject({ status: 'failed', errorCode: 'ApiKeyRejected', submitted: false });
    expect(refused.status === 'failed' && refused.message).toMatch(/Teamtailor refused the registered API key \(HTTP 401/);
    double.replyNext({ status: 201, body: { data: { id: 'tt-candidate-scripted', type: 'candidates' } } }, { status: 503, body: 'unavailable' });
    const lost = await apply(applier, application(), hooksOn(double));
    expect(lost).toMatchObject({ status: 'unknown' });
    expect(lost.status === 'unknown' && lost.message).toMatch(/recorded the candidate \(tt-candidate-scripted\)/);
  });

  it('hands the captured form (résumé file, knockout and screening answers, consent) to the hosted form, without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const rest = captured.filter((question) => !carried.has(question.id) && question.mandatory);
    expect(rest.map((question) => question.id)).toEqual(expect.arrayContaining(['candidate[resume_remote_url]', 'candidate[consent_given]', 'candidate[answers_attributes][0][boolean]']));
    const more = rest.map((question): ResolvedAnswer => ({ id: question.id, value: question.inputType === 'File' ? cvFile() : question.inputType === 'Boolean' ? true : 'London' }));
    await apply(applier, application({ questions: captured, answers: [...answers(), ...more] }), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
