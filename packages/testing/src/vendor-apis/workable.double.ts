import { readFileSync } from 'node:fs';
import { startVendorDouble, type DoubleReply, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * Workable, rebuilt from its published material:
 *
 * - CREATE https://workable.readme.io/reference/job-candidates-create — `POST /spi/v3/jobs/:shortcode/candidates`,
 *   scope `w_candidates`, JSON with `candidate` and `"sourced": false` at the root for an applied candidate
 *   (without it the candidate counts as uploaded); `name` or `firstname` + `lastname`, and `email`, required.
 * - FORM https://workable.readme.io/reference/jobsshortcodeapplication_form — `GET /spi/v3/jobs/:shortcode/application_form`
 *   (scope `r_jobs`): `form_fields[{key, label, type: string|free_text|file|boolean|date|complex, required, fields,
 *   supported_file_types, max_file_size}]` ("This key matches with the candidate attribute as well") and
 *   `questions[{id, body, type: free_text|multiple_choice|boolean|dropdown|numeric|date|file, required,
 *   single_answer, choices[{id, body}], supported_file_types, max_file_size}]`.
 * - RATE https://workable.readme.io/reference/rate-limits — every response carries `X-Rate-Limit-Limit`,
 *   `X-Rate-Limit-Remaining`, `X-Rate-Limit-Reset`; past the limit (10 requests per 10 s for account tokens) 429.
 * - HRFLOW Riminder/hrflow-connectors@d9304cf89167fc6cb939a8fbe3d08c35371945c5:src/hrflow_connectors/v2/connectors/workable/schemas.py
 *   (the candidate a public connector creates: firstname, lastname, email, headline, summary, address, phone,
 *   cover_letter, education_entries[{school, degree, field_of_study, start_date, end_date}],
 *   experience_entries[{title, company, summary, industry, start_date, end_date, current}], answers, skills,
 *   tags, social_profiles, resume_url).
 * - WABLE CVector-Energy/wable@1484a8257199bb69c96032d84d68167a253bdb81:src/types.ts (a public client's types
 *   of the answers by question type: `{question_key, body}` free text, `{question_key, checked}` boolean,
 *   `{question_key, choices: [id]}` multiple choice and dropdown, `{question_key, date}`, `{question_key,
 *   value: number}` numeric, `{question_key, file_url}` or `{question_key, file: {name, data}}` file).
 * - The public form the miner reads (`GET apply.workable.com/api/v1/jobs/:shortcode/form`) has the captured
 *   shape (packages/miner/fixtures/ats/workable/, and the research notes' §4b): sections of fields `{id, label,
 *   type, required, options[{name, value}], singleOption, fields}`.
 *
 * Where the sources are silent, and what the double does then:
 * - The relation of the public form's ids to the SPI's question ids: not documented; here the SPI question
 *   `id` is the form's `QA_…` id and its choice ids are the form's option `name`s (a transport must not rely
 *   on it: the question's words are the same in both).
 * - The résumé as `resume: {name, data}` (base64), like a file answer (WABLE); `resume_url` is accepted too.
 * - Whether the create call enforces `required` form fields and questions: not documented; the double refuses
 *   a required one left out with 422, as it refuses an answer whose key or encoding does not fit its
 *   question (wrong value key, an unknown choice id, a date not YYYY-MM-DD, a file that is not base64).
 * - The error body: not documented; `{error: "…"}`; 401 for another token, 404 for a job not open.
 * - Duplicates: Workable documents no refusal (one candidate per job); the double accepts a repeat.
 * - The rate limit is announced in the headers but not enforced (a bench would trip it); a test scripts a 429.
 * - Keys the create call does not document (e.g. `avatar`) are refused with 422, so nothing is dropped silently.
 */

type FormField = { key: string; type: string; required: boolean; fields?: FormField[] };
type SpiQuestion = {
  id: string;
  body: string;
  type: string;
  required: boolean;
  single_answer?: boolean;
  choices?: Array<{ id: string; body: string }>;
};
type WorkableJob = { title: string; form: unknown; applicationForm: { form_fields: FormField[]; questions: SpiQuestion[] } };

/** The jobs of account `acme` on the Workable double, by shortcode. */
export const workableDoubleJobs = {
  /** Every field and question type the form and the SPI document: groups, file, numeric, date, choices. */
  everyKind: 'A1B2C3D4E5',
  /** Paragraph questions and an optional photo (`avatar`), which no documented candidate field takes. */
  paragraphs: 'B2C3D4E5F6',
  /** Not open: every endpoint of the job answers 404. */
  closed: 'C3D4E5F6A7',
} as const;

const workableDoubleDefinitions = (): Record<string, WorkableJob> =>
  JSON.parse(readFileSync(new URL('../../fixtures/vendor-apis/workable/jobs.json', import.meta.url), 'utf8')) as Record<
    string,
    WorkableJob
  >;

/** The candidate attributes the create call takes (CREATE, HRFLOW), beside the form's answers. */
const candidateKeys = new Set([
  'name',
  'firstname',
  'lastname',
  'email',
  'headline',
  'summary',
  'address',
  'phone',
  'cover_letter',
  'education_entries',
  'experience_entries',
  'answers',
  'skills',
  'tags',
  'social_profiles',
  'resume',
  'resume_url',
  'disqualified',
  'disqualification_reason',
  'domain',
  'recruiter_key',
]);
/** A complex form field and the candidate attribute its entries go in (HRFLOW). */
const entriesOf: Record<string, string> = { education: 'education_entries', experience: 'experience_entries' };

const rateHeaders = (): Record<string, string> => ({
  'x-rate-limit-limit': '10',
  'x-rate-limit-remaining': '9',
  'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + 10),
});
const invalid = (problems: string[]): DoubleReply => ({
  status: 422,
  body: { error: `Validation failed: ${problems.join(', ')}` },
  headers: rateHeaders(),
});
const isText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
const isBase64File = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  isText((value as { name?: unknown }).name) &&
  typeof (value as { data?: unknown }).data === 'string' &&
  /^[A-Za-z0-9+/]+={0,2}$/.test((value as { data: string }).data);
const isDate = (value: unknown): boolean => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** WABLE: the value key each question type's answer uses, and whether the value fits. */
function answerProblem(question: SpiQuestion, answer: Record<string, unknown>): string | null {
  const keys = Object.keys(answer).filter((key) => key !== 'question_key');
  const only = (key: string, fits: boolean) =>
    keys.length === 1 && keys[0] === key && fits ? null : `answer to ${question.id} is invalid`;
  switch (question.type) {
    case 'free_text':
      return only('body', isText(answer.body));
    case 'boolean':
      return only('checked', typeof answer.checked === 'boolean');
    case 'numeric':
      return only('value', typeof answer.value === 'number' && Number.isFinite(answer.value));
    case 'date':
      return only('date', isDate(answer.date));
    case 'multiple_choice':
    case 'dropdown': {
      const ids = new Set((question.choices ?? []).map((choice) => choice.id));
      const chosen = Array.isArray(answer.choices) ? answer.choices : [];
      const single = question.type === 'dropdown' || question.single_answer === true;
      return only('choices', chosen.length > 0 && (!single || chosen.length === 1) && chosen.every((id) => ids.has(String(id))));
    }
    case 'file':
      return keys.length === 1 && ((keys[0] === 'file' && isBase64File(answer.file)) || (keys[0] === 'file_url' && isText(answer.file_url)))
        ? null
        : `answer to ${question.id} is invalid`;
    default:
      return `answer to ${question.id} is invalid`;
  }
}

/** What a create request gets wrong, by the documented rules and the job's form (see the notes above). */
function problemsOf(request: ReceivedRequest, job: WorkableJob): string[] {
  const body = (request.json ?? {}) as { candidate?: Record<string, unknown> };
  const candidate = body.candidate ?? {};
  const problems: string[] = [];
  for (const key of Object.keys(candidate)) if (!candidateKeys.has(key)) problems.push(`${key} is not a candidate attribute`);
  if (!isText(candidate.name) && !(isText(candidate.firstname) && isText(candidate.lastname))) problems.push("name can't be blank");
  if (!isText(candidate.email)) problems.push("email can't be blank");
  if (candidate.resume !== undefined && !isBase64File(candidate.resume)) problems.push('resume is invalid');
  for (const field of job.applicationForm.form_fields) {
    const attribute = entriesOf[field.key] ?? field.key;
    const value = field.key === 'resume' ? (candidate.resume ?? candidate.resume_url) : candidate[attribute];
    const given = Array.isArray(value)
      ? value.length > 0
      : field.type === 'boolean'
        ? typeof value === 'boolean'
        : value !== undefined && value !== '';
    if (field.required && !given) problems.push(`${field.key} can't be blank`);
    if (field.type === 'complex' && Array.isArray(value)) {
      for (const entry of value as Array<Record<string, unknown>>) {
        for (const sub of field.fields ?? []) {
          if (sub.required && !isText(entry[sub.key])) problems.push(`${attribute}.${sub.key} can't be blank`);
          if (sub.type === 'date' && entry[sub.key] !== undefined && !isDate(entry[sub.key]))
            problems.push(`${attribute}.${sub.key} is invalid`);
        }
      }
    }
  }
  const answers = Array.isArray(candidate.answers) ? (candidate.answers as Array<Record<string, unknown>>) : [];
  const answered = new Set<string>();
  for (const answer of answers) {
    const question = job.applicationForm.questions.find((candidateQuestion) => candidateQuestion.id === answer.question_key);
    if (!question) {
      problems.push(`question ${String(answer.question_key)} does not exist`);
      continue;
    }
    const problem = answerProblem(question, answer);
    if (problem) problems.push(problem);
    else answered.add(question.id);
  }
  for (const question of job.applicationForm.questions)
    if (question.required && !answered.has(question.id)) problems.push(`answer to ${question.id} can't be blank`);
  return problems;
}

/**
 * Workable on loopback, one base URL for both hosts: the public form the miner reads
 * (`GET /api/v1/jobs/{shortcode}/form`) and the account's SPI under `/accounts/{subdomain}`
 * (`GET /spi/v3/jobs/{shortcode}/application_form` and `/questions`, `POST /spi/v3/jobs/{shortcode}/candidates`),
 * Bearer token.
 */
export async function startWorkableApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const jobs = workableDoubleDefinitions();
  let sequence = 0;
  return startVendorDouble(
    (request) => {
      const form = /^\/api\/v1\/jobs\/([^/]+)\/form$/.exec(request.path);
      if (form && request.method === 'GET') {
        const job = jobs[form[1] ?? ''];
        return {
          reply: job ? { status: 200, body: job.form } : { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } },
        };
      }
      const spi = /^\/accounts\/acme\/spi\/v3\/jobs\/([^/]+)\/(application_form|questions|candidates)$/.exec(request.path);
      if (!spi) return null;
      if (request.headers.authorization !== `Bearer ${options.key}`) return { reply: { status: 401, body: { error: 'Not authorized' } } };
      const [, shortcode = '', resource] = spi;
      const job = jobs[shortcode];
      if (request.method === 'GET' && resource !== 'candidates') {
        if (!job) return { reply: { status: 404, body: { error: 'Not found' }, headers: rateHeaders() } };
        const body = resource === 'questions' ? { questions: job.applicationForm.questions } : job.applicationForm;
        return { reply: { status: 200, body, headers: rateHeaders() } };
      }
      if (request.method !== 'POST' || resource !== 'candidates') return null;
      return {
        accept: () => {
          if (!job) return { status: 404, body: { error: 'Not found' }, headers: rateHeaders() };
          const problems = problemsOf(request, job);
          if (problems.length > 0) return invalid(problems);
          sequence += 1;
          const candidate = (request.json as { candidate: { firstname?: string; lastname?: string; email?: string } }).candidate;
          const sourced = (request.json as { sourced?: unknown }).sourced === false ? false : true;
          return {
            status: 201,
            body: {
              candidate: {
                id: `workable-candidate-${sequence}`,
                name: `${candidate.firstname ?? ''} ${candidate.lastname ?? ''}`.trim(),
                email: candidate.email,
                sourced,
                stage: sourced ? 'Sourced' : 'Applied',
                job: { shortcode, title: job.title },
              },
            },
            headers: rateHeaders(),
          };
        },
      };
    },
    (url) => ({ workable: url, workableApi: `${url}/accounts/{company}` }),
  );
}
