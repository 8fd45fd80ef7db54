import { readFileSync } from 'node:fs';
import { basicUser, startVendorDouble, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * Greenhouse's Job Board API, rebuilt from its published documentation:
 *   JOBS = grnhse/greenhouse-api-docs@0c37c31:source/includes/job-board/_jobs.md ("Retrieve a job")
 *   APPS = grnhse/greenhouse-api-docs@0c37c31:source/includes/job-board/_applications.md ("Submit an application")
 *   INTRO = grnhse/greenhouse-api-docs@0c37c31:source/includes/job-board/_introduction.md
 * published at https://developers.greenhouse.io/job-board.html.
 *
 * Where the docs are silent, and what the double does then:
 * - Success body: not documented. The double answers 200 `{ "success": "Candidate saved successfully" }`;
 *   a client must not rely on any of it (the transport reads only the status).
 * - Refusal status and body: not documented. The double answers 400 `{ "error": "<the documented rule>" }`,
 *   404 `{ "status": 404, "error": "Job not found" }` for a post not on the board, 401 for a wrong key.
 * - Duplicate applications: no refusal documented; the double accepts a second application.
 * - Fields the docs do not list: not documented. The double ignores them (as it ignores a location
 *   without coordinates) and records them in `ignored`, so a test can see an answer that was lost.
 * - The JSON example in APPS closes the body before `data_compliance` and `applicant_ip` (its braces
 *   are unbalanced); the parameters table lists both as top-level fields, which the double reads.
 */

type GhField = { name: string; type: string; values?: Array<{ label: string; value: number | string }> };
type GhQuestion = { label: string; required?: boolean; fields: GhField[] };
type GhDemographic = {
  questions: Array<{
    id: number;
    required?: boolean;
    type: string;
    answer_options: Array<{ id: number; label: string; free_form?: boolean }>;
  }>;
};
type GhJob = {
  id: number;
  questions?: GhQuestion[];
  location_questions?: GhQuestion[];
  compliance?: Array<{ questions?: GhQuestion[] }>;
  demographic_questions?: GhDemographic;
  data_compliance?: Array<{ type: string }>;
  [key: string]: unknown;
};

/** The postings of board `acme` on the double, by name: each in the shape JOBS documents, written for the double. */
export const greenhouseDoublePostings = {
  /** US post: every custom question type, a hidden question, a custom file question, résumé and cover letter each file-or-text, location with hidden coordinates (JOBS' three-question shape), EEOC compliance, demographic questions. */
  backendEngineer: '4000000001',
  /** EU post: GDPR single-purpose consents (processing, retention), required cover letter and custom file, location as one question with its hidden coordinates. */
  dataAnalystEu: '4000000002',
  /** EU post: the one general GDPR consent (`requires_consent`) and a demographic question. */
  supportAgentEu: '4000000003',
} as const;

/** The job the shared cases apply to (the transport's, the hosted form's, the API's end-to-end test). */
export const greenhouseDoubleJob = (): string => greenhouseDoublePostings.backendEngineer;

const fixtureFiles = ['backend-engineer.json', 'data-analyst-eu.json', 'support-agent-eu.json'];

/** A posting's definition as the double serves it (with `?questions=true`). */
export const greenhouseDoublePosting = (id: string): GhJob | undefined => postings().get(id);

function postings(): Map<string, GhJob> {
  const jobs = fixtureFiles.map(
    (file) => JSON.parse(readFileSync(new URL(`../../fixtures/vendor-apis/greenhouse/${file}`, import.meta.url), 'utf8')) as GhJob,
  );
  return new Map(jobs.map((job) => [String(job.id), job]));
}

/** An attachment as Greenhouse receives it, whichever of APPS' four methods carried it. */
export type GreenhouseAttachment = { filename: string; bytes: Buffer } | { url: string; filename: string } | { text: string };

/** An application as the double recorded it: what Greenhouse keeps, and what it dropped. */
export type GreenhouseApplication = {
  jobId: string;
  fields: Map<string, unknown>;
  attachments: Map<string, GreenhouseAttachment>;
  /** Fields sent that Greenhouse does not keep: names it does not document for this post, or a location without coordinates. */
  ignored: string[];
};

export type GreenhouseApiDouble = VendorApiDouble & { applications: GreenhouseApplication[] };

/** The body as one map: JSON as sent; multipart with `name[]` parts gathered into arrays (files as bytes). */
function bodyFields(request: ReceivedRequest): Map<string, unknown> {
  if (request.json !== undefined) return new Map(Object.entries(request.json as Record<string, unknown>));
  const fields = new Map<string, unknown>();
  for (const [name, value] of request.parts) {
    const plain = typeof value === 'string' ? value : { filename: value.filename, bytes: value.bytes };
    if (name.endsWith('[]')) fields.set(name.slice(0, -2), [...((fields.get(name.slice(0, -2)) as unknown[] | undefined) ?? []), plain]);
    else fields.set(name, plain);
  }
  return fields;
}

// APPS "Attachments": "Must be a supported file type (pdf, doc, docx, txt, rtf)", "File size must be > 0 bytes".
const attachmentTypes = /\.(pdf|docx?|txt|rtf)$/i;
// APPS "Field validations".
const containsUrl = /(https?:\/\/|www\.)\S+/i;
const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Takes one attachment field (APPS "Submitting Attachments") out of the body; null when absent. */
function takeAttachment(fields: Map<string, unknown>, name: string, withText: boolean): GreenhouseAttachment | string | null {
  const take = (key: string) => {
    const value = fields.get(key);
    fields.delete(key);
    return value;
  };
  const direct = take(name);
  const content = take(`${name}_content`);
  const contentName = take(`${name}_content_filename`);
  const url = take(`${name}_url`);
  const urlName = take(`${name}_url_filename`);
  const text = withText ? take(`${name}_text`) : undefined;
  let attachment: GreenhouseAttachment | null = null;
  if (direct && typeof direct === 'object' && 'bytes' in direct) attachment = direct as { filename: string; bytes: Buffer };
  else if (typeof content === 'string') attachment = { filename: String(contentName ?? ''), bytes: Buffer.from(content, 'base64') };
  else if (typeof url === 'string') attachment = { url, filename: String(urlName ?? '') };
  if (attachment && 'filename' in attachment) {
    if (!attachmentTypes.test(attachment.filename))
      return `Invalid attachment: ${name} must be a supported file type (pdf, doc, docx, txt, rtf)`;
    if ('bytes' in attachment && attachment.bytes.length === 0) return `Invalid attachment: ${name} file size must be > 0 bytes`;
    return attachment;
  }
  if (typeof text === 'string' && text !== '') return { text };
  return null;
}

/** A select's values as the option ids they must be (APPS: "Field values must match the field type specified on the job post question"). */
function checkOptions(field: GhField, value: unknown): string | null {
  const allowed = new Set((field.values ?? []).map((option) => String(option.value)));
  const given = field.type === 'multi_value_multi_select' ? (Array.isArray(value) ? value : [value]) : [value];
  const outside = given.filter((item) => (typeof item !== 'string' && typeof item !== 'number') || !allowed.has(String(item)));
  return outside.length > 0 || (field.type === 'multi_value_single_select' && Array.isArray(value))
    ? `${field.name.replace(/\[\]$/, '')} must be one of the question's option values`
    : null;
}

const monthYear = (value: unknown) => typeof value === 'object' && value !== null && 'month' in value && 'year' in value;

/** The documented validations of APPS, in its order; the first broken one is the refusal. */
function receive(job: GhJob, fields: Map<string, unknown>): GreenhouseApplication | string {
  const application: GreenhouseApplication = { jobId: String(job.id), fields: new Map(), attachments: new Map(), ignored: [] };
  for (const name of ['first_name', 'last_name', 'email']) {
    const value = fields.get(name);
    if (typeof value !== 'string' || value.trim() === '') return `${name} is required`;
    if (value.length > 255) return `${name} cannot be greater than 255 characters long`;
  }
  for (const name of ['first_name', 'last_name', 'phone'])
    if (containsUrl.test(String(fields.get(name) ?? ''))) return `${name} must not contain a URL`;
  if (!emailShape.test(String(fields.get('email')))) return 'email must contain a valid email address';
  const educations = fields.get('educations');
  if (educations !== undefined) {
    const valid =
      Array.isArray(educations) &&
      educations.every(
        (entry: Record<string, unknown>) =>
          ['school_name_id', 'degree_id', 'discipline_id'].every((key) => entry[key] !== undefined) &&
          monthYear(entry['start_date']) &&
          monthYear(entry['end_date']),
      );
    if (!valid) return 'educations object must contain valid school_name_id, degree_id, discipline_id, start_date, and end_date';
  }
  const employments = fields.get('employments');
  if (employments !== undefined) {
    const valid =
      Array.isArray(employments) &&
      employments.every(
        (entry: Record<string, unknown>) =>
          entry['company_name'] &&
          entry['title'] &&
          monthYear(entry['start_date']) &&
          ['true', 'false', true, false].includes(entry['current'] as string) &&
          (String(entry['current']) === 'true' || monthYear(entry['end_date'])),
      );
    if (!valid)
      return 'employments object must contain company_name, title, start_date and current (true or false); end_date when current is false';
  }

  // Attachments: résumé and cover letter by any of four methods, a custom file question by three (no text).
  const fileFields = [...(job.questions ?? [])]
    .flatMap((question) => question.fields)
    .filter((field) => field.type === 'input_file')
    .map((field) => field.name);
  for (const name of new Set(['resume', 'cover_letter', ...fileFields])) {
    const attachment = takeAttachment(fields, name, name === 'resume' || name === 'cover_letter');
    if (typeof attachment === 'string') return attachment;
    if (attachment) application.attachments.set(name, attachment);
  }

  // Every other field the post's questions define, by type; hidden fields are kept as sent.
  const postFields = [
    ...(job.questions ?? []),
    ...(job.location_questions ?? []),
    ...(job.compliance ?? []).flatMap((block) => block.questions ?? []),
  ].flatMap((question) => question.fields);
  for (const field of postFields) {
    const name = field.name.replace(/\[\]$/, '');
    if (field.type === 'input_file' || !fields.has(name)) continue;
    const value = fields.get(name);
    fields.delete(name);
    if (field.type.startsWith('multi_value_')) {
      const problem = checkOptions(field, value);
      if (problem) return problem;
    } else if (typeof value !== 'string') return `${name} must be text`;
    application.fields.set(name, value);
  }
  // JOBS/APPS "Collecting Applicant Location": "If only `location` is sent and `latitude` and `longitude` are omitted, `location` will be ignored entirely."
  if (application.fields.has('location') && !(application.fields.has('latitude') && application.fields.has('longitude'))) {
    application.fields.delete('location');
    application.ignored.push('location');
  }
  // APPS parameters kept whatever the post's questions say.
  for (const name of ['phone', 'mapped_url_token', 'applicant_ip', 'educations', 'employments']) {
    if (fields.has(name) && !application.fields.has(name)) application.fields.set(name, fields.get(name));
    fields.delete(name);
  }
  const demographic = fields.get('demographic_answers');
  fields.delete('demographic_answers');
  if (demographic !== undefined) {
    // APPS: each object "must have a `question_id`"; answer options are ids of that question; `text` only on a free-form option.
    const questions = new Map((job.demographic_questions?.questions ?? []).map((question) => [String(question.id), question]));
    for (const answer of Array.isArray(demographic) ? (demographic as Array<Record<string, unknown>>) : [null]) {
      const question = answer ? questions.get(String(answer['question_id'])) : undefined;
      if (!answer || !question) return 'demographic_answers must each name a question_id of this job post';
      const options = (answer['answer_options'] ?? []) as Array<Record<string, unknown>>;
      for (const option of options) {
        const known = question.answer_options.find((candidate) => String(candidate.id) === String(option['answer_option_id']));
        if (!known || (option['text'] !== undefined && known.free_form !== true))
          return `demographic_answers: answer_option_id ${String(option['answer_option_id'])} is not a free-form option of question ${question.id}`;
      }
      if (question.type === 'multi_value_single_select' && options.length > 1)
        return `demographic_answers: question ${question.id} takes one option`;
    }
    application.fields.set('demographic_answers', demographic);
  }
  // APPS "data_compliance": an object of consents, kept when the post has a GDPR block (JOBS "Data Compliance").
  const compliance = fields.get('data_compliance');
  fields.delete('data_compliance');
  if (compliance !== undefined) {
    if (typeof compliance !== 'object' || compliance === null || Array.isArray(compliance))
      return 'data_compliance must be an object of consents';
    if ((job.data_compliance ?? []).length > 0) application.fields.set('data_compliance', compliance);
    else application.ignored.push('data_compliance');
  }
  application.ignored.push(...fields.keys());
  return application;
}

/** JOBS "Retrieve a job": `questions=true` adds the question arrays; without it they are left out. */
function served(job: GhJob, withQuestions: boolean): GhJob {
  if (withQuestions) return job;
  const {
    questions: _questions,
    location_questions: _location,
    compliance: _compliance,
    demographic_questions: _demographic,
    ...rest
  } = job;
  return rest as GhJob;
}

/**
 * Greenhouse's Job Board API on loopback, board `acme`: `GET /v1/boards/acme/jobs/{id}` (public,
 * INTRO "Authentication") and `POST` to the same path with the board's key as the Basic user and
 * no password (APPS), multipart or JSON. A post not on the board is 404 (APPS "Job validations").
 * Required questions are not enforced (APPS: "Greenhouse will not reject applications that are
 * missing required fields").
 */
export async function startGreenhouseApiDouble(options: { key: string }): Promise<GreenhouseApiDouble> {
  const jobs = postings();
  const applications: GreenhouseApplication[] = [];
  const double = await startVendorDouble(
    (request) => {
      const path = /^\/v1\/boards\/([^/]+)\/jobs\/([^/]+)$/.exec(request.path);
      if (!path) return null;
      const job = path[1] === 'acme' ? jobs.get(decodeURIComponent(path[2] ?? '')) : undefined;
      if (!job) return { reply: { status: 404, body: { status: 404, error: 'Job not found' } } };
      if (request.method === 'GET') return { reply: { status: 200, body: served(job, request.query.get('questions') === 'true') } };
      if (request.method !== 'POST') return null;
      if (request.headers.authorization !== basicUser(options.key))
        return { reply: { status: 401, body: { status: 401, error: 'Invalid Basic Auth credentials' } } };
      const received = receive(job, bodyFields(request));
      if (typeof received === 'string') return { reply: { status: 400, body: { error: received } } };
      return {
        accept: () => {
          applications.push(received);
          return { status: 200, body: { success: 'Candidate saved successfully' } };
        },
      };
    },
    (url) => ({ greenhouseApi: url }),
  );
  return Object.assign(double, { applications });
}
