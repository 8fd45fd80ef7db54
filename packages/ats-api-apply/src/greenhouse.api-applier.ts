import type { ApplicationToSubmit, SubmitOutcome } from '@quarry/hosted-form-apply';
import type { ApplicationErrorCode } from '@quarry/contracts';
import { detectAts } from '@quarry/miner';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';
import { GhJob, postFields, type GhField } from './greenhouse-job.ts';

const applications = 'https://developers.greenhouse.io/job-board.html#submit-an-application';
const attachments = 'https://developers.greenhouse.io/job-board.html#submitting-attachments';
const retrieveJob = 'https://developers.greenhouse.io/job-board.html#retrieve-a-job';

/**
 * What Greenhouse's Job Board API carries of an application, and what only its hosted form does.
 * The body is JSON (documented beside multipart): `demographic_answers` is a list of objects with
 * their own lists, which multipart's `name[][key]` parts cannot delimit between entries.
 */
export const greenhouseApiCoverage: TransportCoverage = {
  vendor: 'Greenhouse',
  endpoint:
    'POST https://boards-api.greenhouse.io/v1/boards/{board_token}/jobs/{id} (Basic auth: the board key as user, no password; application/json)',
  fields: [
    { field: 'first_name', carries: "the candidate's first name", source: applications },
    { field: 'last_name', carries: "the candidate's last name", source: applications },
    { field: 'email', carries: "the candidate's email", source: applications },
    { field: 'phone', carries: "the candidate's phone", source: applications },
    { field: 'resume_content', carries: 'the résumé file, base64 (with resume_content_filename)', source: attachments },
    { field: 'resume_content_filename', carries: "the résumé's file name", source: attachments },
    { field: 'resume_text', carries: 'the résumé as text', source: attachments },
    { field: 'cover_letter_content', carries: 'the cover letter file, base64 (with cover_letter_content_filename)', source: attachments },
    { field: 'cover_letter_content_filename', carries: "the cover letter's file name", source: attachments },
    { field: 'cover_letter_text', carries: 'the cover letter as text', source: attachments },
    {
      field: 'question_{id}',
      carries:
        "a custom question: text as given, a single select as its option's value, a multi-select as the list of values (yes/no selects are 1/0 options)",
      source: applications,
    },
    {
      field: 'question_{id}_content',
      carries: 'a custom file question, base64 (with question_{id}_content_filename)',
      source: attachments,
    },
    { field: 'question_{id}_content_filename', carries: "a custom file question's file name", source: attachments },
    {
      field: 'location',
      carries: "the candidate's location, sent only with latitude and longitude (Greenhouse ignores it otherwise)",
      source: applications,
    },
    { field: 'latitude', carries: "the location's latitude, as the client gave it", source: applications },
    { field: 'longitude', carries: "the location's longitude, as the client gave it", source: applications },
    { field: 'gender', carries: "EEOC gender, the compliance question's option value", source: applications },
    { field: 'race', carries: "EEOC race, the compliance question's option value", source: applications },
    { field: 'veteran_status', carries: "EEOC veteran status, the compliance question's option value", source: applications },
    { field: 'disability_status', carries: "EEOC disability status, the compliance question's option value", source: applications },
    {
      field: 'demographic_answers',
      carries: 'demographic questions: [{question_id, answer_options: [{answer_option_id, text (free-form options)}]}]',
      source: applications,
    },
    {
      field: 'data_compliance',
      carries:
        'GDPR consents: {gdpr_consent_given | gdpr_processing_consent_given, gdpr_retention_consent_given, gdpr_demographic_data_consent_given}',
      source: applications,
    },
  ],
  hostedFormOnly: [
    {
      what: 'a location without latitude and longitude',
      why: 'the API ignores a location sent without both, and nothing documented geocodes offline; the hosted form places it with its own place search',
    },
    {
      what: 'education',
      why: "the API takes only school, degree and discipline ids from its education lists, with both dates; the candidate's words are not those ids",
    },
    {
      what: 'employment',
      why: 'no job definition field says a post asks it, so it is never mined; the hosted form shows it when the post does',
    },
    { what: 'any answer to a field the job definition does not list', why: 'the API documents no field for it' },
  ],
};

type Body = Record<string, unknown>;
type Problems = { notCarried: string[]; invalid: string[] };

/** An option's value from the label the candidate chose (a Boolean picks Yes/No), with the type the job gives it. */
function optionValue(field: GhField, answer: unknown): string | number | null {
  const label = typeof answer === 'boolean' ? (answer ? 'Yes' : 'No') : String(answer);
  const option = (field.values ?? []).find((candidate) => candidate.label.trim().toLowerCase() === label.trim().toLowerCase());
  return option && (typeof option.value === 'string' || typeof option.value === 'number') ? option.value : null;
}

/** One answer under its job-definition field: the field's type says the encoding. */
function putField(body: Body, field: GhField, id: string, value: unknown, problems: Problems): void {
  const name = field.name.replace(/\[\]$/, '');
  if (field.type === 'input_file') {
    if (!isFile(value)) return void problems.invalid.push(`${id}: a file is expected`);
    body[`${name}_content`] = value.bytes.toString('base64');
    body[`${name}_content_filename`] = value.filename;
  } else if (field.type === 'multi_value_single_select' || field.type === 'multi_value_multi_select') {
    const chosen = field.type === 'multi_value_multi_select' && Array.isArray(value) ? value : [value];
    const values = chosen.map((choice) => optionValue(field, choice));
    const unknown = chosen.filter((_, index) => values[index] === null);
    if (unknown.length > 0)
      return void problems.invalid.push(`${id}: ${unknown.map((choice) => `"${String(choice)}"`).join(', ')} not among the options`);
    body[name] = field.type === 'multi_value_multi_select' ? values : values[0];
  } else if (typeof value === 'string') body[name] = value;
  else problems.invalid.push(`${id}: text is expected`);
}

/**
 * Demographic answers (`demographic_<question>`, a free-form option's text as
 * `demographic_<question>_<option>_text`) as the documented `demographic_answers` objects.
 */
function demographicAnswers(job: GhJob, answers: Array<{ id: string; value: unknown }>, problems: Problems): Body[] {
  const entries: Body[] = [];
  const asked = new Set((job.demographic_questions?.questions ?? []).map((question) => String(question.id)));
  for (const answer of answers) {
    const question = demographicId.exec(answer.id)?.[1];
    if (question !== undefined && !asked.has(question)) problems.notCarried.push(answer.id);
  }
  for (const question of job.demographic_questions?.questions ?? []) {
    const chosen = answers.find((answer) => answer.id === `demographic_${question.id}`);
    if (!chosen) continue;
    const labels = Array.isArray(chosen.value) ? chosen.value : [chosen.value];
    const options = labels.map((label) => {
      const option = question.answer_options.find((candidate) => candidate.label.trim() === String(label).trim());
      if (!option) return null;
      const text = answers.find((answer) => answer.id === `demographic_${question.id}_${option.id}_text`)?.value;
      return { answer_option_id: option.id, ...(option.free_form === true && typeof text === 'string' ? { text } : {}) };
    });
    if (options.some((option) => option === null)) problems.invalid.push(`demographic_${question.id}: not among the options`);
    else entries.push({ question_id: question.id, answer_options: options });
  }
  return entries;
}

const demographicId = /^demographic_(\d+)(?:_(\d+)_text)?$/;
const consentId = /^data_compliance\[(gdpr_(?:processing_|retention_|demographic_data_)?consent_given)\]$/;
const candidateFields = new Set(['first_name', 'last_name', 'email', 'phone']);
const placeFields = new Set(['location', 'latitude', 'longitude']);

/**
 * The JSON body for one application, or what keeps it from the API: answers with no documented
 * field (for the hosted form), answers that do not fit their field, required questions left empty.
 */
function greenhouseBody(
  job: GhJob,
  application: ApplicationToSubmit,
): { body: Body; notCarried: string[]; invalid: string[]; missing: string[] } {
  const { candidate } = application;
  const body: Body = {
    first_name: candidate.firstName,
    last_name: candidate.lastName,
    email: candidate.email,
    ...(candidate.phone ? { phone: candidate.phone } : {}),
  };
  const problems: Problems = { notCarried: [], invalid: [] };
  const fields = postFields(job);
  const given = answeredValues(application).flatMap(({ id, value, question }) =>
    // A file-or-text question (`resume_or_text`) is answered by its parts, named as the fields.
    question?.inputType === 'FragmentedQuestion' && Array.isArray(value)
      ? (value as Array<{ id: string; value: unknown }>).map((part) => ({ id: part.id, value: part.value }))
      : [{ id, value }],
  );
  const consents: Body = {};
  const place: Body = {};
  for (const { id, value } of given) {
    if (candidateFields.has(id) && body[id] !== undefined) continue;
    const consent = consentId.exec(id);
    if (demographicId.test(id)) continue;
    if (consent?.[1]) consents[consent[1]] = value === true;
    else {
      const field = fields.get(id);
      if (field) putField(placeFields.has(id) ? place : body, field.field, id, value, problems);
      else problems.notCarried.push(id);
    }
  }
  const demographic = demographicAnswers(job, given, problems);
  if (demographic.length > 0) body['demographic_answers'] = demographic;
  if (Object.keys(consents).length > 0) {
    if ((job.data_compliance ?? []).length > 0) body['data_compliance'] = consents;
    else problems.notCarried.push(...Object.keys(consents).map((key) => `data_compliance[${key}]`));
  }
  // Greenhouse ignores a location without both coordinates, and coordinates without a location are no answer.
  const located = Object.keys(place);
  if (located.length === placeFields.size) Object.assign(body, place);
  else problems.notCarried.push(...located);
  return { body, notCarried: problems.notCarried, invalid: problems.invalid, missing: missingRequired(job, body) };
}

/** Required questions left empty, which Greenhouse accepts (its docs: "Validation for required fields must be done on the client side"). */
function missingRequired(job: GhJob, body: Body): string[] {
  const sent = (name: string) => body[name] !== undefined || body[`${name}_content`] !== undefined || body[`${name}_text`] !== undefined;
  const questions = [
    ...(job.questions ?? []),
    ...(job.location_questions ?? []),
    ...(job.compliance ?? []).flatMap((block) => block.questions ?? []),
  ];
  const missing = questions
    .filter((question) => question.required === true)
    .map((question) => ({
      label: question.label,
      names: question.fields.filter((field) => field.type !== 'input_hidden').map((field) => field.name.replace(/\[\]$/, '')),
    }))
    .filter((question) => question.names.length > 0 && !question.names.some(sent))
    .map((question) => `${question.names[0] ?? ''} ("${question.label}")`);
  const answered = new Set(((body['demographic_answers'] ?? []) as Array<{ question_id: number }>).map((entry) => entry.question_id));
  for (const question of job.demographic_questions?.questions ?? [])
    if (question.required === true && !answered.has(question.id)) missing.push(`demographic_${question.id} ("${question.label}")`);
  const consents = (body['data_compliance'] ?? {}) as Body;
  for (const block of job.data_compliance ?? []) {
    const single = block.requires_processing_consent === true || block.requires_retention_consent === true;
    const required = single
      ? [
          block.requires_processing_consent === true && 'gdpr_processing_consent_given',
          block.requires_retention_consent === true && 'gdpr_retention_consent_given',
        ]
      : [block.requires_consent === true && 'gdpr_consent_given'];
    for (const key of required) if (key && consents[key] === undefined) missing.push(`data_compliance[${key}] (GDPR consent)`);
  }
  return missing;
}

/** Greenhouse's documented validation texts ("Validations on POST Requests"), by what they mean; it documents no error codes. */
const refusalTexts: Array<[ApplicationErrorCode, RegExp]> = [
  ['FileTypeNotSupported', /supported file type|file size must be > ?0 bytes|invalid attachment/i],
  ['JobExpired', /must be live and published|not live/i],
  ['JobNotFound', /must exist on the job board|job not found/i],
  ['ApplicantDetailsInvalid', /(first_name|last_name|email|phone)[^.]*(must not contain a url|cannot be greater than 255|valid email)/i],
  ['MandatoryQuestionsNotAnswered', /(first_name|last_name|email) (field )?is required|fields are required/i],
];

function refused(answer: VendorAnswer): SubmitOutcome {
  const message = vendorMessage(answer.json, answer.text);
  const code = answer.status === 400 || answer.status === 422 ? refusalTexts.find(([, pattern]) => pattern.test(message))?.[0] : undefined;
  return code
    ? { status: 'failed', errorCode: code, message: `Greenhouse: ${message}`, submitted: false }
    : refusal('Greenhouse', answer, message);
}

/**
 * Greenhouse Job Board API: `POST /v1/boards/{board}/jobs/{id}` with the board's key as the Basic
 * user. The posting's definition is read again first: it names each option's value, proves the
 * job is still on the board, and says what is required, which Greenhouse itself does not enforce.
 */
export function greenhouseApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'greenhouse' || !credential)
      return { status: 'not-carried', reason: 'not a Greenhouse posting with a registered key', answers: [] };
    const jobUrl = `${expandEndpoint(options.apiBaseUrl, {})}/v1/boards/${encodeURIComponent(credential.board)}/jobs/${encodeURIComponent(target.jobId)}`;

    const definition = await callVendor(
      `${jobUrl}?questions=true`,
      { method: 'GET', headers: { accept: 'application/json' } },
      options.timeoutMs,
      signal,
    );
    if (definition.status === 404 || definition.status === 410)
      return failedBeforeSending('JobExpired', `Greenhouse: job ${target.jobId} is no longer on board ${credential.board}`);
    if (definition.status !== 200)
      return failedBeforeSending(
        'ApplicationFailed',
        `Greenhouse answered HTTP ${definition.status} to the job's definition; nothing was submitted`,
      );
    const job = GhJob.safeParse(definition.json);
    if (!job.success)
      return failedBeforeSending(
        'ApplicationFailed',
        `Greenhouse's job definition has an unknown shape (${retrieveJob}); nothing was submitted`,
      );

    const { body, notCarried, invalid, missing } = greenhouseBody(job.data, application);
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `Greenhouse's Job Board API carries no field for ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    if (invalid.length > 0) return failedBeforeSending('ApplicationFailed', `Greenhouse: ${invalid.join('; ')}`);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Greenhouse requires ${missing.join(', ')}`);

    const authorization = `Basic ${Buffer.from(`${credential.key}:`).toString('base64')}`;
    return options.rateLimit(
      `greenhouse:${credential.board}`,
      () =>
        submitOnce(
          'Greenhouse',
          hooks,
          () =>
            callVendor(
              jobUrl,
              { method: 'POST', headers: { authorization, accept: 'application/json' }, json: body },
              options.timeoutMs,
              signal,
            ),
          // Greenhouse documents no success body: a 2xx is the application recorded.
          (answer): SubmitOutcome =>
            answer.status >= 200 && answer.status < 300
              ? { status: 'success', confirmation: { text: `Submitted through Greenhouse's Job Board API (HTTP ${answer.status})` } }
              : refused(answer),
        ),
      signal,
    );
  };
}
