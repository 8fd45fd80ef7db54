import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { startRecruiteeApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith } from './vendor-cases.test-support.ts';

const url = 'https://acme.recruitee.com/o/backend-engineer';
let double: VendorApiDouble;
const endpoints = () => double.endpoints;
let questions: Question[];

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'candidate.name', value: 'Ada Lovelace' },
    { id: 'candidate.email', value: candidate.email },
    { id: 'candidate.phone', value: candidate.phone },
    { id: 'candidate.cv', value: cvFile() },
    { id: 'candidate.cover_letter', value: 'Dear Acme,\nI write programs.' },
    { id: 'open_question_501', value: true },
    { id: 'open_question_502', value: ['Elixir', 'Ruby'] },
    { id: 'open_question_504', value: 'One month' },
  ].filter((answer) => !without.includes(answer.id));
const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url, questions, answers: answers(), candidate, ...overrides });

beforeAll(async () => {
  double = await startRecruiteeApiDouble();
  questions = await mineWith(endpoints(), url);
});
afterAll(async () => double.close());

describe("Recruitee's careers-site API transport (no key)", () => {
  it("sends the candidate's fields and every open question as Recruitee's answer attributes, after beforeSubmit", async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success' });
    expect(hostedForm.calls).toHaveLength(0);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe('/company/acme/api/offers/backend-engineer/candidates');
    const parts = sent?.parts ?? [];
    expect(partsNamed(parts, 'candidate[name]')).toEqual(['Ada Lovelace']);
    expect(partsNamed(parts, 'candidate[email]')).toEqual([candidate.email]);
    expect(partsNamed(parts, 'candidate[phone]')).toEqual([candidate.phone]);
    expect(partsNamed(parts, 'candidate[cover_letter]')).toEqual(['Dear Acme,\nI write programs.']);
    expect(partsNamed(parts, 'candidate[cv]')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
    const attribute = (index: number, field: string) => partsNamed(parts, `candidate[open_question_answers_attributes][${index}][${field}]`);
    expect([attribute(0, 'open_question_id'), attribute(0, 'flag')]).toEqual([['501'], ['true']]);
    expect([attribute(1, 'open_question_id'), attribute(1, 'multi_content][')]).toEqual([['502'], ['Elixir', 'Ruby']]);
    expect([attribute(2, 'open_question_id'), attribute(2, 'content')]).toEqual([['504'], ['One month']]);
  });

  it('reports an offer no longer published as JobExpired and a required open question left empty, before sending', async () => {
    const { applier } = routerWith(endpoints());
    const before = double.submissions().length;
    const closed = await apply(applier, application({ url: 'https://acme.recruitee.com/o/closed-role' }), hooksOn(double));
    expect(closed).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    const hooks = hooksOn(double);
    const missing = await apply(applier, application({ answers: answers(['open_question_504']) }), hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Recruitee's 422 bodies (missing field, invalid file, duplicate) to the interface's codes with its messages", async () => {
    const { applier } = routerWith(endpoints());
    const cases: Array<[unknown, string, RegExp]> = [
      [{ error: ["Phone can't be blank"], error_fields: { phone: ["can't be blank"] } }, 'MandatoryQuestionsNotAnswered', /Phone can't be blank/],
      [{ error: ['Cv has an invalid file type'], error_fields: { cv: ['has an invalid file type'] } }, 'FileTypeNotSupported', /invalid file type/],
      [{ error: ['You have already applied for this job'], error_fields: {} }, 'AlreadyApplied', /already applied/],
    ];
    for (const [body, errorCode, message] of cases) {
      double.replyNext({ status: 422, body });
      const outcome = await apply(applier, application(), hooksOn(double));
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'failed', errorCode, submitted: false });
      expect(outcome.status === 'failed' && outcome.message).toMatch(message);
    }
  });
});
