import type { ApplicationToSubmit, ResolvedAnswer } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { recruiteeDoubleOffers, startRecruiteeApiDouble, type VendorApiDouble } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recruiteeApiCoverage } from './recruitee.api-applier.ts';
import { apply, candidate, cvFile, hooksOn, mineWith, partsNamed, routerWith } from '@quarry/testing/ats-api-apply';

const offerUrl = (slug: string) => `https://acme.recruitee.com/o/${slug}`;
const url = offerUrl(recruiteeDoubleOffers.everyKind);
let double: VendorApiDouble;
const endpoints = () => double.endpoints;
let questions: Question[];

const photo = { ...cvFile(), filename: 'Ada.jpg', contentType: 'image/jpeg' };
const sample = { ...cvFile(), filename: 'Analytical Engine notes.pdf' };

/** An answer to every question the miner found on the offer with every documented kind. */
const answers = (without: string[] = []): ResolvedAnswer[] =>
  [
    { id: 'candidate.name', value: 'Ada Lovelace' },
    { id: 'candidate.email', value: candidate.email },
    { id: 'candidate.phone', value: candidate.phone },
    { id: 'candidate.photo', value: photo },
    { id: 'candidate.cv', value: cvFile() },
    { id: 'candidate.cover_letter', value: 'Dear Acme,\nI write programs.' },
    { id: 'open_question_2553702', value: true },
    { id: 'open_question_2553703', value: 'One month' },
    { id: 'open_question_2553704', value: 'Because of the engines.\nAnd the people.' },
    { id: 'open_question_2553705', value: 'Advanced' },
    { id: 'open_question_2553706', value: ['Elixir', 'TypeScript'] },
    { id: 'open_question_2553707', value: '2027-01-04T00:00:00.000Z' },
    { id: 'open_question_2553708', value: '7' },
    { id: 'open_question_2553709', value: '85000' },
    { id: 'open_question_2553710', value: sample },
    { id: 'open_question_2553711', value: true },
  ].filter((answer) => !without.includes(answer.id));
const application = (overrides: Partial<ApplicationToSubmit> = {}): ApplicationToSubmit => ({
  url,
  questions,
  answers: answers(),
  candidate,
  ...overrides,
});

/** The documented field a sent part is listed under: entry indices read as `[i]`. */
const listedName = (name: string) => name.replace(/\[open_question_answers_attributes\]\[\d+\]/, '[open_question_answers_attributes][i]');

beforeAll(async () => {
  double = await startRecruiteeApiDouble();
  questions = await mineWith(endpoints(), url);
});
afterAll(async () => double.close());

describe("Recruitee's careers-site API transport (no key)", () => {
  it('mines every answerable question of the offer, by the documented kinds', () => {
    expect(questions.map((question) => [question.id, question.inputType])).toEqual([
      ['candidate.name', 'Text'],
      ['candidate.email', 'Text'],
      ['candidate.phone', 'Text'],
      ['candidate.photo', 'File'],
      ['candidate.cv', 'File'],
      ['candidate.cover_letter', 'TextArea'],
      ['open_question_2553701', 'TextLiteral'],
      ['open_question_2553702', 'Boolean'],
      ['open_question_2553703', 'Text'],
      ['open_question_2553704', 'TextArea'],
      ['open_question_2553705', 'SelectOne'],
      ['open_question_2553706', 'SelectMultiple'],
      ['open_question_2553707', 'Date'],
      ['open_question_2553708', 'Text'],
      ['open_question_2553709', 'Text'],
      ['open_question_2553710', 'File'],
      ['open_question_2553711', 'Boolean'],
    ]);
  });

  it('sends each answer in the field Recruitee documents for its kind (a single choice as content), after beforeSubmit', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const hooks = hooksOn(double);
    const before = double.submissions().length;
    const outcome = await apply(applier, application(), hooks);

    expect(outcome).toMatchObject({ status: 'success', confirmation: { reference: expect.any(String) } });
    expect(hostedForm.calls).toHaveLength(0);
    expect(hooks.submissionsBefore).toEqual([before]);
    const [sent] = double.submissions().slice(before);
    expect(sent?.path).toBe(`/company/acme/api/offers/${recruiteeDoubleOffers.everyKind}/candidates`);
    const parts = sent?.parts ?? [];
    expect(partsNamed(parts, 'candidate[name]')).toEqual(['Ada Lovelace']);
    expect(partsNamed(parts, 'candidate[email]')).toEqual([candidate.email]);
    expect(partsNamed(parts, 'candidate[phone]')).toEqual([candidate.phone]);
    expect(partsNamed(parts, 'candidate[cover_letter]')).toEqual(['Dear Acme,\nI write programs.']);
    expect(partsNamed(parts, 'candidate[cv]')).toEqual([
      { filename: 'Ada Lovelace CV.pdf', type: 'application/pdf', bytes: cvFile().bytes },
    ]);
    expect(partsNamed(parts, 'candidate[photo]')).toEqual([{ filename: 'Ada.jpg', type: 'image/jpeg', bytes: photo.bytes }]);
    const entries = new Map<string, Array<[string, unknown]>>();
    for (const [name, value] of parts) {
      const entry = /^candidate\[open_question_answers_attributes\]\[(\d+)\](.+)$/.exec(name);
      if (entry) entries.set(entry[1] ?? '', [...(entries.get(entry[1] ?? '') ?? []), [entry[2] ?? '', value]]);
    }
    const byQuestion = new Map(
      [...entries.values()].map((entry) => [
        entry.find(([field]) => field === '[open_question_id]')?.[1],
        entry.filter(([field]) => field !== '[open_question_id]'),
      ]),
    );
    expect(Object.fromEntries(byQuestion)).toEqual({
      '2553702': [['[flag]', 'true']],
      '2553703': [['[content]', 'One month']],
      '2553704': [['[content]', 'Because of the engines.\nAnd the people.']],
      '2553705': [['[content]', 'Advanced']],
      '2553706': [
        ['[multi_content][]', 'Elixir'],
        ['[multi_content][]', 'TypeScript'],
      ],
      '2553707': [['[content]', '2027-01-04']],
      '2553708': [['[content]', '7']],
      '2553709': [['[content]', '85000']],
      '2553710': [['[file]', { filename: 'Analytical Engine notes.pdf', type: 'application/pdf', bytes: sample.bytes }]],
      '2553711': [['[flag]', 'true']],
    });
    // Every part it sent is a field the coverage lists, with its source.
    const listed = new Set(recruiteeApiCoverage.fields.map((field) => field.field));
    expect(parts.map(([name]) => listedName(name)).filter((name) => !listed.has(name))).toEqual([]);
  });

  it('hands an answer with no documented field (a video question) to the careers page, before sending anything', async () => {
    const { applier, hostedForm } = routerWith(endpoints());
    const videoUrl = offerUrl(recruiteeDoubleOffers.video);
    const videoQuestions = await mineWith(endpoints(), videoUrl);
    const before = double.submissions().length;
    const hooks = hooksOn(double);
    await apply(
      applier,
      {
        url: videoUrl,
        questions: videoQuestions,
        candidate,
        answers: [
          { id: 'candidate.name', value: 'Ada Lovelace' },
          { id: 'candidate.email', value: candidate.email },
          { id: 'open_question_2553801', value: cvFile() },
        ],
      },
      hooks,
    );
    expect(hostedForm.calls).toHaveLength(1);
    expect(double.submissions().length).toBe(before);
  });

  it('reports an unlisted offer as JobExpired, and a required question or CV left empty, before sending', async () => {
    const { applier } = routerWith(endpoints());
    const before = double.submissions().length;
    const closed = await apply(applier, application({ url: offerUrl(recruiteeDoubleOffers.closed) }), hooksOn(double));
    expect(closed).toMatchObject({ status: 'failed', errorCode: 'JobExpired', submitted: false });
    for (const left of ['open_question_2553705', 'open_question_2553711', 'candidate.cv']) {
      const hooks = hooksOn(double);
      const missing = await apply(applier, application({ answers: answers([left]) }), hooks);
      expect(missing).toMatchObject({ status: 'failed', errorCode: 'MandatoryQuestionsNotAnswered', submitted: false });
      expect(missing.status === 'failed' && missing.message).toContain(left);
      expect(hooks.calls).toBe(0);
    }
    expect(double.submissions().length).toBe(before);
  });

  it("maps Recruitee's 422 by its error_fields (blank, refused file, invalid detail); a 5xx is unknown", async () => {
    const { applier } = routerWith(endpoints());
    const cases: Array<[unknown, string, RegExp]> = [
      [
        { error: ["Phone can't be blank"], error_fields: { phone: ["can't be blank"] } },
        'MandatoryQuestionsNotAnswered',
        /Phone can't be blank/,
      ],
      [
        { error: ['Cv has an invalid file type'], error_fields: { cv: ['has an invalid file type'] } },
        'FileTypeNotSupported',
        /invalid file type/,
      ],
      [{ error: ['Email is invalid'], error_fields: { email: ['is invalid'] } }, 'ApplicantDetailsInvalid', /Email is invalid/],
    ];
    for (const [body, errorCode, message] of cases) {
      double.replyNext({ status: 422, body });
      const outcome = await apply(applier, application(), hooksOn(double));
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: 'failed', errorCode, submitted: false });
      expect(outcome.status === 'failed' && outcome.message).toMatch(message);
    }
    double.replyNext({ status: 503, body: 'upstream' });
    expect(await apply(applier, application(), hooksOn(double))).toMatchObject({ status: 'unknown' });
  });
});
