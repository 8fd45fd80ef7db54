import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breezyCandidateFields, breezyDoublePositions, startBreezyApiDouble } from '@quarry/testing';
import { breezyApiCoverage } from './breezy.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith, expectRefusals } from '@quarry/testing/ats-api-apply';

const key = 'breezy-token-1';
const positionUrl = (friendlyId: string) => `https://acme.breezy.hr/p/${friendlyId}`;
let double: Awaited<ReturnType<typeof startBreezyApiDouble>>;
/** The position with a questionnaire, salary, location, repeaters, EEOC and CCPA. */
let captured: Question[];
/** The position whose every box has a documented field. */
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

const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: positionUrl(breezyDoublePositions.carried),
  questions,
  answers: answers(),
  candidate,
  credential,
  ...overrides,
});

beforeAll(async () => {
  double = await startBreezyApiDouble({ key });
  captured = await mineWith(endpoints(), positionUrl(breezyDoublePositions.withQuestionnaire));
  questions = await mineWith(endpoints(), positionUrl(breezyDoublePositions.carried));
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

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.stringMatching(/^c\d{11}$/) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(limited).toEqual(['breezy:acme']);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [created, attached] = double.submissions().slice(before);
    expect(created?.path).toBe('/api/v3/company/c0ffee000001/position/b1a2c3d4e5f6/candidates');
    expect(created?.headers.authorization).toBe(key);
    expect(created?.json).toEqual({
      name: 'Ada Lovelace',
      email_address: candidate.email,
      phone_number: candidate.phone,
      address: '12 St James’s Square, London',
      summary: 'Analyst.\nProgrammer.',
      cover_letter: 'Dear Acme,\nI write programs.',
    });
    expect(attached?.path).toBe(
      `/api/v3/company/c0ffee000001/position/b1a2c3d4e5f6/candidate/${outcome.status === 'success' ? outcome.confirmation.reference : ''}/resume`,
    );
    expect(partsNamed(attached?.parts ?? [], 'file')).toEqual([
      { filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes },
    ]);
    // Every name sent is one the coverage lists and Breezy documents, so Breezy kept it.
    const listed = new Set(breezyApiCoverage.fields.map((field) => field.field));
    for (const name of [...Object.keys(created?.json as object), ...(attached?.parts ?? []).map(([name]) => name)])
      expect(listed, name).toContain(name);
    for (const name of Object.keys(created?.json as object)) expect(breezyCandidateFields as readonly string[], name).toContain(name);
    expect(double.candidates().at(-1)).toMatchObject({
      ...(created?.json as object),
      resume: { file_name: 'Ada Lovelace CV.pdf', bytes: cvFile().bytes },
    });
  });

  it('reports a résumé refused after the candidate was created as FileFailedToUpload, submitted', async () => {
    const { applier } = routerWith(endpoints());
    double.replyNext(
      { status: 200, body: { _id: 'breezy-candidate-scripted' } },
      { status: 400, body: { error: { type: 'invalidFile', message: 'Unsupported file type' } } },
    );
    const outcome = await apply(applier, application(), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'FileFailedToUpload', submitted: true });
    expect(outcome.status === 'failed' && outcome.message).toMatch(
      /recorded the candidate \(breezy-candidate-scripted\) but refused the résumé \(HTTP 400: .*Unsupported file type/,
    );
  });

  it('refuses a box the page requires before anything is sent, a closed position as JobExpired and an unknown one as JobNotFound', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const missing = await apply(applier, application({ answers: answers(['cAddress']) }), hooks);
    expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(missing.status === 'failed' && missing.message).toMatch(/cAddress/);
    expect(await apply(applier, application({ url: positionUrl(breezyDoublePositions.closed) }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobExpired',
      submitted: false,
    });
    expect(await apply(applier, application({ url: positionUrl('ffffffffffff-gone') }), hooks)).toMatchObject({
      status: 'failed',
      errorCode: 'JobNotFound',
      submitted: false,
    });
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it("maps Breezy's refusals (its documented token errors by type, then the message) to the interface's codes; a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [
          400,
          { error: { type: 'missingAccessToken', message: 'access token is null or empty' } },
          'ApiKeyRejected',
          /access token is null or empty/,
        ],
        [400, { error: { type: 'positionNotPublished', message: 'position is not published' } }, 'JobExpired', /not published/],
        [
          400,
          { error: { type: 'invalidCandidate', message: 'email_address is required' } },
          'MandatoryQuestionsNotAnswered',
          /is required/,
        ],
        [
          409,
          { error: { type: 'duplicateCandidate', message: 'Candidate already exists in this position' } },
          'AlreadyApplied',
          /already exists/,
        ],
      ],
      application: () => application(),
      revokedKey: {
        application: application({ credential: { ...credential, key: 'revoked' } }),
        message: /Breezy refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 502, body: 'bad gateway' },
    });
  });

  it('hands every questionnaire kind, salary, location, EEOC and CCPA answer (no documented field) to the hosted form, without the token', async () => {
    const others = captured.filter((question) => !standard.has(question.id) && question.inputType !== 'ArrayOfObjects');
    expect(new Set(others.map((question) => question.inputType))).toEqual(
      new Set(['FragmentedQuestion', 'SelectOne', 'SelectMultiple', 'Text', 'TextArea', 'Date', 'File', 'Boolean']),
    );
    const first = (question: Question) => (question.options?.[0] && 'answer' in question.options[0] ? question.options[0].answer : '');
    const valueOf = (question: Question): unknown =>
      ({ SelectOne: first(question), SelectMultiple: [first(question)], Date: '2026-12-01', File: cvFile(), Boolean: true })[
        question.inputType as string
      ] ?? 'Two weeks';
    for (const question of others) {
      const { applier, hostedForm } = routerWith(endpoints());
      const before = double.submissions().length;
      const given =
        question.inputType === 'FragmentedQuestion'
          ? (question.options ?? []).flatMap((part) => ('id' in part ? [{ id: part.id, value: valueOf(part) }] : []))
          : [{ id: question.id, value: valueOf(question) }];
      await apply(
        applier,
        application({ url: positionUrl(breezyDoublePositions.withQuestionnaire), questions: captured, answers: [...answers(), ...given] }),
        hooksOn(double),
      );
      expect(hostedForm.calls, question.id).toHaveLength(1);
      expect(hostedForm.calls[0]?.credential).toBeUndefined();
      expect(double.submissions().length).toBe(before);
    }
  });
});
