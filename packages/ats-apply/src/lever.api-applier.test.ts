import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { leverDoublePosting, startLeverApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'lever-key-1';
const postingId = leverDoublePosting;
const url = `https://jobs.lever.co/acme/${postingId}`;
let double: VendorApiDouble;
const endpoints = () => double.endpoints;
let questions: Question[];

const standard = (): ResolvedAnswer[] => [
  { id: 'resume', value: cvFile() },
  { id: 'name', value: 'Ada Lovelace' },
  { id: 'email', value: candidate.email },
  { id: 'phone', value: candidate.phone },
  { id: 'org', value: 'Analytical Engines Ltd' },
  { id: 'urls[GitHub]', value: 'https://github.example/ada' },
];
const application = (answers = standard(), credentialKey = key): ApplicationToSubmit => ({ url, questions, answers, candidate, credential: { ats: 'lever', board: 'acme', key: credentialKey } });

beforeAll(async () => {
  double = await startLeverApiDouble({ key });
  questions = await mineWith(endpoints(), `${url}/apply`);
});
afterAll(async () => double.close());

describe("Lever's Postings API transport", () => {
  it("sends the standard fields under Lever's names, the résumé byte for byte, within Lever's rate, after beforeSubmit", async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^lever-application-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['lever:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe(`/v0/postings/acme/${postingId}`);
    expect(sent?.query.get('key')).toBe(key);
    const parts = sent?.parts ?? [];
    expect(partsNamed(parts, 'name')).toEqual(['Ada Lovelace']);
    expect(partsNamed(parts, 'email')).toEqual([candidate.email]);
    expect(partsNamed(parts, 'phone')).toEqual([candidate.phone]);
    expect(partsNamed(parts, 'org')).toEqual(['Analytical Engines Ltd']);
    expect(partsNamed(parts, 'urls[GitHub]')).toEqual(['https://github.example/ada']);
    expect(partsNamed(parts, 'resume')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
  });

  it('hands an application answering a custom card to the hosted form: the API takes no custom questions', async () => {
    const card = questions.find((question) => question.id.startsWith('cards['));
    expect(card).toBeDefined();
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    await apply(applier, application([...standard(), { id: card?.id ?? '', value: 'Yes' }]), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Lever's answers (closed posting, invalid résumé, missing field, rate limit, bad key) to the interface's codes with Lever's error", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [404, { ok: false, error: 'Posting not found' }, 'JobExpired', /Posting not found/],
        [400, { ok: false, error: 'Invalid resume file: unsupported file type' }, 'FileTypeNotSupported', /unsupported file type/],
        [400, { ok: false, error: 'Missing required field: email' }, 'MandatoryQuestionsNotAnswered', /Missing required field/],
        [429, { ok: false, error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => application(),
      revokedKey: { application: application(standard(), 'revoked'), message: /Lever refused the registered API key \(HTTP 401: Invalid API key/ },
    });
  });
});
