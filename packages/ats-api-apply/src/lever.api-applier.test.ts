import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { leverDoublePostings, startLeverApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leverApiCoverage } from './lever.api-applier.ts';
import { apply, candidate, cvFile, expectRefusals, hooksOn, mineWith, partsNamed, routerWith } from '@quarry/testing/ats-api-apply';

const key = 'lever-key-1';
const postingUrl = (id: string) => `https://jobs.lever.co/acme/${id}`;
let double: VendorApiDouble;
const endpoints = () => double.endpoints;
let standardQuestions: Question[];
let customQuestions: Question[];
let sequence = 0;

/** An answer to every question of the standard posting: each row the README has a field for. */
const standard = (email = candidate.email): ResolvedAnswer[] => [
  { id: 'resume', value: cvFile() },
  { id: 'name', value: 'Ada Lovelace' },
  { id: 'email', value: email },
  { id: 'phone', value: candidate.phone },
  { id: 'org', value: 'Analytical Engines Ltd' },
  { id: 'urls[LinkedIn]', value: 'https://www.linkedin.com/in/ada' },
  { id: 'urls[GitHub]', value: 'https://github.com/ada' },
  { id: 'urls[Twitter]', value: 'https://twitter.com/ada' },
  { id: 'urls[Portfolio]', value: 'https://ada.example.com' },
  { id: 'urls[Other]', value: 'https://notes.example.com/ada' },
  { id: 'comments', value: 'Note G.\nThe engine weaves algebraic patterns.' },
  { id: 'consent[store]', value: true },
  { id: 'consent[marketing]', value: false },
];
const application = (answers: ResolvedAnswer[] = standard(), overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: postingUrl(leverDoublePostings.standard),
  questions: standardQuestions,
  answers,
  candidate,
  credential: { ats: 'lever', board: 'acme', key },
  ...overrides,
});
/** Lever allows 2 application POSTs a second: tests that expect an acceptance space theirs. */
const spaced = async () => new Promise((resolve) => setTimeout(resolve, 510 * (sequence++ > 0 ? 1 : 0)));

beforeAll(async () => {
  double = await startLeverApiDouble({ key });
  standardQuestions = await mineWith(endpoints(), `${postingUrl(leverDoublePostings.standard)}/apply`);
  customQuestions = await mineWith(endpoints(), `${postingUrl(leverDoublePostings.custom)}/apply`);
});
afterAll(async () => double.close());

describe("Lever's Postings API transport", () => {
  it('mines the standard posting as rows the API has fields for, consents as yes/no boxes', () => {
    expect(standardQuestions.map((question) => [question.id, question.inputType])).toEqual(
      standard().map((answer) => [
        answer.id,
        answer.id === 'resume' ? 'File' : answer.id === 'comments' ? 'TextArea' : answer.id.startsWith('consent[') ? 'Boolean' : 'Text',
      ]),
    );
  });

  it("sends every answer under the README's field, the résumé byte for byte, within Lever's rate, after beforeSubmit", async () => {
    await spaced();
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^0e0c0a00-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['lever:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe(`/v0/postings/acme/${leverDoublePostings.standard}`);
    expect(sent?.query.get('key')).toBe(key);
    const parts = sent?.parts ?? [];
    for (const answer of standard()) {
      if (answer.id === 'resume') continue;
      expect(partsNamed(parts, answer.id), answer.id).toEqual([typeof answer.value === 'boolean' ? String(answer.value) : answer.value]);
    }
    expect(partsNamed(parts, 'resume')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
    // Every name sent is a field the coverage lists (urls[…] under its pattern).
    const listed = leverApiCoverage.fields.map((field) => field.field);
    for (const [name] of parts)
      expect(listed.includes(name) || (/^urls\[[^\]]+\]$/.test(name) && listed.includes('urls[<name>]')), name).toBe(true);
  });

  it('hands to the hosted form, without the key, an answer the README has no field for: cards, surveys, EEO, location, pronouns', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const notCarried = customQuestions.filter((question) => /^(cards|surveysResponses|eeo)\[|^(location|pronouns)$/.test(question.id));
    expect(new Set(notCarried.map((question) => question.id.replace(/\[.*$/, '')))).toEqual(
      new Set(['cards', 'surveysResponses', 'eeo', 'location', 'pronouns']),
    );
    for (const question of notCarried) {
      const value =
        question.inputType === 'File'
          ? cvFile()
          : question.options?.[0] && 'answer' in question.options[0]
            ? question.options[0].answer
            : 'Yes';
      const outcome = await apply(
        applier,
        application(
          [...standard().filter((answer) => customQuestions.some((mined) => mined.id === answer.id)), { id: question.id, value }],
          { url: postingUrl(leverDoublePostings.custom), questions: customQuestions },
        ),
        hooksOn(double),
      );
      expect(outcome.transport, question.id).toMatchObject({ kind: 'hostedForm', handedOverBecause: expect.stringContaining(question.id) });
    }
    expect(hostedForm.calls).toHaveLength(notCarried.length);
    expect(hostedForm.calls.every((call) => call.credential === undefined)).toBe(true);
    expect(double.submissions().length).toBe(before);
  });

  it('is refused by the double when a field the posting requires is missing, an email lacks "@", or the key is wrong', async () => {
    await spaced();
    const { applier } = routerWith(endpoints());
    const withoutConsent = await apply(
      applier,
      application(standard().filter((answer) => answer.id !== 'consent[store]')),
      hooksOn(double),
    );
    expect(withoutConsent).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(withoutConsent.status === 'failed' && withoutConsent.message).toMatch(/consent\[store\]/);
    const noAt = await apply(applier, application(standard('ada.example.com')), hooksOn(double));
    expect(noAt).toMatchObject({ status: 'failed', errorCode: 'ApplicantDetailsInvalid', submitted: false });
  });

  it("answers Lever's 429 above 2 application POSTs a second, which the transport reports as a rate limit", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const { applier } = routerWith(endpoints());
    const outcomes = [];
    for (let index = 0; index < 3; index += 1) outcomes.push(await apply(applier, application(), hooksOn(double)));
    expect(outcomes.slice(0, 2).map((outcome) => outcome.status)).toEqual(['success', 'success']);
    expect(outcomes[2]).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(outcomes[2]?.status === 'failed' && outcomes[2].message).toMatch(/rate-limited/);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  });

  it("maps Lever's refusals (unknown posting, bad résumé, missing field, rate limit, bad key) to the interface's codes with Lever's error, a 5xx to unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [404, { ok: false, error: 'Posting not found' }, 'JobExpired', /Posting not found/],
        [
          400,
          { ok: false, error: 'Invalid resume: resume must be uploaded as a file in multipart/form-data' },
          'FileTypeNotSupported',
          /Invalid resume/,
        ],
        [400, { ok: false, error: 'Missing required field: phone' }, 'MandatoryQuestionsNotAnswered', /Missing required field/],
        [429, { ok: false, error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => application(),
      revokedKey: {
        application: application(standard(), { credential: { ats: 'lever', board: 'acme', key: 'revoked' } }),
        message: /Lever refused the registered API key \(HTTP 401: Invalid API key/,
      },
      serverError: { status: 503, body: 'unavailable' },
    });
  });
});
