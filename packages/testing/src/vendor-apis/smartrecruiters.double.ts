import { readFileSync } from 'node:fs';
import { startVendorDouble, type DoubleReply, type VendorApiDouble } from './vendor-api.double.ts';

/**
 * SmartRecruiters on loopback, built from SmartRecruiters' published material:
 *
 * - POST-DOC = "Post an Application", https://developers.smartrecruiters.com/docs/post-an-application:
 *   `POST /postings/:uuid/candidates` with `X-SmartToken`; "The only required fields are: firstName,
 *   lastName, email and answers (if there are required screening questions)"; attachments in Base64,
 *   "2 MB per file", "PDF, DOC(X), RTF, JPG, and PNG"; `consentDecisions` is `{SINGLE: bool}` or the
 *   separated scopes; a screening answer "is an array which in most cases would be a single element
 *   array containing the value as String"; text, textarea and currency answers take at most 4000
 *   bytes; refusals "The following screening questions are required: <ids>" and "Values for the
 *   following screening questions' answers are incorrect: <ids>" (dev.smartrecruiters.com copy of the page).
 * - CONFIG-DOC = https://developers.smartrecruiters.com/docs/partners-get-application-screening-questions-and-privacy-policies:
 *   `GET /postings/:uuid/configuration` → `{questions[{id, label, repeatable, fields[{id, label, type,
 *   required, complianceType, values[{id, label}]}]}], settings, privacyPolicies[{url, orgName}]}`.
 * - SDK = the SDK generated from SmartRecruiters' specification, RecruitiFi/smart_recruiters@bdccf37957e3a64bd084404f1d44124e814af4df
 *   (same models as rubydoc open_api_smart_recruiters_sdk): lib/smart_recruiters/models/apply_api_request.rb
 *   (firstName, lastName, email, phoneNumber, location, web, tags, education, experience,
 *   sourceDetails, resume, avatar, attachments, answers, messageToHiringManager, consent,
 *   consentDecisions, internal, createJoinLink), web.rb (skype, linkedIn, facebook, twitter, website),
 *   education.rb (institution and degree required), experience.rb, attachment.rb (fileName, mimeType,
 *   fileContent), screening_question_answer.rb (`{id, records}`), answer_record.rb (`{fields}`),
 *   screening_question_field.rb (types INPUT_TEXT, SINGLE_SELECT, MULTI_SELECT, RADIO, CHECKBOX,
 *   TEXTAREA, INFORMATION; complianceType DIVERSITY), apply_api_response.rb (`{id, createdOn,
 *   candidatePortalUrl, smartrJoinUrl}`), apply_api_error.rb (`{id, code, message}`, codes
 *   INVALID_REQUEST, INVALID_INPUT, DATA_VALIDATION_ERROR, RESOURCE_NOT_FOUND_ERROR, …, FILE_UPLOAD_ERROR,
 *   INVALID_API_KEY_ERROR, UNAUTHORIZED).
 * - POSTING = the public Posting API `GET /v1/companies/{company}/postings/{postingId}` (uuid, active),
 *   and the hosted one-click page's `fieldSets` config the miner reads (not in the API docs; shape from
 *   the capture in /work/shared/fixtures/ats/smartrecruiters, cezkid/jobs@0f5f9e93).
 *
 * Where the sources are silent or disagree, the double chooses:
 * - api-evangelist/smartrecruiters:openapi/smartrecruiters-posting-openapi.yml puts the submit under
 *   `/v1/companies/{company}/postings/{id}/candidates` with `phone`; it is generated and contradicts both
 *   POST-DOC and SDK: the double follows POST-DOC and SDK.
 * - `records[].fields` is typed only "Object" in SDK: the double reads it as a map from field id to the
 *   answer's array of strings (POST-DOC's wording); a select's strings are its value ids.
 * - The success status is not shown: 201 with SDK's response body.
 * - Error bodies: an `ApplyApiError` list `{errors: [{id, code, message}]}` with 400, 401 or 404.
 * - No duplicate refusal is documented: the double accepts repeats.
 */

type Field = {
  id: string;
  label: string;
  type: string;
  required: boolean;
  complianceType?: string;
  values: Array<{ id: string; label: string }>;
};
type Configuration = { questions: Array<{ id: string; label: string; repeatable: boolean; fields: Field[] }> };
type Posting = { id: string; uuid: string; active: boolean };

/** The postings of company `acme` on the SmartRecruiters double, by posting id. */
export const smartRecruitersDoublePostings = {
  /** Every page field and screening questions of every documented field type, a repeatable complex one and a diversity one. */
  captured: '744000000000101',
  /** The same posting, `active: false`. */
  inactive: '744000000000102',
} as const;

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../fixtures/vendor-apis/smartrecruiters/${name}.json`, import.meta.url), 'utf8')) as T;

const refused = (status: number, code: string, message: string): DoubleReply => ({
  status,
  body: { errors: [{ id: `err-${code.toLowerCase()}`, code, message }] },
});

/** POST-DOC: the accepted attachment types, by MIME type. */
const acceptedTypes = new Set([
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/rtf',
  'text/rtf',
  'image/jpeg',
  'image/png',
]);

function fileProblem(file: unknown, name: string): string | null {
  const { fileName, mimeType, fileContent } = (file ?? {}) as { fileName?: unknown; mimeType?: unknown; fileContent?: unknown };
  // SDK attachment.rb: all three required.
  if (typeof fileName !== 'string' || typeof mimeType !== 'string' || typeof fileContent !== 'string')
    return `${name}: fileName, mimeType and fileContent are required`;
  if (!acceptedTypes.has(mimeType)) return `${name}: file type ${mimeType} is not supported`;
  if (Buffer.from(fileContent, 'base64').length > 2 * 1024 * 1024) return `${name}: the file exceeds 2 MB`;
  return null;
}

/** The answers' problems against the configuration: required questions left out, values that are not the field's. */
function screeningProblems(configuration: Configuration, answers: unknown): DoubleReply | null {
  const given = new Map(
    (Array.isArray(answers) ? (answers as Array<{ id?: unknown; records?: unknown }>) : []).map((answer) => [
      String(answer.id),
      answer.records,
    ]),
  );
  const required = configuration.questions
    .filter((question) => question.fields.some((field) => field.required) && !given.has(question.id))
    .map((question) => question.id);
  if (required.length > 0)
    return refused(400, 'DATA_VALIDATION_ERROR', `The following screening questions are required: ${required.join(', ')}.`);
  const incorrect: string[] = [];
  for (const [id, records] of given) {
    const question = configuration.questions.find((candidateQuestion) => candidateQuestion.id === id);
    const list = Array.isArray(records) ? (records as Array<{ fields?: Record<string, unknown> }>) : [];
    const wellFormed =
      question !== undefined &&
      list.length > 0 &&
      (question.repeatable || list.length === 1) &&
      list.every((record) => {
        const fields = record.fields ?? {};
        return (
          Object.keys(fields).every((fieldId) => question.fields.some((field) => field.id === fieldId && field.type !== 'INFORMATION')) &&
          question.fields.every((field) => {
            const value = fields[field.id];
            if (value === undefined) return !field.required;
            if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return false;
            if (['SINGLE_SELECT', 'RADIO'].includes(field.type))
              return value.length === 1 && field.values.some((option) => option.id === value[0]);
            if (['MULTI_SELECT', 'CHECKBOX'].includes(field.type))
              return value.every((item) => field.values.some((option) => option.id === item));
            return value.length === 1 && Buffer.byteLength(String(value[0])) <= 4000;
          })
        );
      });
    if (!wellFormed) incorrect.push(id);
  }
  return incorrect.length > 0
    ? refused(400, 'DATA_VALIDATION_ERROR', `Values for the following screening questions' answers are incorrect: ${incorrect.join(', ')}.`)
    : null;
}

function candidateProblems(body: Record<string, unknown>): string | null {
  const missing = ['firstName', 'lastName', 'email'].filter(
    (name) => typeof body[name] !== 'string' || (body[name] as string).trim() === '',
  );
  if (missing.length > 0) return `${missing.join(', ')}: may not be empty`;
  if (!/^[^@\s]+@[^@\s]+$/.test(String(body.email))) return 'email: not a well-formed email address';
  // SDK education.rb: institution and degree may not be nil.
  for (const entry of Array.isArray(body.education) ? (body.education as Array<Record<string, unknown>>) : []) {
    if (!entry.institution || !entry.degree) return 'education: institution and degree are required';
  }
  for (const [name, file] of [
    ['resume', body.resume],
    ...(Array.isArray(body.attachments) ? body.attachments.map((item, index) => [`attachments[${index}]`, item]) : []),
  ] as Array<[string, unknown]>) {
    if (file !== undefined) {
      const problem = fileProblem(file, name);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * SmartRecruiters on loopback, one base URL for its hosts: the public posting and the one-click
 * page's config (what the miner reads), and the Application API with `X-SmartToken`.
 */
export async function startSmartRecruitersApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const posting = fixture<Posting>('posting');
  const pageConfig = fixture<unknown>('page-config');
  const configuration = fixture<Configuration>('configuration');
  const postings = new Map<string, Posting>([
    [smartRecruitersDoublePostings.captured, posting],
    [
      smartRecruitersDoublePostings.inactive,
      { ...posting, id: smartRecruitersDoublePostings.inactive, uuid: '7c1e4a2b-5d3f-4e8a-9b61-0f2d3c4b5a02', active: false },
    ],
  ]);
  const byUuid = (uuid: string | undefined) => [...postings.values()].find((candidatePosting) => candidatePosting.uuid === uuid);
  let sequence = 0;
  return startVendorDouble(
    (request) => {
      const publicPosting = /^\/v1\/companies\/acme\/postings\/([^/]+)$/.exec(request.path);
      if (publicPosting && request.method === 'GET') {
        const found = postings.get(publicPosting[1] ?? '');
        return { reply: found ? { status: 200, body: found } : { status: 404, body: { message: 'Posting not found' } } };
      }
      const page = /^\/oneclick-ui\/api\/company\/acme\/publication\/([^/]+)\/config$/.exec(request.path);
      if (page && request.method === 'GET')
        return { reply: byUuid(page[1]) ? { status: 200, body: pageConfig } : { status: 404, body: { message: 'Not found' } } };
      const api = /^\/postings\/([^/]+)\/(configuration|candidates)$/.exec(request.path);
      if (!api) return null;
      // The notes' measurement (cezkid/jobs smartrecruiters.md): without a key, 401 "Authentication data missing".
      if (request.headers['x-smarttoken'] === undefined) return { reply: refused(401, 'UNAUTHORIZED', 'Authentication data missing') };
      if (request.headers['x-smarttoken'] !== options.key) return { reply: refused(401, 'INVALID_API_KEY_ERROR', 'Invalid API key') };
      const target = byUuid(api[1]);
      // Chosen: an unknown or inactive posting is RESOURCE_NOT_FOUND_ERROR (SDK's code list) with 404.
      const notFound = refused(404, 'RESOURCE_NOT_FOUND_ERROR', `Posting ${api[1] ?? ''} not found or not active`);
      if (api[2] === 'configuration' && request.method === 'GET')
        return { reply: target?.active ? { status: 200, body: configuration } : notFound };
      if (api[2] !== 'candidates' || request.method !== 'POST') return null;
      return {
        accept: () => {
          if (!target?.active) return notFound;
          const body = (request.json ?? {}) as Record<string, unknown>;
          const problem = candidateProblems(body);
          if (problem)
            return refused(400, problem.includes('file') || problem.includes('MB') ? 'FILE_UPLOAD_ERROR' : 'INVALID_INPUT', problem);
          const screening = screeningProblems(configuration, body.answers);
          if (screening) return screening;
          sequence += 1;
          return {
            status: 201,
            body: {
              id: `sr-candidate-${sequence}`,
              createdOn: new Date(Date.UTC(2026, 10, 28, 12, 0, sequence)).toISOString(),
              candidatePortalUrl: `https://my.smartrecruiters.example/candidate/${sequence}`,
            },
          };
        },
      };
    },
    (url) => ({ smartRecruitersApi: url, smartRecruitersJobs: url }),
  );
}
