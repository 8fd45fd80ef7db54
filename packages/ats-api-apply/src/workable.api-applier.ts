import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const create = 'https://workable.readme.io/reference/job-candidates-create';
const applicationForm = 'https://workable.readme.io/reference/jobsshortcodeapplication_form';
const hrflow =
  'https://github.com/Riminder/hrflow-connectors/blob/d9304cf89167fc6cb939a8fbe3d08c35371945c5/src/hrflow_connectors/v2/connectors/workable/schemas.py';
const wable = 'https://github.com/CVector-Energy/wable/blob/1484a8257199bb69c96032d84d68167a253bdb81/src/types.ts';

/** What this transport sends to Workable's SPI, and what it leaves to the hosted form. */
export const workableApiCoverage: TransportCoverage = {
  vendor: 'Workable',
  endpoint: 'POST https://{subdomain}.workable.com/spi/v3/jobs/{shortcode}/candidates (JSON, Bearer token with w_candidates)',
  fields: [
    { field: 'sourced', carries: 'false: the candidate applied (Workable sends its thank-you email)', source: create },
    { field: 'candidate.firstname', carries: 'the first name', source: create },
    { field: 'candidate.lastname', carries: 'the last name', source: create },
    { field: 'candidate.email', carries: 'the email', source: create },
    { field: 'candidate.phone', carries: 'the phone number', source: hrflow },
    { field: 'candidate.headline', carries: 'the headline', source: hrflow },
    { field: 'candidate.summary', carries: 'the profile summary', source: hrflow },
    { field: 'candidate.address', carries: 'the address', source: hrflow },
    { field: 'candidate.cover_letter', carries: 'the cover letter, as text', source: hrflow },
    {
      field: 'candidate.education_entries',
      carries: 'the education group: school, degree, field_of_study, start_date, end_date (YYYY-MM-DD)',
      source: hrflow,
    },
    {
      field: 'candidate.experience_entries',
      carries: 'the experience group: title, company, industry, summary, start_date, end_date, current',
      source: hrflow,
    },
    { field: 'candidate.resume', carries: 'the résumé file as {name, data} (base64)', source: create },
    {
      field: 'candidate.answers[].question_key',
      carries: 'the id of the job question each answer answers (GET /jobs/:shortcode/application_form questions[].id)',
      source: applicationForm,
    },
    { field: 'candidate.answers[].body', carries: 'answers to free_text questions', source: wable },
    { field: 'candidate.answers[].checked', carries: 'answers to boolean questions', source: wable },
    {
      field: 'candidate.answers[].choices',
      carries: 'answers to multiple_choice and dropdown questions, as the chosen choices’ ids',
      source: wable,
    },
    { field: 'candidate.answers[].value', carries: 'answers to numeric questions, as a number', source: wable },
    { field: 'candidate.answers[].date', carries: 'answers to date questions, YYYY-MM-DD', source: wable },
    { field: 'candidate.answers[].file', carries: 'answers to file questions, as {name, data} (base64)', source: wable },
  ],
  hostedFormOnly: [
    { what: 'the photo (form field avatar)', why: 'no documented candidate attribute of the create call takes the photo file' },
    {
      what: 'answers to form questions the job’s SPI application form does not list (by id or words)',
      why: 'an answer needs the question_key the SPI names it by',
    },
  ],
};

type FormField = { key: string; type: string; required?: boolean | undefined; fields?: FormField[] | undefined };
const FormField: z.ZodType<FormField> = z.lazy(() =>
  z.object({ key: z.string(), type: z.string(), required: z.boolean().optional(), fields: z.array(FormField).optional() }),
);
const ApplicationForm = z.object({
  form_fields: z.array(FormField).default([]),
  questions: z
    .array(
      z.object({
        id: z.union([z.string(), z.number()]).transform(String),
        body: z.string(),
        type: z.string(),
        required: z.boolean().optional(),
        single_answer: z.boolean().optional(),
        choices: z.array(z.object({ id: z.union([z.string(), z.number()]).transform(String), body: z.string() })).optional(),
      }),
    )
    .default([]),
});
type SpiQuestion = z.infer<typeof ApplicationForm>['questions'][number];

/** The profile's text attributes, by form field key (FORM: "This key matches with the candidate attribute as well"). */
const textAttributes = new Set(['firstname', 'lastname', 'email', 'phone', 'headline', 'summary', 'address', 'cover_letter']);
/** A complex form field and the candidate attribute its entries go in (HRFLOW). */
const entriesAttribute: Record<string, string> = { education: 'education_entries', experience: 'experience_entries' };

const booleanOf = (value: unknown): boolean | null =>
  typeof value === 'boolean' ? value : /^(yes|true)$/i.test(String(value)) ? true : /^(no|false)$/i.test(String(value)) ? false : null;
const sameWords = (a: string, b: string) => a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

/** The SPI question a mined question is: the same id, else the same words (the public form and the SPI are two views of one form). */
const spiQuestionFor = (questions: SpiQuestion[], id: string, mined: Question | undefined): SpiQuestion | undefined =>
  questions.find((question) => question.id === id) ??
  (mined ? questions.find((question) => sameWords(question.body, mined.question)) : undefined);

/** One answer in the encoding of its question's type (WABLE), or a reason it cannot be. */
function encodeAnswer(question: SpiQuestion, value: unknown): Record<string, unknown> | string {
  const key = { question_key: question.id };
  switch (question.type) {
    case 'free_text':
      return typeof value === 'string' || typeof value === 'number' ? { ...key, body: String(value) } : 'not text';
    case 'boolean': {
      const checked = booleanOf(value);
      return checked === null ? `"${String(value)}" is not yes or no` : { ...key, checked };
    }
    case 'numeric': {
      const number = typeof value === 'number' ? value : Number(String(value).trim());
      return String(value).trim() !== '' && Number.isFinite(number) ? { ...key, value: number } : `"${String(value)}" is not a number`;
    }
    case 'date':
      return { ...key, date: isoDate(value) };
    case 'multiple_choice':
    case 'dropdown': {
      const labels: unknown[] = Array.isArray(value) ? value : [value];
      const ids = labels.map((label) => (question.choices ?? []).find((choice) => sameWords(choice.body, String(label)))?.id);
      const unknown = labels.filter((_, index) => ids[index] === undefined);
      return unknown.length > 0 ? `${unknown.map((label) => `"${String(label)}"`).join(', ')} is not an option` : { ...key, choices: ids };
    }
    case 'file':
      return isFile(value) ? { ...key, file: { name: value.filename, data: value.bytes.toString('base64') } } : 'not a file';
    default:
      return `Workable documents no answer of type ${question.type}`;
  }
}

/** A group answer (education, experience) as the entries the candidate attribute takes: dates YYYY-MM-DD. */
const entriesOf = (groupId: string, field: FormField, value: unknown): Array<Record<string, unknown>> =>
  (Array.isArray(value) ? value : []).map((entry) =>
    Object.fromEntries(
      (Array.isArray(entry) ? (entry as Array<{ id: string; value: unknown }>) : []).map((part) => {
        const key = part.id.slice(groupId.length + 1);
        const sub = field.fields?.find((candidateField) => candidateField.key === key);
        return [key, sub?.type === 'date' ? isoDate(part.value) : sub?.type === 'boolean' ? booleanOf(part.value) : part.value];
      }),
    ),
  );

/**
 * Workable's SPI on the account's subdomain (the board its token was registered for), Bearer token
 * with `w_candidates`: the job's application form (`GET /spi/v3/jobs/{shortcode}/application_form`)
 * is read first (it proves the job open and the token good, names each question's id, type and
 * choices, and says what is required), then `POST /spi/v3/jobs/{shortcode}/candidates` with
 * `{sourced: false, candidate}`. An answer with no documented attribute, or to a question the SPI
 * does not list, sends the whole application to the hosted form instead.
 */
export function workableApiApplier(options: {
  formBaseUrl: string;
  apiBaseUrl: string;
  timeoutMs: number;
  rateLimit: VendorRateLimit;
}): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'workable' || !credential)
      return { status: 'not-carried', reason: 'not a Workable posting with a registered key', answers: [] };
    const jobBase = `${expandEndpoint(options.apiBaseUrl, { company: credential.board })}/spi/v3/jobs/${encodeURIComponent(target.shortcode)}`;
    const headers = { authorization: `Bearer ${credential.key}`, accept: 'application/json' };

    const definition = await callVendor(`${jobBase}/application_form`, { method: 'GET', headers }, options.timeoutMs, signal);
    if (definition.status === 404 || definition.status === 410)
      return failedBeforeSending('JobExpired', `Workable: job ${target.shortcode} is no longer open`);
    if (definition.status >= 400 && definition.status < 500)
      return refusal('Workable', definition, vendorMessage(definition.json, definition.text));
    const parsed = definition.status === 200 ? ApplicationForm.safeParse(definition.json) : null;
    if (!parsed?.success)
      return failedBeforeSending(
        'ApplicationFailed',
        `Workable answered HTTP ${definition.status} to the job's application form; nothing was submitted`,
      );
    const { form_fields: formFields, questions } = parsed.data;

    const { candidate } = application;
    const profile: Record<string, unknown> = {
      firstname: candidate.firstName,
      lastname: candidate.lastName,
      email: candidate.email,
      ...(candidate.phone ? { phone: candidate.phone } : {}),
    };
    const answers: Array<Record<string, unknown>> = [];
    const problems: string[] = [];
    const notCarried: string[] = [];
    const given = new Set<string>(Object.keys(profile));
    for (const { id, value, question: mined } of answeredValues(application)) {
      const field = formFields.find((candidateField) => candidateField.key === id);
      const spiQuestion = field ? undefined : spiQuestionFor(questions, id, mined);
      if (field && textAttributes.has(field.key) && (typeof value === 'string' || typeof value === 'number'))
        profile[field.key] = String(value);
      else if (field?.key === 'resume' && isFile(value)) profile.resume = { name: value.filename, data: value.bytes.toString('base64') };
      else if (field && entriesAttribute[field.key] && Array.isArray(value))
        profile[entriesAttribute[field.key] ?? field.key] = entriesOf(field.key, field, value);
      else if (spiQuestion) {
        const encoded = encodeAnswer(spiQuestion, value);
        if (typeof encoded === 'string') problems.push(`${id}: ${encoded}`);
        else answers.push(encoded);
        given.add(spiQuestion.id);
        continue;
      } else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `Workable's candidate API documents no attribute for the answer to ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `Workable: ${problems.join('; ')}; nothing was submitted`);
    const missing = [
      ...formFields.filter((field) => field.required === true).map((field) => field.key),
      ...questions.filter((question) => question.required === true).map((question) => question.id),
    ].filter((key) => !given.has(key));
    if (missing.length > 0)
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `Workable requires ${missing.join(', ')}; nothing was submitted`);
    if (answers.length > 0) profile.answers = answers;

    return options.rateLimit(
      `workable:${credential.board}`,
      () =>
        submitOnce(
          'Workable',
          hooks,
          () =>
            callVendor(
              `${jobBase}/candidates`,
              { method: 'POST', headers, json: { sourced: false, candidate: profile } },
              options.timeoutMs,
              signal,
            ),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              const id = (answer.json as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
              return {
                status: 'success',
                confirmation: {
                  text: "Submitted through Workable's candidate API",
                  ...(id !== undefined ? { reference: String(id) } : {}),
                },
              };
            }
            return refusal('Workable', answer, vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
