import type { ApplicationToSubmit, FileToUpload, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { greenhouseDoublePostings, startGreenhouseApiDouble, type GreenhouseApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { greenhouseApiCoverage } from './greenhouse.api-applier.ts';
import { apply, candidate, cvFile, expectRefusals, hooksOn, jsonAt, mineWith, routerWith } from '@quarry/testing/ats-api-apply';

const key = 'gh-board-key-1';
let double: GreenhouseApiDouble;
const endpoints = () => double.endpoints;
const urlOf = (id: string) => `https://job-boards.greenhouse.io/acme/jobs/${id}`;
const credential = { ats: 'greenhouse', board: 'acme', key };
const mined = new Map<string, Question[]>();

const sample: FileToUpload = {
  type: 'File',
  filename: 'Sample.docx',
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  bytes: Buffer.from([80, 75, 3, 4, 0, 255, 13, 10]),
};

/** Every mined question of the US post answered, each field kind: file-or-text both ways, a custom file, selects, EEOC, demographic with a free-form text, located place. */
const usAnswers = (extra: ResolvedAnswer[] = [], without: string[] = []): ResolvedAnswer[] =>
  (
    [
      { id: 'first_name', value: 'Ada' },
      { id: 'last_name', value: 'Lovelace' },
      { id: 'email', value: candidate.email },
      { id: 'phone', value: candidate.phone },
      { id: 'resume_or_text', value: [{ id: 'resume', value: cvFile() }] },
      { id: 'cover_letter_or_text', value: [{ id: 'cover_letter_text', value: 'Dear Acme,\nI build engines.' }] },
      { id: 'question_30000001', value: 'https://linkedin.example/in/ada' },
      { id: 'question_30000002', value: 'No' },
      { id: 'question_30000003', value: ['English', 'Mandarin'] },
      { id: 'question_30000004', value: 'Because of the engines.\nAnd the notes.' },
      { id: 'question_30000006', value: sample },
      { id: 'question_30000007', value: 'A friend' },
      { id: 'location', value: 'London, United Kingdom' },
      { id: 'latitude', value: '51.5072' },
      { id: 'longitude', value: '-0.1276' },
      { id: 'gender', value: 'Female' },
      { id: 'race', value: 'White' },
      { id: 'veteran_status', value: 'I am not a protected veteran' },
      { id: 'disability_status', value: 'I do not want to answer' },
      { id: 'demographic_7001', value: 'I prefer to self-describe' },
      { id: 'demographic_7001_83_text', value: 'Countess' },
      { id: 'demographic_7002', value: ['East Asian', 'Prefer to type my own'] },
      { id: 'demographic_7002_93_text', value: 'Mixed' },
    ] as ResolvedAnswer[]
  )
    .filter((answer) => !without.includes(answer.id))
    .concat(extra);

const application = (id: string, answers: ResolvedAnswer[], overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url: urlOf(id),
  questions: mined.get(id) ?? [],
  answers,
  candidate,
  credential,
  ...overrides,
});
const us = (answers = usAnswers(), overrides: Partial<ApplicationToSubmit> = {}) =>
  application(greenhouseDoublePostings.backendEngineer, answers, overrides);

const euAnswers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'resume_or_text', value: [{ id: 'resume_text', value: 'Analyst, 1842–1843: notes on the Analytical Engine.' }] },
    { id: 'cover_letter_or_text', value: [{ id: 'cover_letter', value: sample }] },
    { id: 'question_40000001', value: 'Yes' },
    { id: 'question_40000002', value: ['SQL', 'R'] },
    { id: 'question_40000003', value: '65000' },
    { id: 'question_40000004', value: cvFile() },
    { id: 'data_compliance[gdpr_processing_consent_given]', value: true },
    { id: 'data_compliance[gdpr_retention_consent_given]', value: false },
  ].filter((answer) => !without.includes(answer.id));

beforeAll(async () => {
  double = await startGreenhouseApiDouble({ key });
  for (const id of Object.values(greenhouseDoublePostings)) mined.set(id, await mineWith(endpoints(), urlOf(id)));
});
afterAll(async () => double.close());

const lastSent = () => double.submissions().at(-1);
const lastKept = () => double.applications.at(-1);

describe("Greenhouse's Job Board API transport", () => {
  it('sends every answer in its documented field and encoding, so Greenhouse keeps all of it and ignores nothing', async () => {
    const limited: string[] = [];
    const { applier, hostedForm } = routerWith(endpoints(), limited);
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, us(), hooks);

    expect(outcome).toMatchObject({ status: 'success' });
    expect(limited).toEqual(['greenhouse:acme']);
    expect(hostedForm.calls).toHaveLength(0);
    expect(hooks.submissionsBefore).toEqual([before]);
    const sent = lastSent();
    expect(sent?.path).toBe(`/v1/boards/acme/jobs/${greenhouseDoublePostings.backendEngineer}`);
    expect(sent?.headers.authorization).toBe(`Basic ${Buffer.from(`${key}:`).toString('base64')}`);
    expect(sent?.json).toEqual({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: candidate.email,
      phone: candidate.phone,
      resume_content: cvFile().bytes.toString('base64'),
      resume_content_filename: 'Ada Lovelace CV.pdf',
      cover_letter_text: 'Dear Acme,\nI build engines.',
      question_30000001: 'https://linkedin.example/in/ada',
      // Selects carry the option's value as the job gives it; a yes/no select is its 1/0 option.
      question_30000002: 0,
      question_30000003: [101, 103],
      question_30000004: 'Because of the engines.\nAnd the notes.',
      question_30000006_content: sample.bytes.toString('base64'),
      question_30000006_content_filename: 'Sample.docx',
      question_30000007: 5869312,
      location: 'London, United Kingdom',
      latitude: '51.5072',
      longitude: '-0.1276',
      gender: 2,
      race: 2,
      veteran_status: 1,
      disability_status: 3,
      demographic_answers: [
        { question_id: 7001, answer_options: [{ answer_option_id: 83, text: 'Countess' }] },
        { question_id: 7002, answer_options: [{ answer_option_id: 91 }, { answer_option_id: 93, text: 'Mixed' }] },
      ],
    });
    expect(lastKept()?.ignored).toEqual([]);
    expect(lastKept()?.fields.get('location')).toBe('London, United Kingdom');
    expect(lastKept()?.attachments.get('resume')).toEqual({ filename: 'Ada Lovelace CV.pdf', bytes: cvFile().bytes });
    expect(lastKept()?.attachments.get('cover_letter')).toEqual({ text: 'Dear Acme,\nI build engines.' });
  });

  it('takes the résumé as text for a required résumé, and sends the GDPR consents the post requires', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const outcome = await apply(applier, application(greenhouseDoublePostings.dataAnalystEu, euAnswers()), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'success' });
    expect(hostedForm.calls).toHaveLength(0);
    expect(jsonAt(lastSent(), 'resume_text')).toBe('Analyst, 1842–1843: notes on the Analytical Engine.');
    expect(jsonAt(lastSent(), 'resume_content')).toBeUndefined();
    expect(jsonAt(lastSent(), 'cover_letter_content_filename')).toBe('Sample.docx');
    expect(jsonAt(lastSent(), 'question_40000002')).toEqual([5869317, 5869319]);
    expect(jsonAt(lastSent(), 'data_compliance')).toEqual({ gdpr_processing_consent_given: true, gdpr_retention_consent_given: false });
    expect(lastKept()?.ignored).toEqual([]);
  });

  it('sends the one general consent and the demographic-data consent where the post asks them', async () => {
    const { applier } = routerWith(endpoints());
    const answers: ResolvedAnswer[] = [
      { id: 'question_50000001', value: 'Yes' },
      { id: 'demographic_8001', value: '30 or over' },
      { id: 'data_compliance[gdpr_consent_given]', value: true },
      { id: 'data_compliance[gdpr_demographic_data_consent_given]', value: true },
    ];
    expect(await apply(applier, application(greenhouseDoublePostings.supportAgentEu, answers), hooksOn(double))).toMatchObject({
      status: 'success',
    });
    expect(jsonAt(lastSent(), 'data_compliance')).toEqual({ gdpr_consent_given: true, gdpr_demographic_data_consent_given: true });
    expect(jsonAt(lastSent(), 'demographic_answers')).toEqual([{ question_id: 8001, answer_options: [{ answer_option_id: 302 }] }]);
    expect(jsonAt(lastSent(), 'question_50000001')).toBe(1);
  });

  it('hands a location without coordinates to the hosted form (Greenhouse would ignore it), without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const outcome = await apply(applier, us(usAnswers([], ['latitude', 'longitude'])), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'success' });
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });

  it('refuses before sending an application that leaves a required question or a required consent empty, which Greenhouse would accept', async () => {
    const { applier } = routerWith(endpoints());
    const before = double.submissions().length;
    const hooks = hooksOn(double);
    const noSponsorship = await apply(applier, us(usAnswers([], ['question_30000002'])), hooks);
    expect(noSponsorship).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(noSponsorship.status === 'failed' && noSponsorship.message).toMatch(/question_30000002/);
    const noResume = await apply(applier, us(usAnswers([], ['resume_or_text'])), hooks);
    expect(noResume.status === 'failed' && noResume.message).toMatch(/resume \("Resume\/CV"\)/);
    const noConsent = await apply(
      applier,
      application(greenhouseDoublePostings.dataAnalystEu, euAnswers(['data_compliance[gdpr_retention_consent_given]'])),
      hooks,
    );
    expect(noConsent).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered' });
    expect(noConsent.status === 'failed' && noConsent.message).toMatch(/gdpr_retention_consent_given/);
    expect(hooks.calls).toBe(0);
    expect(double.submissions().length).toBe(before);
  });

  it('hands to the hosted form an answer the API has no field for (education), without the key', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const before = double.submissions().length;
    const education = [{ id: 'education', value: [[{ id: 'education.school_name', value: 'University of London' }]] }];
    const outcome = await apply(applier, us(usAnswers(education)), hooksOn(double));
    expect(outcome).toMatchObject({ status: 'success' });
    expect(hostedForm.calls).toHaveLength(1);
    expect(hostedForm.calls[0]?.credential).toBeUndefined();
    expect(double.submissions().length).toBe(before);
  });

  it('reports a job no longer on the board as JobExpired without submitting', async () => {
    const { applier } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const outcome = await apply(applier, us(usAnswers(), { url: urlOf('4000000999') }), hooks);
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    expect(hooks.calls).toBe(0);
  });

  it("names Greenhouse's own validation refusals: an unsupported attachment, a URL in the phone", async () => {
    const { applier } = routerWith(endpoints());
    const png: FileToUpload = { ...cvFile(), filename: 'cv.png', contentType: 'image/png' };
    const badFile = await apply(
      applier,
      us(usAnswers([{ id: 'resume_or_text', value: [{ id: 'resume', value: png }] }], ['resume_or_text'])),
      hooksOn(double),
    );
    expect(badFile).toMatchObject({ status: 'failed', errorCode: 'FileTypeNotSupported', submitted: false });
    expect(badFile.status === 'failed' && badFile.message).toMatch(/supported file type/);
    const badPhone = await apply(applier, us(usAnswers(), { candidate: { ...candidate, phone: 'https://ada.example' } }), hooksOn(double));
    expect(badPhone).toMatchObject({ status: 'failed', errorCode: 'ApplicantDetailsInvalid' });
  });

  it("maps Greenhouse's documented refusals to the interface's codes with its words; a refused key and a 5xx are named", async () => {
    const { applier } = routerWith(endpoints());
    await expectRefusals(double, applier, {
      cases: [
        [400, { error: 'Invalid attachment: resume file size must be > 0 bytes' }, 'FileTypeNotSupported', /> 0 bytes/],
        [400, { error: 'The job must be live and published' }, 'JobExpired', /live and published/],
        [400, { error: 'The job post ID must exist on the job board with the supplied board_token' }, 'JobNotFound', /must exist/],
        [400, { error: 'email field must contain a valid email address' }, 'ApplicantDetailsInvalid', /valid email/],
        [400, { error: 'first_name, last_name, and email fields are required' }, 'MandatoryQuestionsNotAnswered', /required/],
        [429, { error: 'Too many requests' }, 'ApplicationFailed', /rate-limited/],
      ],
      application: () => us(),
      revokedKey: {
        application: us(usAnswers(), { credential: { ...credential, key: 'revoked' } }),
        message: /refused the registered API key \(HTTP 401/,
      },
      serverError: { status: 502, body: 'Bad gateway' },
    });
  });

  it('lists in its coverage every field name it sent', () => {
    const listed = greenhouseApiCoverage.fields.map(
      (entry) => new RegExp(`^${entry.field.replace('{id}', '\\d+').replace(/[[\]]/g, '\\$&')}$`),
    );
    const names = new Set(double.submissions().flatMap((request) => Object.keys((request.json ?? {}) as Record<string, unknown>)));
    expect(names.size).toBeGreaterThan(20);
    expect([...names].filter((name) => !listed.some((pattern) => pattern.test(name)))).toEqual([]);
  });

  it('uses the hosted form when the client has no key for this board', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const { credential: _none, ...withoutKey } = us();
    await apply(applier, withoutKey, hooksOn(double));
    expect(hostedForm.calls).toHaveLength(1);
  });
});
