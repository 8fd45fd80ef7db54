import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/applier';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breezyDoublePositions, startBreezyApiDouble } from '@quarry/testing';
import type { VendorApiDouble } from '@quarry/testing';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from './vendor-cases.test-support.ts';

const key = 'breezy-token-1';
const positionUrl = (friendlyId: string) => `https://acme.breezy.hr/p/${friendlyId}`;
let double: VendorApiDouble;
let captured: Question[];
/** The captured page's standard boxes: what the API can carry whole. */
let questions: Question[];
const endpoints = () => double.endpoints;
const credential = { ats: 'breezy', board: 'acme', key };
const standard = new Set(['cResume', 'cName', 'cEmail', 'cPhoneNumber', 'cAddress', 'cSummary', 'cCoverLetter']);

const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'cResume', value: cvFile() },
    { id: 'cName', value: 'Ada Lovelace' },
    { id: 'cEmail', value: candidate.email },
    { id: 'cPhoneNumber', value: candidate.phone },
    { id: 'cAddress', value: '12 St James’s Square, London' },
    { id: 'cSummary', value: 'Analyst.\nProgrammer.' },
    { id: 'cCoverLetter', value: 'Dear Acme,\nI write programs.' },
  ].filter((answer) => !without.includes(answer.id));

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({ url: positionUrl(breezyDoublePositions.captured), questions, answers: answers(), candidate, credential, ...overrides });

beforeAll(async () => {
  double = await startBreezyApiDouble({ key });
  captured = await mineWith(endpoints(), positionUrl(breezyDoublePositions.captured));
  questions = captured.filter((question) => standard.has(question.id));
});
afterAll(async () => double.close());

describe("Breezy HR's candidate API transport", () => {
  it("creates the candidate with each box under Breezy's attribute, then attaches the résumé byte for byte, beforeSubmit before the first write", async () => {
    expect(questions.map((question) => question.id).sort()).toEqual([...standard].sort());
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^breezy-candidate-/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['breezy:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [created, attached] = double.submissions().slice(before);
    expect(created?.path).toBe('/api/v3/company/c0ffee000001/position/posa/candidates');
    expect(created?.headers.authorization).toBe(key);
    expect(created?.json).toEqual({
      name: 'Ada Lovelace',
      email_address: candidate.email,
      phone_number: candidate.phone,
      address: '12 St James’s Square, London',
      summary: 'Analyst.\nProgrammer.',
      cover_letter: 'Dear Acme,\nI write programs.',
    });
    expect(attached?.path).toBe(`/api/v3/company/c0ffee000001/position/posa/candidate/${outcome.status === 'success' ? outcome.confirmation.reference : ''}/resume`);
    expect(partsNamed(attached?.parts ?? [], 'file')).toEqual([{ filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes }]);
  });

  it('reports a résumé refused after the candidate was created as FileFailedToUpload, submitted', async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext({ status: 201, body: { _id: 'breezy-candidate-scripted' } }, { status: 415, body: { error: 'Unsupported file type' } });
    const outcome = await apply(applier, application(), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'FileFailedToUpload', submitted: true });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/recorded the candidate \(breezy-candidate-scripted\) but refused the résumé \(HTTP 415: Unsupported file type/);
  });

  it('refuses a box the page requires before anything is sent, and a closed position as JobExpired', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const missing = await apply(applier, application({ answers: answers(['cAddress']) }), hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(missing.status === 'failed' && missing.message).toMatch(/cAddress/);
    expect(await apply(applier, application({ url: positionUrl(breezyDoublePositions.closed) }), hooks)).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Breezy's refusals (closed, missing field, duplicate, bad token) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'Position is closed' }, 'JobExpired', /closed/],
        [400, { error: 'email_address is required' }, 'MandatoryQuestionsNotAnswered', /is required/],
        [409, { error: 'Candidate already exists in this position' }, 'AlreadyApplied', /already exists/],
      ],
      application: () => application(),
      revokedKey: { application: application({ credential: { ...credential, key: 'revoked' } }), message: /Breezy refused the registered API key \(HTTP 401/ },
      serverError: { status: 502, body: 'bad gateway' },
    });
  });

  it("hands the captured page's questionnaire, salary, location and consent answers (no API field) to the hosted form, without the token", async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const others = captured.filter((question) => !standard.has(question.id) && question.mandatory);
    expect(others.map((question) => question.id)).toEqual(expect.arrayContaining(['cSalary', 'cLocation', 'q10000', 'ccpaAgreement']));
    await apply(applier, application({ questions: captured, answers: [...answers(), { id: 'q10000', value: 'Two weeks' }, { id: 'ccpaAgreement', value: true }] }), hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });
});
