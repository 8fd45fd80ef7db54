// Longer than 400 lines: a table of cases, one per hosted vendor and variant, each with its expected
// submission; kept as one table so a vendor's cases are compared side by side.
import { greenhouseDoubleJob, startGreenhouseApiDouble } from '../index.ts';
import type { ApplicationErrorCode, Question } from '@quarry/contracts';
import type { ChromiumPool } from '@quarry/browser';
import { createMiner, defaultMinerEndpoints, type MinerEndpoints } from '@quarry/miner';
import { createSafeFetch } from '@quarry/safe-fetch';
import {
  manatalHostedVendor,
  manatalJobPath,
  manatalReceived,
  teamtailorHostedVendor,
  teamtailorJobPath,
  teamtailorUploads,
  workdayHostedVendor,
  workdayQuestions,
  smartRecruitersHostedVendor,
  smartRecruitersReceived,
  recruiteeHostedVendor,
  recruiteeOfferSlug,
  bambooJobId,
  bamboohrHostedVendor,
  bamboohrReceived,
  breezyHostedVendor,
  breezyPosting,
  jazzhrHostedVendor,
  jazzhrJobPath,
  workableHostedVendor,
  workableReceived,
  workableShortcode,
  ashbyHostedVendor,
  ashbyPostingId,
  ashbySavedValues,
  greenhouseHostedVendor,
  leverHostedVendor,
  leverPostingId,
  startHostedAtsDouble,
  type HostedAtsDouble,
  type HostedPart,
  type HostedRequest,
  type HostedVariant,
  type WorkdayAddress,
  type WorkdayResume,
  type WorkdayVendor,
} from '../index.ts';
import {
  createBrowserApplier,
  type Applier,
  type AtsAccount,
  type FileToUpload,
  type ResolvedAnswer,
  type SubmitHooks,
  type SubmitOutcome,
} from '@quarry/hosted-form-apply';

/** What a vendor must have received for one answer: under its field name, in its encoding. */
export type ExpectedField = { name: string; value: unknown };

/** One application sent to a vendor double, and what it must end as. */
export type CaseApplication = {
  /** The vendor's answer this application meets (`accept`, `closed`, …). */
  variant: string;
  expected: 'success' | ApplicationErrorCode;
  send(hooks: SubmitHooks): Promise<SubmitOutcome>;
  /** The fields that must have arrived (none unless the vendor accepts). */
  fields: ExpectedField[];
  /** Each expected field's value as the vendor received it, or undefined. */
  received(): Map<string, unknown>;
  /**
   * Each answer the candidate gave and the fields that carry it (API cases): an answer none of
   * whose fields arrived, or that names no field, was not carried. Absent: not measured.
   */
  answerFields?: Array<{ id: string; fields: string[] }>;
  /**
   * Writes the vendor received before the at-most-once intent was recorded in the last send (must
   * be 0), and in all (uploads, saved answers, posts).
   */
  writes(): { beforeIntent: number; total: number };
};

/** A vendor double running with the applications to send it, per (ATS, transport). */
export type RunningCase = { applications: CaseApplication[]; close(): Promise<void> };
export type ApplyCase = { ats: string; transport: 'hostedForm' | 'authorizedApi'; start(pool: ChromiumPool): Promise<RunningCase> };

export const candidate = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+44 20 7946 0001' };

/** Not a real PDF: bytes that must arrive unchanged, a NUL, high bytes and a CRLF among them. */
export const cvFile = (filename = 'ada-cv.pdf'): FileToUpload => ({
  type: 'File',
  filename,
  contentType: 'application/pdf',
  bytes: Buffer.concat([
    Buffer.from('%PDF-1.7\n'),
    Buffer.from([0, 255, 254, 13, 10, 0x80]),
    Buffer.from('Ada Lovelace, analyst\n%%EOF\n'),
  ]),
});
export const letterFile = (): FileToUpload => ({
  type: 'File',
  filename: 'letter.txt',
  contentType: 'text/plain',
  bytes: Buffer.from('Dear team,\nI would like to join.\n'),
});

/** Does a received value equal the expected one (files byte for byte, lists in order)? */
export function sameValue(expected: unknown, actual: unknown): boolean {
  if (actual === undefined) return false;
  const bytes = (value: unknown) =>
    typeof value === 'object' && value !== null && Buffer.isBuffer((value as { bytes?: unknown }).bytes)
      ? (value as { bytes: Buffer }).bytes
      : null;
  const expectedBytes = bytes(expected);
  if (expectedBytes) return bytes(actual)?.equals(expectedBytes) ?? false;
  return JSON.stringify(expected) === JSON.stringify(actual);
}

/** Values of a form post by name: one value, or the list when the name repeats or ends with []. */
export function formValues(request: HostedRequest | undefined): Map<string, ExpectedField['value']> {
  const values = new Map<string, ExpectedField['value']>();
  const grouped = new Map<string, HostedPart[]>();
  for (const [name, value] of request?.parts ?? []) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  for (const [name, parts] of grouped) {
    const texts = parts.map((part) => (typeof part === 'string' ? part : null));
    const file = parts.find((part): part is Exclude<HostedPart, string> => typeof part !== 'string');
    if (file) values.set(name, { bytes: file.bytes });
    else values.set(name, parts.length > 1 || name.endsWith('[]') ? (texts as string[]) : (texts[0] as string));
  }
  return values;
}

/** The questions the miner mines from a vendor's definition (served by the API doubles). */
export async function mineQuestions(url: string, endpoints: Partial<MinerEndpoints>): Promise<Question[]> {
  const miner = createMiner({
    fetch: createSafeFetch({ allowPrivate: ['127.0.0.1'] }),
    timeoutMs: 5_000,
    endpoints: { ...defaultMinerEndpoints, ...endpoints },
  });
  const mined = await miner({ url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' }, new AbortController().signal);
  if (!mined.ok) throw new Error(`the fixture did not mine: ${mined.errorCode} ${mined.detail}`);
  return mined.form.questions;
}

export const hostedApplier = (pool: ChromiumPool): Applier =>
  createBrowserApplier({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 45_000, outcomeWaitMs: 3_000 });

/**
 * The applications every hosted double is sent: one per answer the double has, the `accept` one
 * carrying every answer; the others expect the interface code the vendor's answer means.
 */
function hostedApplications(
  double: HostedAtsDouble,
  applier: Applier,
  questions: Question[],
  answers: ResolvedAnswer[],
  fields: ExpectedField[],
  received: () => Map<string, unknown>,
  codes: Partial<Record<HostedVariant, ApplicationErrorCode>>,
  more: {
    /** The client's account on the vendor's tenant, sent with every application unless one says otherwise. */
    account?: AtsAccount;
    /** Applications the vendor refuses on its accepting page for what they carry (a knockout answer, a wrong or missing account). */
    refused?: Array<{ variant: string; answers?: ResolvedAnswer[]; account?: AtsAccount | null; expected: ApplicationErrorCode }>;
  } = {},
): CaseApplication[] {
  const total = () => double.earlyWrites.length + double.submissions.length;
  const sent = [
    ...double.variants.map((variant) => ({
      variant,
      doubleVariant: variant,
      answers,
      account: more.account,
      expected: variant === 'accept' ? ('success' as const) : (codes[variant] ?? 'ApplicationFailed'),
    })),
    ...(more.refused ?? []).map((refused) => ({
      ...refused,
      answers: refused.answers ?? answers,
      account: refused.account === undefined ? more.account : (refused.account ?? undefined),
      doubleVariant: 'accept' as const,
    })),
  ];
  return sent.map(({ variant, doubleVariant, answers, account, expected }) => {
    let beforeIntent: number | null = null;
    return {
      variant,
      expected,
      fields: variant === 'accept' ? fields : [],
      received,
      writes: () => ({ beforeIntent: beforeIntent ?? total(), total: total() }),
      send: (hooks) => {
        double.setVariant(doubleVariant);
        double.submissions.length = 0;
        double.earlyWrites.length = 0;
        beforeIntent = null;
        const counted: SubmitHooks = {
          beforeSubmit: async () => {
            beforeIntent = total();
            await hooks.beforeSubmit();
          },
        };
        return applier(
          { url: double.url, questions, answers, candidate, ...(account ? { account } : {}) },
          counted,
          new AbortController().signal,
        );
      },
    };
  });
}

const byName = (request: HostedRequest | undefined, name: string): HostedPart | undefined =>
  request?.parts.find(([key]) => key === name)?.[1];
const uploadNamed = (double: HostedAtsDouble, key: string) => double.earlyWrites.find((write) => byName(write, 'key') === key);

export const greenhouseHostedCase: ApplyCase = {
  ats: 'greenhouse',
  transport: 'hostedForm',
  start: async (pool) => {
    const api = await startGreenhouseApiDouble({ key: 'unused' });
    const double = await startHostedAtsDouble(greenhouseHostedVendor());
    const questions = await mineQuestions(`https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`, api.endpoints);
    const cv = cvFile();
    const letter = letterFile();
    const answers: ResolvedAnswer[] = [
      { id: 'first_name', value: 'Ada' },
      { id: 'last_name', value: 'Lovelace' },
      { id: 'email', value: 'ada@example.com' },
      { id: 'phone', value: '+44 20 7946 0001' },
      { id: 'resume_or_text', value: [{ id: 'resume', value: cv }] },
      { id: 'cover_letter_or_text', value: [{ id: 'cover_letter', value: letter }] },
      { id: 'question_30000001', value: 'https://www.linkedin.com/in/ada' },
      { id: 'question_30000002', value: 'No' },
      { id: 'question_30000003', value: ['English', 'Spanish'] },
      { id: 'question_30000004', value: 'Engines.\nAnd analysis.' },
      { id: 'location', value: 'London, United Kingdom' },
      { id: 'gender', value: 'Female' },
      { id: 'race', value: 'White' },
    ];
    const fields: ExpectedField[] = [
      { name: 'first_name', value: 'Ada' },
      { name: 'last_name', value: 'Lovelace' },
      { name: 'email', value: 'ada@example.com' },
      { name: 'phone', value: '+44 20 7946 0001' },
      { name: 'question_30000001', value: 'https://www.linkedin.com/in/ada' },
      // Single selects carry the option's value id (Yes 1, No 0), multi-selects the ids of each choice.
      { name: 'question_30000002', value: '0' },
      { name: 'question_30000003[]', value: ['101', '102'] },
      // A browser sends a textarea's line breaks as CRLF.
      { name: 'question_30000004', value: 'Engines.\r\nAnd analysis.' },
      { name: 'location', value: 'London, United Kingdom' },
      { name: 'gender', value: '2' },
      { name: 'race', value: '2' },
      // Files are stored on choose; the form carries the stored key.
      { name: 'upload resume', value: { bytes: cv.bytes } },
      { name: 'upload cover_letter', value: { bytes: letter.bytes } },
      { name: 'resume_url', value: true },
      { name: 'cover_letter_url', value: true },
    ];
    const received = () => {
      const form = formValues(double.submissions[0]);
      const values = new Map<string, ExpectedField['value'] | undefined>();
      for (const field of fields) {
        if (field.name.startsWith('upload ')) {
          const file = byName(uploadNamed(double, field.name.slice('upload '.length)), 'file');
          values.set(field.name, typeof file === 'object' ? { bytes: file.bytes } : undefined);
        } else if (field.name.endsWith('_url')) {
          values.set(
            field.name,
            typeof form.get(field.name) === 'string' && String(form.get(field.name)).startsWith('uploads/') ? true : undefined,
          );
        } else values.set(field.name, form.get(field.name));
      }
      return values;
    };
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobExpired',
        invalidFile: 'FileTypeNotSupported',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: async () => {
        await double.close();
        await api.close();
      },
    };
  },
};

/** Received values of the expected fields: the form post's, or what `special` reads elsewhere (an early upload). */
function receivedFrom(
  request: () => HostedRequest | undefined,
  fields: ExpectedField[],
  special: (name: string) => ExpectedField['value'] | undefined | null = () => null,
) {
  return () => {
    const form = formValues(request());
    return new Map(fields.map((field) => [field.name, special(field.name) ?? form.get(field.name)] as const));
  };
}

export const leverHostedCase: ApplyCase = {
  ats: 'lever',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(leverHostedVendor());
    const questions = await mineQuestions(`https://jobs.lever.co/acme/${leverPostingId}/apply`, { lever: double.origin });
    const cv = cvFile();
    const salary = 'cards[a68e123b-787e-5753-8d5a-f092c824b9c4][field0]';
    const authorised = 'cards[f7b4a887-2455-52b8-ad87-67c9a6897383][field0]';
    const sponsorship = 'cards[f7b4a887-2455-52b8-ad87-67c9a6897383][field1]';
    const answers: ResolvedAnswer[] = [
      { id: 'resume', value: cv },
      { id: 'name', value: 'Ada Lovelace' },
      { id: 'email', value: 'ada@example.com' },
      { id: 'phone', value: '+44 20 7946 0001' },
      { id: 'location', value: 'London' },
      { id: 'org', value: 'Analytical Engines Ltd' },
      { id: 'urls[LinkedIn]', value: 'https://www.linkedin.com/in/ada' },
      { id: 'urls[GitHub]', value: 'https://github.com/ada' },
      { id: salary, value: '£90,000' },
      { id: authorised, value: 'Yes' },
      { id: sponsorship, value: 'No' },
      { id: 'eeo[gender]', value: 'Female' },
      { id: 'eeo[race]', value: 'White (Not Hispanic or Latino)' },
      { id: 'eeo[veteran]', value: 'I am not a veteran' },
    ];
    // Lever's form posts each box under its own name; choices carry the option's text.
    const fields: ExpectedField[] = [
      ...answers.filter((answer) => answer.id !== 'resume').map((answer) => ({ name: answer.id, value: String(answer.value) })),
      { name: 'resume', value: { bytes: cv.bytes } },
      { name: 'parseResume', value: { bytes: cv.bytes } },
      { name: 'resumeStorageId', value: 'c1d2e3f4-0000-4000-8000-00000000cafe' },
    ];
    const received = receivedFrom(
      () => double.submissions[0],
      fields,
      (name) => {
        if (name !== 'parseResume') return null;
        const file = byName(
          double.earlyWrites.find((write) => write.path === '/parseResume'),
          'resume',
        );
        return typeof file === 'object' ? { bytes: file.bytes } : undefined;
      },
    );
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobExpired',
        invalidFile: 'FileFailedToUpload',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: async () => {
        await double.close();
      },
    };
  },
};

export const ashbyHostedCase: ApplyCase = {
  ats: 'ashby',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(ashbyHostedVendor());
    const questions = await mineQuestions(`https://jobs.ashbyhq.com/acme/${ashbyPostingId}`, { ashby: double.origin });
    const cv = cvFile();
    const custom = (suffix: string) => `0a1b2c3d-0000-4000-8000-0000000000${suffix}`;
    const education = '_systemfield_education_history';
    const answers: ResolvedAnswer[] = [
      { id: '_systemfield_name', value: 'Ada Lovelace' },
      { id: '_systemfield_email', value: 'ada@example.com' },
      { id: '_systemfield_phone', value: '+44 20 7946 0001' },
      { id: '_systemfield_resume', value: cv },
      { id: custom('a2'), value: 'https://www.linkedin.com/in/ada' },
      { id: custom('a3'), value: 'https://ada.example.com/notes' },
      {
        id: education,
        value: [
          [
            { id: `${education}.schoolName`, value: 'University of London' },
            { id: `${education}.degree`, value: 'BSc' },
            { id: `${education}.major`, value: 'Mathematics' },
            { id: `${education}.startDate`, value: '1830-09-01' },
            { id: `${education}.endDate`, value: '1833-06-30' },
          ],
        ],
      },
      { id: custom('b1'), value: false },
      { id: custom('b2'), value: '2027-01-15' },
      { id: custom('b3'), value: '3-5' },
      { id: custom('b4'), value: ['Python', 'SQL'] },
      { id: custom('b5'), value: 'Engines.\nAnd analysis.' },
      { id: '_systemfield_data_consent_ack', value: ['I agree'] },
      { id: 'untitled', value: ['Yes'] },
    ];
    // Ashby keeps each answer as saved by path: texts, booleans, ISO dates, a choice's value, lists of values.
    const fields: ExpectedField[] = [
      { name: '_systemfield_name', value: 'Ada Lovelace' },
      { name: '_systemfield_email', value: 'ada@example.com' },
      { name: '_systemfield_phone', value: '+44 20 7946 0001' },
      { name: '_systemfield_resume', value: { bytes: cv.bytes } },
      { name: custom('a2'), value: 'https://www.linkedin.com/in/ada' },
      { name: custom('a3'), value: 'https://ada.example.com/notes' },
      {
        name: education,
        value: [
          { schoolName: 'University of London', degree: 'BSc', major: 'Mathematics', startDate: '1830-09-01', endDate: '1833-06-30' },
        ],
      },
      { name: custom('b1'), value: false },
      { name: custom('b2'), value: '2027-01-15' },
      { name: custom('b3'), value: '3-5' },
      { name: custom('b4'), value: ['Python', 'SQL'] },
      { name: custom('b5'), value: 'Engines.\nAnd analysis.' },
      { name: '_systemfield_data_consent_ack', value: ['data_consent_ack'] },
      { name: 'untitled', value: ['Yes'] },
    ];
    return {
      applications: hostedApplications(
        double,
        hostedApplier(pool),
        questions,
        answers,
        fields,
        () => ashbySavedValues(double.earlyWrites),
        {
          closed: 'JobExpired',
          duplicate: 'AlreadyApplied',
          invalidFile: 'FileFailedToUpload',
          missingField: 'MandatoryQuestionsNotAnswered',
          botCheck: 'BotDetection',
        },
      ),
      close: () => double.close(),
    };
  },
};

export const workableHostedCase: ApplyCase = {
  ats: 'workable',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(workableHostedVendor());
    const questions = await mineQuestions(`https://apply.workable.com/acme/j/${workableShortcode}/`, { workable: double.origin });
    const cv = cvFile();
    const yes = [
      'QA_9530803',
      'QA_9530804',
      'QA_9530805',
      'QA_9530806',
      'QA_9530807',
      'QA_9530815',
      'QA_9530817',
      'QA_9530818',
      'QA_9530819',
    ];
    const answers: ResolvedAnswer[] = [
      { id: 'firstname', value: 'Ada' },
      { id: 'lastname', value: 'Lovelace' },
      { id: 'email', value: 'ada@example.com' },
      { id: 'headline', value: 'Analyst' },
      { id: 'phone', value: '+44 20 7946 0001' },
      { id: 'address', value: 'London, United Kingdom' },
      { id: 'summary', value: 'Engines.\nAnd analysis.' },
      { id: 'resume', value: cv },
      { id: 'cover_letter', value: 'Dear team, I would like to join.' },
      ...yes.map((id) => ({ id, value: true })),
      { id: 'QA_9530816', value: false },
      { id: 'QA_9530809', value: 'Female' },
      { id: 'QA_9530811', value: 'No, I am not a protected veteran' },
      { id: 'QA_9831316', value: ['English', 'French'] },
      { id: 'QA_9831317', value: 'None' },
      { id: 'QA_9530820', value: ['Morning (8:00–11:00 AM)', 'Evening (4:00–6:00 PM)'] },
      { id: 'QA_11529563', value: 'No' },
    ];
    // Standard fields by id; booleans as `checked`, choices as option ids; the résumé stored on choose.
    const fields: ExpectedField[] = [
      ...['firstname', 'lastname', 'email', 'headline', 'phone', 'address', 'cover_letter', 'QA_9831317', 'QA_11529563'].map((name) => ({
        name,
        value: answers.find((answer) => answer.id === name)?.value,
      })),
      { name: 'summary', value: 'Engines.\nAnd analysis.' },
      ...yes.map((name) => ({ name, value: true })),
      { name: 'QA_9530816', value: false },
      { name: 'QA_9530809', value: ['5094526'] },
      { name: 'QA_9530811', value: ['5094541'] },
      { name: 'QA_9831316', value: ['5249623', '5249631'] },
      { name: 'QA_9530820', value: ['5094557', '5094559'] },
      { name: 'upload resume', value: { bytes: cv.bytes } },
      { name: 'resume', value: cv.filename },
    ];
    const received = () => {
      const values = workableReceived(double.submissions[0], double.earlyWrites);
      const resume = values.get('resume') as { name?: string } | undefined;
      values.set('resume', resume?.name);
      return values;
    };
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobExpired',
        invalidFile: 'FileFailedToUpload',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: () => double.close(),
    };
  },
};

export const jazzhrHostedCase: ApplyCase = {
  ats: 'jazzhr',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(jazzhrHostedVendor());
    const questions = await mineQuestions(`https://acme.applytojob.com${jazzhrJobPath}`, { jazzhr: double.origin });
    const cv = cvFile();
    const q = (id: number) => `resumator-questionnaire[${id}]`;
    const address: Array<[string, string]> = [
      ['resumator-address-value', '12 St James Square'],
      ['resumator-city-value', 'London'],
      ['resumator-state-value', 'Greater London'],
      ['resumator-postal-value', 'SW1Y 4JH'],
    ];
    const answers: ResolvedAnswer[] = [
      { id: 'resumator-firstname-value', value: 'Ada' },
      { id: 'resumator-lastname-value', value: 'Lovelace' },
      { id: 'resumator-email-value', value: 'ada@example.com' },
      { id: 'resumator-phone-value', value: '+44 20 7946 0001' },
      { id: 'resumator-address', value: address.map(([id, value]) => ({ id, value })) },
      { id: 'resumator-resume-value', value: cv },
      { id: 'resumator-salary-value', value: '£90,000' },
      { id: q(1437330), value: 'No' },
      { id: q(1437333), value: 'No' },
      { id: q(1437337), value: 'Referral' },
      { id: q(1604163), value: 'Grace Hopper' },
      { id: q(1519771), value: 'Yes' },
      { id: q(2330229), value: 'she/her' },
      { id: 'resumator-eeo_gender-value', value: 'Female' },
    ];
    // One multipart post of the form: every box under its own name, selects by their option values.
    const fields: ExpectedField[] = [
      ...answers
        .filter((answer) => typeof answer.value === 'string' && answer.id !== 'resumator-eeo_gender-value')
        .map((answer) => ({ name: answer.id, value: answer.value })),
      ...address.map(([name, value]) => ({ name, value })),
      { name: 'resumator-eeo_gender-value', value: '1' },
      { name: 'resumator-resume-value', value: { bytes: cv.bytes } },
    ];
    return {
      applications: hostedApplications(
        double,
        hostedApplier(pool),
        questions,
        answers,
        fields,
        receivedFrom(() => double.submissions[0], fields),
        {
          closed: 'JobExpired',
          invalidFile: 'FileFailedToUpload',
          missingField: 'MandatoryQuestionsNotAnswered',
          botCheck: 'BotDetection',
        },
      ),
      close: () => double.close(),
    };
  },
};

export const manatalHostedCase: ApplyCase = {
  ats: 'manatal',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(manatalHostedVendor());
    const questions = await mineQuestions(`https://www.careers-page.com${manatalJobPath}`, { manatal: double.origin });
    const cv = cvFile();
    const answers: ResolvedAnswer[] = [
      { id: '2001', value: 'Ada Lovelace' },
      { id: '2002', value: 'ada@example.com' },
      { id: '2003', value: '+44 20 7946 0001' },
      { id: '2004', value: 'Engines.\nAnd analysis.' },
      { id: '2005', value: cv },
      { id: '2006', value: 'Yes' },
      { id: '2007', value: 'No, I would relocate' },
      { id: '2008', value: ['Yes'] },
    ];
    // Answers by definition id: texts as typed (a textarea's breaks as the page keeps them), the
    // checkbox list as the ticked choices, the résumé by its stored key and its bytes in storage.
    const fields: ExpectedField[] = [
      ...answers
        .filter((answer) => typeof answer.value === 'string' && answer.id !== '2004')
        .map((answer) => ({ name: answer.id, value: answer.value })),
      { name: '2004', value: 'Engines.\nAnd analysis.' },
      { name: '2008', value: ['Yes'] },
      { name: '2005', value: true },
      { name: 'upload resume', value: { bytes: cv.bytes } },
    ];
    const received = () => {
      const values = manatalReceived(double.submissions[0], double.earlyWrites);
      const stored = values.get('upload resume') as { key?: unknown } | undefined;
      values.set('2005', stored?.key !== undefined && values.get('2005') === stored.key ? true : undefined);
      return values;
    };
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobNotFound',
        invalidFile: 'FileTypeNotSupported',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: () => double.close(),
    };
  },
};

export const teamtailorHostedCase: ApplyCase = {
  ats: 'teamtailor',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(teamtailorHostedVendor());
    const questions = await mineQuestions(`https://acme.teamtailor.com${teamtailorJobPath}`, { teamtailor: double.origin });
    const cv = cvFile();
    const letter = letterFile();
    const answer = (index: number, kind: string) => `candidate[answers_attributes][${index}][${kind}]`;
    const answers: ResolvedAnswer[] = [
      { id: answer(0, 'boolean'), value: true },
      { id: answer(1, 'text'), value: 'London, Ontario' },
      { id: answer(2, 'text'), value: 'https://www.linkedin.com/in/ada' },
      { id: answer(3, 'number'), value: '90000' },
      { id: answer(4, 'text'), value: 'Grace Hopper' },
      { id: `${answer(5, 'choices')}[]`, value: ['English', 'French'] },
      { id: answer(6, 'date'), value: '2027-01-15' },
      { id: 'candidate[first_name]', value: 'Ada' },
      { id: 'candidate[last_name]', value: 'Lovelace' },
      { id: 'candidate[email]', value: 'ada@example.com' },
      { id: 'candidate[phone]', value: '+44 20 7946 0001' },
      { id: 'candidate[location][query]', value: 'London, United Kingdom' },
      { id: 'candidate[resume_remote_url]', value: cv },
      { id: 'candidate[file_remote_url]', value: letter },
      { id: 'candidate[job_applications_attributes][0][cover_letter]', value: 'Engines.\nAnd analysis.' },
      { id: 'candidate[consent_given]', value: true },
      { id: 'candidate[consent_given_future_jobs]', value: false },
    ];
    const stored = 'https://teamtailor-production.s3.amazonaws.com/';
    // Rails names: booleans as "true"/"false" radios, a ticked box after its hidden "0", choices
    // by id, dates ISO; files stored on choose, the form carrying each one's stored address.
    const fields: ExpectedField[] = [
      { name: answer(0, 'question_id'), value: '100626' },
      { name: answer(0, 'boolean'), value: 'true' },
      { name: answer(1, 'text'), value: 'London, Ontario' },
      { name: answer(2, 'text'), value: 'https://www.linkedin.com/in/ada' },
      { name: answer(3, 'number'), value: '90000' },
      { name: answer(4, 'text'), value: 'Grace Hopper' },
      { name: answer(5, 'question_id'), value: '100701' },
      { name: `${answer(5, 'choices')}[]`, value: ['200001', '200002'] },
      { name: answer(6, 'date'), value: '2027-01-15' },
      { name: 'candidate[first_name]', value: 'Ada' },
      { name: 'candidate[last_name]', value: 'Lovelace' },
      { name: 'candidate[email]', value: 'ada@example.com' },
      { name: 'candidate[phone]', value: '+44 20 7946 0001' },
      { name: 'candidate[location][query]', value: 'London, United Kingdom' },
      { name: 'candidate[location][city]', value: 'London' },
      { name: 'candidate[job_applications_attributes][0][cover_letter]', value: 'Engines.\r\nAnd analysis.' },
      { name: 'candidate[consent_given]', value: ['0', '1'] },
      { name: 'candidate[consent_given_future_jobs]', value: '0' },
      { name: 'candidate[resume_remote_url]', value: { bytes: cv.bytes } },
      { name: 'candidate[uploads_attributes][0][file_remote_url]', value: { bytes: letter.bytes } },
    ];
    const received = () => {
      const form = formValues(double.submissions[0]);
      const uploads = teamtailorUploads(double.earlyWrites);
      // A stored address stands for the bytes stored under it.
      for (const [name, value] of form)
        if (typeof value === 'string' && value.startsWith(stored)) form.set(name, { bytes: uploads.get(value.slice(stored.length)) });
      return form;
    };
    const excluded = answers.map((given) => (given.id === answer(0, 'boolean') ? { ...given, value: false } : given));
    return {
      applications: hostedApplications(
        double,
        hostedApplier(pool),
        questions,
        answers,
        fields,
        received,
        {
          closed: 'JobExpired',
          invalidFile: 'FileTypeNotSupported',
          missingField: 'MandatoryQuestionsNotAnswered',
          botCheck: 'BotDetection',
        },
        { refused: [{ variant: 'knockout', answers: excluded, expected: 'MandatoryQuestionsNotAnswered' }] },
      ),
      close: () => double.close(),
    };
  },
};

/** The candidate account the client registered for the Workday tenant (the double's host). */
export const workdayAccount = { email: 'ada@example.com', password: 'correct horse battery staple' };

/** The Workday case: its double and applications, the tenant's side (sign-ins, drafts, what Submit sent), the account and the answers. */
export type WorkdayCase = Awaited<ReturnType<typeof workdayApplications>> & {
  vendor: WorkdayVendor;
  signIns: () => Array<{ email: string; accepted: boolean }>;
};

/**
 * The Workday case; `address: 'sharedHost'` serves it as on myworkdaysite.com, whose path names
 * the tenant: the account is then registered for host and tenant (`127.0.0.1:<port>/acme`);
 * `emailCode`: the tenant asks the account for a code it e-mails, past its password.
 */
export async function startWorkdayCase(
  pool: ChromiumPool,
  options: { resume?: WorkdayResume; address?: WorkdayAddress; emailCode?: boolean } = {},
): Promise<WorkdayCase> {
  const vendor = workdayHostedVendor({ ...workdayAccount, emailCode: options.emailCode ?? false }, options);
  const running = await workdayApplications(pool, vendor, options.address === 'sharedHost' ? '/acme' : '');
  return { ...running, vendor, signIns: () => vendor.signIns };
}

export const workdayHostedCase: ApplyCase = {
  ats: 'workday',
  transport: 'hostedForm',
  start: async (pool) => (await startWorkdayCase(pool)).running,
};

async function workdayApplications(pool: ChromiumPool, vendor: WorkdayVendor, tenantInBoard: string) {
  const double = await startHostedAtsDouble(vendor);
  const account: AtsAccount = { ats: 'workday', board: `${new URL(double.origin).host}${tenantInBoard}`, ...workdayAccount };
  const questions: Question[] = workdayQuestions();
  const cv = cvFile();
  const answers: ResolvedAnswer[] = [
    { id: 'source', value: 'LinkedIn' },
    { id: 'previousWorker', value: false },
    { id: 'firstName', value: 'Ada' },
    { id: 'lastName', value: 'Lovelace' },
    { id: 'addressLine1', value: '12 St James Square' },
    { id: 'city', value: 'London' },
    { id: 'postalCode', value: 'SW1Y 4JH' },
    { id: 'phoneNumber', value: '+44 20 7946 0001' },
    { id: 'jobTitle', value: 'Analyst' },
    { id: 'company', value: 'Analytical Engines Ltd' },
    { id: 'location', value: 'London' },
    { id: 'current', value: true },
    { id: 'startDate', value: '1843-09-01' },
    { id: 'roleDescription', value: 'Notes on the engine.\nThe first program.' },
    { id: 'school', value: 'University of London' },
    { id: 'degree', value: 'B.S. - Bachelor of Science' },
    { id: 'skills', value: ['SQL', 'Python'] },
    { id: 'resume', value: cv },
    { id: 'workAuthorization', value: 'Yes' },
    { id: 'sponsorship', value: 'No' },
    { id: 'relocation', value: true },
    { id: 'offices', value: ['London', 'Remote'] },
    { id: 'availableFrom', value: '2027-01-15' },
    { id: 'motivation', value: 'Engines.' },
    { id: 'gender', value: 'Female' },
    { id: 'veteranStatus', value: 'I am not a veteran' },
    { id: 'termsAndConditions', value: true },
  ];
  // What Submit sent the employer, by field key: texts once focus left them, choices by their text,
  // yes/no and ticks as booleans, dates as month / day / year boxes, the résumé by name and bytes.
  const fields: ExpectedField[] = [
    ...answers
      .filter((answer) => typeof answer.value === 'string' && !['startDate', 'availableFrom'].includes(answer.id))
      .map((answer) => ({ name: answer.id, value: answer.value })),
    { name: 'previousWorker', value: false },
    { name: 'current', value: true },
    { name: 'relocation', value: true },
    { name: 'startDateMonth', value: '09' },
    { name: 'startDateYear', value: '1843' },
    { name: 'skills', value: ['SQL', 'Python'] },
    { name: 'offices', value: ['London', 'Remote'] },
    { name: 'availableFromMonth', value: '01' },
    { name: 'availableFromDay', value: '15' },
    { name: 'availableFromYear', value: '2027' },
    { name: 'termsAndConditions', value: true },
    { name: 'resume', value: [{ name: cv.filename, bytes: cv.bytes }] },
    { name: 'submitted', value: true },
  ];
  // The application of the last send, when it submitted once.
  const received = () => {
    const sent = double.submissions.length === 1 ? vendor.submitted.at(-1)?.values : undefined;
    const values = new Map<string, unknown>(Object.entries(sent ?? {}));
    values.set('submitted', sent ? true : undefined);
    return values;
  };
  const applications = hostedApplications(
    double,
    hostedApplier(pool),
    questions,
    answers,
    fields,
    received,
    { closed: 'JobNotFound', invalidFile: 'FileTypeNotSupported', missingField: 'MandatoryQuestionsNotAnswered' },
    {
      account,
      refused: [
        // Without an account the wall stays; with a wrong password the tenant refuses the sign-in.
        { variant: 'noAccount', account: null, expected: 'ApplicationFailed' },
        { variant: 'wrongPassword', account: { ...account, password: 'not the password' }, expected: 'ApplicationFailed' },
      ],
    },
  );
  return { double, account, questions, answers, cv, running: { applications, close: () => double.close() } as RunningCase };
}

export const bamboohrHostedCase: ApplyCase = {
  ats: 'bamboohr',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(bamboohrHostedVendor());
    const questions = await mineQuestions(`https://acme.bamboohr.com/careers/${bambooJobId}`, { bamboohr: double.origin });
    const cv = cvFile();
    const letter = letterFile();
    const custom = (type: string, id: number) => `customQuestionAnswers.${type}_${id}`;
    const texts: Array<[id: string, value: string]> = [
      ['firstName', 'Ada'],
      ['lastName', 'Lovelace'],
      ['email', 'ada@example.com'],
      ['phone', '+44 20 7946 0001'],
      ['streetAddress', '12 St James Square'],
      ['city', 'London'],
      ['zip', 'SW1Y 4JH'],
      ['linkedinUrl', 'https://www.linkedin.com/in/ada'],
      ['websiteUrl', 'https://ada.example.com'],
      // The box takes the date as typed, mm/dd/yyyy.
      ['dateAvailable', '01/15/2027'],
      [custom('short', 506), '£85,000-£95,000'],
      [custom('long', 507), 'Engines.\nAnd analysis.'],
      [custom('short', 508), 'A friend'],
    ];
    const answers: ResolvedAnswer[] = [
      ...texts.map(([id, value]) => ({ id, value })),
      { id: 'state', value: 'NY' },
      { id: 'countryId', value: 'United Kingdom' },
      { id: 'educationLevelId', value: 'College - Bachelor of Science' },
      { id: 'genderId', value: 'Female' },
      { id: 'ethnicityId', value: 'White' },
      { id: 'veteranStatusId', value: 'Not a veteran' },
      { id: custom('yes_no', 509), value: false },
      { id: custom('yes_no', 510), value: true },
      { id: 'resumeFileId', value: cv },
      { id: 'coverLetterFileId', value: letter },
    ];
    // Texts as typed (a textarea's line break as the page keeps it), lists by option id, yes/no as `yes` / `no`, files by the bytes behind their temporary id.
    const fields: ExpectedField[] = [
      ...texts.map(([name, value]) => ({ name, value })),
      { name: 'state', value: '33' },
      { name: 'countryId', value: '222' },
      { name: 'educationLevelId', value: '7' },
      { name: 'genderId', value: '2' },
      { name: 'ethnicityId', value: '18466' },
      { name: 'veteranStatusId', value: '-2' },
      { name: custom('yes_no', 509), value: 'no' },
      { name: custom('yes_no', 510), value: 'yes' },
      { name: 'resumeFileId', value: { bytes: cv.bytes } },
      { name: 'coverLetterFileId', value: { bytes: letter.bytes } },
      // The honeypot left empty, as a person leaves it.
      { name: 'nickname_hpcsaf', value: '' },
    ];
    return {
      applications: hostedApplications(
        double,
        hostedApplier(pool),
        questions,
        answers,
        fields,
        () => bamboohrReceived(double.submissions[0], double.earlyWrites),
        {
          closed: 'JobExpired',
          invalidFile: 'FileTypeNotSupported',
          missingField: 'MandatoryQuestionsNotAnswered',
          botCheck: 'BotDetection',
        },
      ),
      close: () => double.close(),
    };
  },
};

export const breezyHostedCase: ApplyCase = {
  ats: 'breezy',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(breezyHostedVendor());
    const questions = await mineQuestions(`https://acme.breezy.hr/p/${breezyPosting}`, { breezy: double.origin });
    const cv = cvFile();
    const texts: Array<[id: string, value: string]> = [
      ['cName', 'Ada Lovelace'],
      ['cEmail', 'ada@example.com'],
      ['cPhoneNumber', '+44 20 7946 0001'],
      ['cAddress', 'London, United Kingdom'],
      ['cCoverLetter', 'Dear team, I would like to join.'],
    ];
    // Employer questions, keyed by `_id` in the definition, named by place on the page.
    const employer: Array<[id: string, name: string, value: string | string[]]> = [
      ['q10000', 'section_1000_question_0', 'Two weeks'],
      ['q10001', 'section_1000_question_1', 'No'],
      ['q10002', 'section_1000_question_2', 'Yes'],
      ['q10003', 'section_1000_question_3', '$90,000'],
      ['q10004', 'section_1000_question_4', 'No'],
      ['q10100', 'section_1001_question_0', '2027-01-15'],
      ['q10101', 'section_1001_question_1', ['Morning', 'Evening']],
    ];
    const answers: ResolvedAnswer[] = [
      ...texts.map(([id, value]) => ({ id, value })),
      { id: 'cResume', value: cv },
      { id: 'cSummary', value: 'Engines.\nAnd analysis.' },
      {
        id: 'cSalary',
        value: [
          { id: 'cSalary', value: '90000' },
          { id: 'cSalary:per', value: 'Yearly' },
        ],
      },
      { id: 'cLocation', value: 'FL, US' },
      ...employer.map(([id, , value]) => ({ id, value })),
      { id: 'race_ethnicity', value: 'White (not Hispanic or Latino)' },
      { id: 'gender', value: 'Female' },
      { id: 'eeoc.veteran_status', value: 'I AM NOT A PROTECTED VETERAN' },
      { id: 'ccpaAgreement', value: true },
    ];
    // One multipart post: boxes by name (a textarea's line break as CRLF), choices by their words,
    // the location and EEO answers by their codes, the résumé stored on choose.
    const fields: ExpectedField[] = [
      ...texts.map(([name, value]) => ({ name, value })),
      // Typed after Breezy read the résumé into it: the answer, not Breezy's reading.
      { name: 'cSummary', value: 'Engines.\r\nAnd analysis.' },
      { name: 'cSalary', value: '90000' },
      { name: 'cSalaryPeriod', value: 'Yearly' },
      { name: 'cLocation', value: 'loc1' },
      ...employer.map(([, name, value]) => ({ name, value })),
      { name: 'race_ethnicity', value: 'white' },
      { name: 'gender', value: 'female' },
      { name: 'eeoc.veteran_status', value: 'not_protected' },
      { name: 'ccpaAgreement', value: 'true' },
      { name: 'cResumeUpload', value: 'https://breezy-uploads.s3.amazonaws.com/acme/resume-0001.pdf' },
      { name: 'upload cResume', value: { bytes: cv.bytes } },
      { name: 'hp_7f2b', value: '' },
    ];
    const received = receivedFrom(
      () => double.submissions[0],
      fields,
      (name) => {
        if (name !== 'upload cResume') return null;
        const file = byName(
          double.earlyWrites.find((write) => write.path === '/api/portal/acme/upload'),
          'file',
        );
        return typeof file === 'object' ? { bytes: file.bytes } : undefined;
      },
    );
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobExpired',
        invalidFile: 'FileFailedToUpload',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: () => double.close(),
    };
  },
};

export const recruiteeHostedCase: ApplyCase = {
  ats: 'recruitee',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(recruiteeHostedVendor());
    const questions = await mineQuestions(`https://acme.recruitee.com/o/${recruiteeOfferSlug}`, { recruitee: double.origin });
    const cv = cvFile();
    const entry = (index: number, part: string) => `candidate[open_question_answers_attributes][${index}][${part}]`;
    const choices = (index: number) => `${entry(index, 'multi_content')}[]`;
    const answers: ResolvedAnswer[] = [
      { id: 'candidate.name', value: 'Ada Lovelace' },
      { id: 'candidate.email', value: 'ada@example.com' },
      { id: 'candidate.phone', value: '+44 20 7946 0001' },
      { id: 'candidate.cv', value: cv },
      { id: 'candidate.cover_letter', value: 'Dear team,\nI would like to join.' },
      { id: 'open_question_501', value: true },
      { id: 'open_question_502', value: ['Elixir', 'Ruby'] },
      { id: 'open_question_504', value: 'One month' },
      { id: 'open_question_505', value: '2027-01-15' },
      { id: 'open_question_506', value: 'Hybrid' },
    ];
    // One multipart post to the careers-site API: the candidate's parts, then each open question
    // as an entry of its id and its answer (`flag` for yes/no, `multi_content[]` for several choices
    // by their words, `content` for text, ISO dates and a single choice).
    const fields: ExpectedField[] = [
      { name: 'candidate[name]', value: 'Ada Lovelace' },
      { name: 'candidate[email]', value: 'ada@example.com' },
      { name: 'candidate[phone]', value: '+44 20 7946 0001' },
      { name: 'candidate[cv]', value: { bytes: cv.bytes } },
      { name: 'candidate[cover_letter]', value: 'Dear team,\r\nI would like to join.' },
      ...[501, 502, 504, 505, 506].map((id, index) => ({ name: entry(index, 'open_question_id'), value: String(id) })),
      { name: entry(0, 'flag'), value: 'true' },
      { name: choices(1), value: ['Elixir', 'Ruby'] },
      { name: entry(2, 'content'), value: 'One month' },
      { name: entry(3, 'content'), value: '2027-01-15' },
      { name: entry(4, 'content'), value: 'Hybrid' },
    ];
    return {
      applications: hostedApplications(
        double,
        hostedApplier(pool),
        questions,
        answers,
        fields,
        receivedFrom(() => double.submissions[0], fields),
        {
          closed: 'JobExpired',
          invalidFile: 'FileTypeNotSupported',
          missingField: 'MandatoryQuestionsNotAnswered',
        },
      ),
      close: () => double.close(),
    };
  },
};

export const smartRecruitersHostedCase: ApplyCase = {
  ats: 'smartrecruiters',
  transport: 'hostedForm',
  start: async (pool) => {
    const double = await startHostedAtsDouble(smartRecruitersHostedVendor());
    const questions = await mineQuestions('https://jobs.smartrecruiters.com/acme/744000000000001-example-job', {
      smartRecruitersApi: double.origin,
      smartRecruitersJobs: double.origin,
    });
    const cv = cvFile();
    const answers: ResolvedAnswer[] = [
      { id: 'firstName', value: 'Ada' },
      { id: 'lastName', value: 'Lovelace' },
      { id: 'email', value: 'ada@example.com' },
      { id: 'confirmEmail', value: 'ada@example.com' },
      { id: 'placeOfResidence', value: 'London, England, United Kingdom' },
      { id: 'phoneNumber', value: '+44 20 7946 0001' },
      { id: 'socialProfiles.linkedIn', value: 'https://www.linkedin.com/in/ada' },
      { id: 'socialProfiles.website', value: 'https://ada.example.com' },
      { id: 'resume', value: cv },
      { id: 'messageToHiringManager', value: 'Engines.\nAnd analysis.' },
    ];
    // The apply request's shape: contact fields, the place picked from the search, links under
    // `web`, the résumé by the id the attachment store gave it on choose.
    const fields: ExpectedField[] = [
      { name: 'firstName', value: 'Ada' },
      { name: 'lastName', value: 'Lovelace' },
      { name: 'email', value: 'ada@example.com' },
      { name: 'confirmEmail', value: 'ada@example.com' },
      { name: 'location.city', value: 'London, England, United Kingdom' },
      { name: 'phoneNumber', value: '+44 20 7946 0001' },
      { name: 'web.linkedIn', value: 'https://www.linkedin.com/in/ada' },
      { name: 'web.website', value: 'https://ada.example.com' },
      { name: 'messageToHiringManager', value: 'Engines.\nAnd analysis.' },
      { name: 'resume', value: 'att-0001' },
      { name: 'upload resume', value: { bytes: cv.bytes } },
      // The parsing box above the name would refill the boxes from the file: never used.
      { name: 'parser uploads', value: 0 },
    ];
    const received = () => {
      const values = smartRecruitersReceived(double.submissions[0], double.earlyWrites);
      values.set('parser uploads', double.earlyWrites.filter((write) => write.path === '/oneclick-ui/api/resume-parse').length);
      return values;
    };
    return {
      applications: hostedApplications(double, hostedApplier(pool), questions, answers, fields, received, {
        closed: 'JobExpired',
        invalidFile: 'FileTypeNotSupported',
        missingField: 'MandatoryQuestionsNotAnswered',
        botCheck: 'BotDetection',
      }),
      close: () => double.close(),
    };
  },
};

/** Every case the apply-accuracy bench runs for the hosted form, in the vendors' priority order. */
export const hostedApplyCases: ApplyCase[] = [
  greenhouseHostedCase,
  leverHostedCase,
  ashbyHostedCase,
  workableHostedCase,
  jazzhrHostedCase,
  bamboohrHostedCase,
  breezyHostedCase,
  recruiteeHostedCase,
  smartRecruitersHostedCase,
  manatalHostedCase,
  teamtailorHostedCase,
  workdayHostedCase,
];
