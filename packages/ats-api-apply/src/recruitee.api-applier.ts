import type { FileToUpload, SubmitOutcome } from '@quarry/hosted-form-apply';
import type { ApplicationErrorCode } from '@quarry/contracts';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const docs = 'https://docs.recruitee.com/reference/offersoffer_idcandidates';
const cheddarFields =
  'https://github.com/Ches-ctrl/Cheddar/blob/b08713b333767b5cb7560865013b0ae7bddb119e/app/models/concerns/ats/recruitee/application_fields.rb#L96-L146';
const cheddarSubmit =
  'https://github.com/Ches-ctrl/Cheddar/blob/b08713b333767b5cb7560865013b0ae7bddb119e/app/models/concerns/ats/recruitee/submit_application.rb#L10-L28';
const answer = 'candidate[open_question_answers_attributes][i]';

/** What this transport sends to Recruitee's careers-site API, and what it leaves to the careers page. */
export const recruiteeApiCoverage: TransportCoverage = {
  vendor: 'Recruitee',
  endpoint: 'POST https://{company}.recruitee.com/api/offers/{offer_slug}/candidates (multipart/form-data, no key)',
  fields: [
    { field: 'candidate[name]', carries: 'the full name (required)', source: docs },
    { field: 'candidate[email]', carries: 'the email (required)', source: docs },
    { field: 'candidate[phone]', carries: 'the phone number', source: docs },
    { field: 'candidate[cv]', carries: 'the CV file', source: docs },
    { field: 'candidate[cover_letter]', carries: 'the cover letter, as text', source: cheddarSubmit },
    { field: 'candidate[photo]', carries: 'the photo file (offers with options_photo on)', source: cheddarFields },
    { field: `${answer}[open_question_id]`, carries: 'the id of the open question each entry answers', source: docs },
    {
      field: `${answer}[content]`,
      carries: 'answers of kind string, text, number, salary, date (YYYY-MM-DD) and single_choice (the chosen option’s text)',
      source: docs,
    },
    { field: `${answer}[multi_content][]`, carries: 'answers of kind multi_choice, one part per chosen option’s text', source: docs },
    { field: `${answer}[file]`, carries: 'answers of kind file', source: docs },
    { field: `${answer}[flag]`, carries: 'answers of kind boolean and legal (consent), true or false', source: docs },
  ],
  hostedFormOnly: [
    { what: 'answers to open questions of kind video', why: 'the careers-site API documents no answer field for that kind' },
    { what: 'a cover letter given as a file', why: 'the API takes candidate[cover_letter] as text; no file field is documented for it' },
  ],
};

const Offers = z.object({
  offers: z.array(
    z.object({
      slug: z.string(),
      options_cv: z.string().nullish(),
      options_cover_letter: z.string().nullish(),
      options_phone: z.string().nullish(),
      options_photo: z.string().nullish(),
      open_questions: z
        .array(z.object({ id: z.union([z.number(), z.string()]), kind: z.string(), required: z.boolean().nullish() }))
        .nullish(),
    }),
  ),
});
type Offer = z.infer<typeof Offers>['offers'][number];

/** The documented value field of each open-question kind (DOCS). */
const valueField: Record<string, 'content' | 'multi_content' | 'file' | 'flag'> = {
  string: 'content',
  text: 'content',
  number: 'content',
  salary: 'content',
  date: 'content',
  single_choice: 'content',
  multi_choice: 'multi_content',
  file: 'file',
  boolean: 'flag',
  legal: 'flag',
};

/** The candidate's own fields (the miner's ids `candidate.<name>`) and whether each is a file. */
const candidateFields: Record<string, 'text' | 'file'> = {
  name: 'text',
  email: 'text',
  phone: 'text',
  cover_letter: 'text',
  cv: 'file',
  photo: 'file',
};

const yes = (value: unknown): boolean | null =>
  typeof value === 'boolean' ? value : /^(yes|true)$/i.test(String(value)) ? true : /^(no|false)$/i.test(String(value)) ? false : null;

/** One open question's answer as its entry's parts, or null when its value has no documented field. */
function encodeAnswer(kind: string, value: unknown): Array<[field: string, part: string | FileToUpload]> | null {
  switch (valueField[kind]) {
    case 'content': {
      const single = Array.isArray(value) && value.length === 1 ? value[0] : value;
      if (kind === 'date') return [['[content]', isoDate(single)]];
      return typeof single === 'string' || typeof single === 'number' ? [['[content]', String(single)]] : null;
    }
    case 'multi_content': {
      const choices: unknown[] = Array.isArray(value) ? value : [value];
      return choices.every((choice) => typeof choice === 'string') ? choices.map((choice) => ['[multi_content][]', String(choice)]) : null;
    }
    case 'file':
      return isFile(value) ? [['[file]', value]] : null;
    case 'flag': {
      const flag = yes(value);
      return flag === null ? null : [['[flag]', String(flag)]];
    }
    default:
      return null;
  }
}

/** The candidate fields the offer requires (DOCS: name and email always, the rest by the offer's settings). */
const requiredCandidateFields = (offer: Offer): string[] =>
  (['phone', 'cv', 'cover_letter', 'photo'] as const)
    .filter((name) => offer[`options_${name}`] === 'required')
    .map((name) => `candidate.${name}`);

/**
 * Recruitee's 422 names the refused fields in `error_fields` (CHEDDAR submit_application.rb:57-66):
 * a field left blank, a refused file, an invalid contact detail; its `error` list is the text.
 */
function refusalFrom(answer: VendorAnswer): SubmitOutcome {
  const fields = (answer.json as { error_fields?: unknown } | undefined)?.error_fields;
  const message = vendorMessage((answer.json as { error?: unknown } | undefined)?.error ?? answer.json, answer.text);
  if (answer.status !== 422 || !fields || typeof fields !== 'object') return refusal('Recruitee', answer, message);
  const entries = Object.entries(fields as Record<string, unknown>).flatMap(([field, messages]) =>
    (Array.isArray(messages) ? messages : [messages]).map((text) => [field, String(text)] as const),
  );
  const codeOf = ([field, text]: readonly [string, string]): ApplicationErrorCode | null => {
    if (/can.?t be blank|required|missing/i.test(text)) return 'MandatoryQuestionsNotAnswered';
    if (/^(cv|photo)$|file/.test(field)) return /too (big|large)|size/i.test(text) ? 'FileFailedToUpload' : 'FileTypeNotSupported';
    if (/^(email|phone|name)$/.test(field)) return 'ApplicantDetailsInvalid';
    return null;
  };
  const errorCode = entries.map(codeOf).find((code) => code !== null);
  if (!errorCode) return refusal('Recruitee', answer, message);
  const said = entries.map(([field, text]) => `${field} ${text}`).join('; ');
  return { status: 'failed', errorCode, message: `Recruitee: ${message || said} (${said})`, submitted: false };
}

/**
 * Recruitee's careers-site API, which needs no key: `POST /api/offers/{slug}/candidates`,
 * multipart. The offer list is read first: an offer no longer listed is closed, and each open
 * question's kind chooses the documented field its answer goes in. Answers with no documented
 * field go, with the whole application, to the careers page.
 */
export function recruiteeApiApplier(options: { baseUrl: string; timeoutMs: number }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    if (target?.ats !== 'recruitee') return { status: 'not-carried', reason: 'not a Recruitee posting', answers: [] };
    const base = expandEndpoint(options.baseUrl, { company: target.company });
    const listing = await callVendor(
      `${base}/api/offers/`,
      { method: 'GET', headers: { accept: 'application/json' } },
      options.timeoutMs,
      signal,
    );
    const parsed = listing.status === 200 ? Offers.safeParse(listing.json) : null;
    if (!parsed?.success)
      return failedBeforeSending('ApplicationFailed', `Recruitee answered HTTP ${listing.status} to the offer list; nothing was submitted`);
    const offer = parsed.data.offers.find((candidate) => candidate.slug === target.slug);
    if (!offer) return failedBeforeSending('JobExpired', `Recruitee: offer "${target.slug}" is no longer published`);
    const questions = new Map((offer.open_questions ?? []).map((question) => [`open_question_${question.id}`, question]));

    const { candidate } = application;
    const answers = answeredValues(application);
    const given = new Map(answers.map((entry) => [entry.id, entry.value]));
    const form = new MultipartBody();
    const name = given.get('candidate.name');
    form.append('candidate[name]', typeof name === 'string' ? name : `${candidate.firstName} ${candidate.lastName}`);
    form.append(
      'candidate[email]',
      typeof given.get('candidate.email') === 'string' ? (given.get('candidate.email') as string) : candidate.email,
    );
    const phone = given.get('candidate.phone') ?? candidate.phone;
    if (typeof phone === 'string' && phone !== '') form.append('candidate[phone]', phone);
    const answered = new Set<string>([
      'candidate.name',
      'candidate.email',
      ...(typeof phone === 'string' && phone !== '' ? ['candidate.phone'] : []),
    ]);
    const notCarried: string[] = [];
    let index = 0;
    for (const { id, value } of answers) {
      const own = /^candidate\.(.+)$/.exec(id)?.[1];
      if (own !== undefined) {
        const kind = candidateFields[own];
        if (own === 'name' || own === 'email' || own === 'phone') continue;
        if (kind === 'file' && isFile(value)) form.append(`candidate[${own}]`, value);
        else if (kind === 'text' && (typeof value === 'string' || typeof value === 'number'))
          form.append(`candidate[${own}]`, String(value));
        else notCarried.push(id);
        answered.add(id);
        continue;
      }
      const question = questions.get(id);
      const parts = question ? encodeAnswer(question.kind, value) : null;
      if (!question || !parts) {
        notCarried.push(id);
        continue;
      }
      form.append(`candidate[open_question_answers_attributes][${index}][open_question_id]`, String(question.id));
      for (const [field, part] of parts) form.append(`candidate[open_question_answers_attributes][${index}]${field}`, part);
      answered.add(id);
      index += 1;
    }
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `Recruitee's careers-site API documents no field for the answer to ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    const missing = [
      ...requiredCandidateFields(offer),
      ...[...questions].filter(([, question]) => question.required === true && valueField[question.kind] !== undefined).map(([id]) => id),
    ].filter((id) => !answered.has(id));
    if (missing.length > 0)
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `Recruitee requires ${missing.join(', ')}; nothing was submitted`);

    return submitOnce(
      'Recruitee',
      hooks,
      () =>
        callVendor(
          `${base}/api/offers/${encodeURIComponent(target.slug)}/candidates`,
          { method: 'POST', headers: { accept: 'application/json' }, body: form },
          options.timeoutMs,
          signal,
        ),
      (reply): SubmitOutcome => {
        if (reply.status === 201 || reply.status === 200) {
          const id = (reply.json as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
          return {
            status: 'success',
            confirmation: {
              text: `Submitted through Recruitee's careers-site API (HTTP ${reply.status})`,
              ...(id !== undefined ? { reference: String(id) } : {}),
            },
          };
        }
        return refusalFrom(reply);
      },
    );
  };
}
