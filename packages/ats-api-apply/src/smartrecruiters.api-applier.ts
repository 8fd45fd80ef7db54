import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const postDoc = 'https://developers.smartrecruiters.com/docs/post-an-application';
const configDoc = 'https://developers.smartrecruiters.com/docs/partners-get-application-screening-questions-and-privacy-policies';
const sdk = 'https://rubydoc.info/gems/open_api_smart_recruiters_sdk/SmartRecruiters/ApplyApiRequest';

/** What the transport fills of the Application API's request, and what the hosted form takes instead. */
export const smartRecruitersApiCoverage: TransportCoverage = {
  vendor: 'smartrecruiters',
  endpoint:
    'POST https://api.smartrecruiters.com/postings/{uuid}/candidates (JSON, X-SmartToken), after GET /postings/{uuid}/configuration',
  fields: [
    { field: 'firstName', carries: 'first name', source: postDoc },
    { field: 'lastName', carries: 'last name', source: postDoc },
    { field: 'email', carries: 'email', source: postDoc },
    { field: 'phoneNumber', carries: 'phone number', source: sdk },
    { field: 'location.city', carries: 'place of residence (city)', source: sdk },
    { field: 'web.linkedIn', carries: 'LinkedIn profile', source: sdk },
    { field: 'web.website', carries: 'website', source: sdk },
    { field: 'web.facebook', carries: 'Facebook profile', source: sdk },
    { field: 'web.twitter', carries: 'X (Twitter) profile', source: sdk },
    {
      field: 'education',
      carries: 'education entries: institution, degree, major, current, startDate, endDate, location, description',
      source: sdk,
    },
    { field: 'experience', carries: 'experience entries: title, company, current, startDate, endDate, location, description', source: sdk },
    { field: 'resume', carries: 'résumé as {fileName, mimeType, fileContent (base64)}', source: postDoc },
    { field: 'messageToHiringManager', carries: 'message to the hiring manager', source: sdk },
    {
      field: 'answers',
      carries:
        'screening and diversity answers: [{id, records: [{fields: {fieldId: [text or value ids]}}]}], every field type of the configuration',
      source: configDoc,
    },
    { field: 'consentDecisions', carries: "the candidate's consent decisions ({SINGLE} or the separated scopes)", source: postDoc },
  ],
  hostedFormOnly: [],
};

const Configuration = z.object({
  questions: z.array(
    z.object({
      id: z.string(),
      label: z.string().optional(),
      repeatable: z.boolean().optional(),
      fields: z.array(
        z.object({
          id: z.string(),
          label: z.string().optional(),
          type: z.string(),
          required: z.boolean().optional(),
          values: z.array(z.object({ id: z.string(), label: z.string() })).optional(),
        }),
      ),
    }),
  ),
});
type ScreeningQuestion = z.infer<typeof Configuration>['questions'][number];
type ScreeningField = ScreeningQuestion['fields'][number];
const Posting = z.object({ uuid: z.string(), active: z.boolean().optional() });

/** The one-click page's fields (the miner's ids) that are the request's own attributes. */
const plain: Record<string, string> = {
  firstName: 'firstName',
  lastName: 'lastName',
  email: 'email',
  phoneNumber: 'phoneNumber',
  messageToHiringManager: 'messageToHiringManager',
};
/** SDK web.rb's keys (`linkedIn` with a capital I). */
const webProfiles: Record<string, string> = {
  'socialProfiles.linkedIn': 'linkedIn',
  'socialProfiles.website': 'website',
  'socialProfiles.facebook': 'facebook',
  'socialProfiles.x': 'twitter',
};
/** SDK education.rb and experience.rb: the attributes of an entry; dates go as YYYY-MM-DD (the docs give no format). */
const entryKeys = {
  education: ['institution', 'degree', 'major', 'current', 'startDate', 'endDate', 'location', 'description'],
  experience: ['title', 'company', 'current', 'startDate', 'endDate', 'location', 'description'],
} as const;
const consentScopes = new Set(['SINGLE', 'SMART_RECRUIT', 'SMART_CRM', 'SMART_MESSAGE_SMS', 'SMART_MESSAGE_WHATSAPP']);

type Part = { id: string; value: unknown };
const partsOf = (entry: unknown): Part[] =>
  Array.isArray(entry) ? (entry as Part[]).filter((part) => part && typeof part.id === 'string') : [];

/** One entry of education or experience, or null when a part is not an attribute SDK documents. */
function entryOf(kind: keyof typeof entryKeys, entry: unknown): Record<string, unknown> | null {
  const record: Record<string, unknown> = {};
  for (const part of partsOf(entry)) {
    const key = part.id.slice(kind.length + 1);
    if (!part.id.startsWith(`${kind}.`) || !(entryKeys[kind] as readonly string[]).includes(key)) return null;
    record[key] = key.endsWith('Date')
      ? isoDate(part.value)
      : key === 'current'
        ? part.value === true || part.value === 'true'
        : part.value;
  }
  return record;
}

/**
 * One field's answer as the API takes it (CONFIG-DOC and POST-DOC: an array of strings; a select's
 * are its value ids, matched from the option's label or id), or null when it is not one of the field's.
 */
function fieldValues(field: ScreeningField, value: unknown): string[] | null {
  const options = field.values ?? [];
  const option = (given: unknown) =>
    options.find(
      (candidateOption) =>
        candidateOption.id === String(given) || candidateOption.label.trim().toLowerCase() === String(given).trim().toLowerCase(),
    )?.id;
  switch (field.type) {
    case 'INPUT_TEXT':
    case 'TEXTAREA':
      return typeof value === 'string' || typeof value === 'number' ? [String(value)] : null;
    case 'SINGLE_SELECT':
    case 'RADIO': {
      // A yes/no question answered as a Boolean picks the option of that name.
      const chosen = option(typeof value === 'boolean' ? (value ? 'Yes' : 'No') : value);
      return chosen ? [chosen] : null;
    }
    case 'MULTI_SELECT':
    case 'CHECKBOX': {
      const chosen = (Array.isArray(value) ? value : [value]).map(option);
      return chosen.every((id): id is string => id !== undefined) ? chosen : null;
    }
    default:
      return null;
  }
}

/**
 * A screening answer by the ids the application uses: `screening.<questionId>` answers a question of
 * one field with its value, or a question of several fields (or a repeatable one) with entries whose
 * parts are `screening.<questionId>.<fieldId>`. Null when the answer does not fit the question.
 */
function screeningAnswer(
  question: ScreeningQuestion,
  value: unknown,
): { id: string; records: Array<{ fields: Record<string, string[]> }> } | null {
  const answerable = question.fields.filter((field) => field.type !== 'INFORMATION');
  const [only] = answerable;
  if (answerable.length === 1 && only && !question.repeatable) {
    const values = fieldValues(only, value);
    return values ? { id: question.id, records: [{ fields: { [only.id]: values } }] } : null;
  }
  if (!Array.isArray(value) || value.length === 0) return null;
  const records: Array<{ fields: Record<string, string[]> }> = [];
  for (const entry of value) {
    const fields: Record<string, string[]> = {};
    for (const part of partsOf(entry)) {
      const field = answerable.find((candidateField) => part.id === `screening.${question.id}.${candidateField.id}`);
      const values = field ? fieldValues(field, part.value) : null;
      if (!field || !values) return null;
      fields[field.id] = values;
    }
    records.push({ fields });
  }
  return { id: question.id, records };
}

/**
 * SmartRecruiters' refusals: SDK's ApplyApiError codes first (a list under `errors`, or one error),
 * then POST-DOC's messages.
 */
function smartRecruitersRefusal(answer: VendorAnswer): SubmitOutcome {
  const body = answer.json as { errors?: Array<{ code?: unknown; message?: unknown }>; code?: unknown; message?: unknown } | undefined;
  const errors = Array.isArray(body?.errors) ? body.errors : body?.code !== undefined ? [body] : [];
  const codes = new Set(errors.map((error) => String(error.code)));
  const message = vendorMessage(
    errors.length > 0 ? errors.map((error) => `${String(error.code)}: ${String(error.message ?? '')}`) : answer.json,
    answer.text,
  );
  const failed = (errorCode: Extract<SubmitOutcome, { status: 'failed' }>['errorCode']): SubmitOutcome => ({
    status: 'failed',
    errorCode,
    message: `SmartRecruiters: ${message}`,
    submitted: false,
  });
  if (codes.has('INVALID_API_KEY_ERROR') || codes.has('UNAUTHORIZED'))
    return refusal('SmartRecruiters', { ...answer, status: answer.status === 403 ? 403 : 401 }, message);
  if (codes.has('RESOURCE_NOT_FOUND_ERROR') || codes.has('COMPANY_NOT_FOUND_ERROR'))
    return failed(/not active|inactive|closed|expired/i.test(message) ? 'JobExpired' : 'JobNotFound');
  if (codes.has('FILE_UPLOAD_ERROR') || codes.has('FILE_API_ERROR'))
    return failed(/type|format|not supported/i.test(message) ? 'FileTypeNotSupported' : 'FileFailedToUpload');
  if (/screening questions are required|required/i.test(message)) return failed('MandatoryQuestionsNotAnswered');
  if (
    /answers are incorrect|email|phone|name|education|may not be empty|well-formed/i.test(message) &&
    (codes.has('DATA_VALIDATION_ERROR') || codes.has('INVALID_INPUT') || codes.has('INVALID_REQUEST'))
  )
    return failed('ApplicantDetailsInvalid');
  if (answer.status === 404) return failed('JobNotFound');
  return refusal('SmartRecruiters', answer, message);
}

/**
 * SmartRecruiters' Application API, on behalf of the candidate (POST-DOC): the public posting gives
 * the uuid (and `active`), the configuration the screening questions; then one
 * `POST /postings/{uuid}/candidates` with every answer under the attribute SDK documents. An answer
 * the request has no attribute for is not carried (the hosted form takes the application).
 */
export function smartRecruitersApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'smartrecruiters' || !credential)
      return { status: 'not-carried', reason: 'not a SmartRecruiters posting with a registered key', answers: [] };
    const base = expandEndpoint(options.apiBaseUrl, {});
    const headers = { accept: 'application/json', 'x-smarttoken': credential.key };

    const postingAnswer = await callVendor(
      `${base}/v1/companies/${encodeURIComponent(target.company)}/postings/${encodeURIComponent(target.postingId)}`,
      { method: 'GET', headers: { accept: 'application/json' } },
      options.timeoutMs,
      signal,
    );
    if (postingAnswer.status === 404 || postingAnswer.status === 410)
      return failedBeforeSending('JobExpired', `SmartRecruiters: posting ${target.postingId} is no longer published`);
    const posting = postingAnswer.status === 200 ? Posting.safeParse(postingAnswer.json) : null;
    if (!posting?.success)
      return failedBeforeSending(
        'ApplicationFailed',
        `SmartRecruiters answered HTTP ${postingAnswer.status} to the posting; nothing was submitted`,
      );
    if (posting.data.active === false)
      return failedBeforeSending('JobExpired', `SmartRecruiters: posting ${target.postingId} is no longer active`);
    const uuid = encodeURIComponent(posting.data.uuid);

    const configurationAnswer = await callVendor(
      `${base}/postings/${uuid}/configuration`,
      { method: 'GET', headers },
      options.timeoutMs,
      signal,
    );
    if (configurationAnswer.status !== 200) return smartRecruitersRefusal(configurationAnswer);
    const configuration = Configuration.safeParse(configurationAnswer.json);
    if (!configuration.success)
      return failedBeforeSending(
        'ApplicationFailed',
        "SmartRecruiters' application configuration has an unknown shape; nothing was submitted",
      );
    const screening = new Map(configuration.data.questions.map((question) => [`screening.${question.id}`, question]));

    const { candidate } = application;
    const body: Record<string, unknown> = {
      firstName: candidate.firstName,
      lastName: candidate.lastName,
      email: candidate.email,
      ...(candidate.phone ? { phoneNumber: candidate.phone } : {}),
    };
    const web: Record<string, string> = {};
    const answers: unknown[] = [];
    const consent: Record<string, boolean> = {};
    const notCarried: string[] = [];
    const misfit: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const question = screening.get(id);
      if (plain[id] && typeof value === 'string') body[plain[id]] = value;
      else if (id === 'confirmEmail')
        continue; // the page's second copy of the email
      else if (id === 'placeOfResidence' && typeof value === 'string') body.location = { city: value };
      else if (webProfiles[id] && typeof value === 'string') web[webProfiles[id]] = value;
      else if (id === 'resume' && isFile(value))
        body.resume = { fileName: value.filename, mimeType: value.contentType, fileContent: value.bytes.toString('base64') };
      else if ((id === 'education' || id === 'experience') && Array.isArray(value)) {
        const entries = value.map((entry) => entryOf(id, entry));
        if (entries.some((entry) => entry === null)) notCarried.push(id);
        else body[id] = entries;
      } else if (id.startsWith('consent.') && consentScopes.has(id.slice('consent.'.length)) && typeof value === 'boolean')
        consent[id.slice('consent.'.length)] = value;
      else if (question) {
        const answer = screeningAnswer(question, value);
        if (answer) answers.push(answer);
        else misfit.push(id);
      } else notCarried.push(id);
    }
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `SmartRecruiters' Application API request has no field for ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    if (misfit.length > 0)
      return failedBeforeSending(
        'ApplicantDetailsInvalid',
        `SmartRecruiters: the answers to ${misfit.join(', ')} are not values the screening question takes; nothing was submitted`,
      );
    const unanswered = configuration.data.questions.filter(
      (question) =>
        question.fields.some((field) => field.required === true) &&
        !answers.some((answer) => (answer as { id: string }).id === question.id),
    );
    if (unanswered.length > 0) {
      return failedBeforeSending(
        'MandatoryQuestionsNotAnswered',
        `SmartRecruiters requires screening answers the application does not give: ${unanswered.map((question) => `screening.${question.id} ("${question.label ?? ''}")`).join(', ')}`,
      );
    }
    if (Object.keys(web).length > 0) body.web = web;
    if (answers.length > 0) body.answers = answers;
    if (Object.keys(consent).length > 0) body.consentDecisions = consent;

    return options.rateLimit(
      `smartrecruiters:${credential.board}`,
      () =>
        submitOnce(
          'SmartRecruiters',
          hooks,
          () => callVendor(`${base}/postings/${uuid}/candidates`, { method: 'POST', headers, json: body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              const id = (answer.json as { id?: unknown } | undefined)?.id;
              return {
                status: 'success',
                confirmation: {
                  text: "Submitted through SmartRecruiters' Application API",
                  ...(id !== undefined ? { reference: String(id) } : {}),
                },
              };
            }
            return smartRecruitersRefusal(answer);
          },
        ),
      signal,
    );
  };
}
