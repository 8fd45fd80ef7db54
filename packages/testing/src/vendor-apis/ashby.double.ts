import { readFileSync } from 'node:fs';
import { basicUser, startVendorDouble, type DoubleReply, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

// Every behaviour below cites its source. ASHBY-OAS is Ashby's OpenAPI file as republished in
// api-evangelist/ashby-hq@2e9efb92e08d669dd4be2ec2b4d25689adec720e:openapi/_original/ashby-openapi.yml
// (the text of https://developers.ashbyhq.com/reference/applicationformsubmit and its siblings);
// ASHBY-ERRORS is https://developers.ashbyhq.com/docs/responses ("Responses & Errors");
// ASHBY-GUIDE is https://developers.ashbyhq.com/docs/creating-a-custom-careers-page;
// CEZ-ASHBY is cezkid/jobs@0b76bf2e app/docs/apply/ashby.md (the hosted page, measured).

type FieldEntry = {
  isRequired?: boolean;
  descriptionHtml?: string;
  field: { id: string; path: string; title: string; type: string; selectableValues?: Array<{ label: string; value: string }> } & Record<
    string,
    unknown
  >;
};
type FormDefinition = { sections: Array<{ title?: string; descriptionHtml?: string; fields: FieldEntry[] }> };
type SurveyDefinition = { id: string; title: string; isArchived: boolean; surveyType: string; formDefinition: FormDefinition };
type Posting = { id: string; title: string; applicationFormDefinition: FormDefinition; surveyFormDefinitions: SurveyDefinition[] } & Record<
  string,
  unknown
>;

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/vendor-apis/ashby/postings.json', import.meta.url), 'utf8')) as {
  postings: Array<{ published: boolean; posting: Posting }>;
};

/** The postings of org `acme` on the Ashby double, by posting id. */
export const ashbyDoublePostings = {
  /** A field of every type applicationForm.submit documents, an EEOC survey and a data-consent survey. */
  everyKind: '0a1b2c3d-0000-4000-8000-00000000f003',
  /** Unpublished: readable by id, refused by a submission that does not allow unpublished postings. */
  closed: '0a1b2c3d-0000-4000-8000-00000000f0ff',
} as const;

/** ASHBY-ERRORS: "What would be 4XX errors will return 200 with success being false", with `errorInfo` (and the deprecated `errors` list, ASHBY-OAS error schema). */
const failure = (code: string, message: string): DoubleReply => ({
  status: 200,
  body: { success: false, errors: [code], errorInfo: { code, message, requestId: `01JDOUBLE${code.length}` } },
});
const ok = (results: unknown): DoubleReply => ({ status: 200, body: { success: true, results } });

const fieldsOf = (form: FormDefinition) => form.sections.flatMap((section) => section.fields);
const isBlank = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** The hosted page's posting query answer (CEZ-ASHBY): the same form as `applicationForm`/`surveyForms` of `fieldEntries`. */
function hostedPosting(posting: Posting) {
  const render = (form: FormDefinition) => ({
    sections: form.sections.map((section) => ({
      title: section.title ?? null,
      descriptionHtml: section.descriptionHtml ?? null,
      fieldEntries: section.fields.map((entry) => ({
        field: entry.field,
        isRequired: entry.isRequired ?? false,
        descriptionHtml: entry.descriptionHtml ?? null,
      })),
    })),
  });
  return {
    title: posting.title,
    applicationForm: render(posting.applicationFormDefinition),
    surveyForms: posting.surveyFormDefinitions.map((survey) => render(survey.formDefinition)),
  };
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A submitted value checked against its field's type, as ASHBY-OAS (applicationForm.submit)
 * lists the values each type accepts; null when it fits, else what is wrong. `files` are the
 * multipart parts a File value may name ("The name of this field must exactly match the
 * `value` on the `fieldSubmission` that references this file").
 */
function invalidValue(entry: FieldEntry, value: unknown, files: Set<string>): string | null {
  const { type, title, selectableValues = [] } = entry.field;
  const values = new Set(selectableValues.map((option) => option.value));
  switch (type) {
    case 'Boolean':
      return typeof value === 'boolean' ? null : `${title} must be a boolean`;
    case 'Date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
        ? null
        : `${title} must be a date string in the format YYYY-MM-DD`;
    case 'Email':
      return typeof value === 'string' && emailPattern.test(value) ? null : `${title}: email is not a valid email address`;
    case 'Number':
      return Number.isInteger(value) ? null : `${title} must be an integer`;
    case 'RichText':
      return isObject(value) && value['type'] === 'PlainText' && typeof value['value'] === 'string'
        ? null
        : `${title} must be { type: "PlainText", value }`;
    case 'Score':
      return isObject(value) && Number.isInteger(value['score']) && Number(value['score']) >= 1 && Number(value['score']) <= 4
        ? null
        : `${title} must be { score: 1-4 }`;
    // LongText and Url are on hosted forms (CEZ-ASHBY) but not in ASHBY-OAS's list: the reference is
    // silent on them; the double takes a string, as for String.
    case 'Phone':
    case 'String':
    case 'LongText':
    case 'Url':
      return typeof value === 'string' ? null : `${title} must be a string`;
    case 'ValueSelect':
      return typeof value === 'string' && values.has(value)
        ? null
        : `${title}: "${String(value)}" is not one of the field's selectable values`;
    case 'MultiValueSelect':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' && values.has(item))
        ? null
        : `${title}: every value must be one of the field's selectable values`;
    case 'Location':
      // "any combination of these properties and we will attempt to geocode the location".
      return isObject(value) &&
        ['country', 'city', 'region'].some((key) => typeof value[key] === 'string') &&
        Object.keys(value).every((key) => ['country', 'city', 'region'].includes(key))
        ? null
        : `${title} must be { country, city, region }`;
    case 'EducationHistory':
      // "Only `schoolName` is required … If `isCurrent` is true, `endDate` must not be provided."
      return Array.isArray(value) &&
        value.every(
          (school) =>
            isObject(school) &&
            typeof school['schoolName'] === 'string' &&
            !(school['isCurrent'] === true && school['endDate'] !== undefined),
        )
        ? null
        : `${title} must be a list of { schoolName, … }`;
    case 'File':
      // Multipart: a part of that name; JSON: a handle from file.createFileUploadHandle, which this double never issues.
      return typeof value === 'string' && files.has(value) ? null : `${title}: file "${String(value)}" is not a part of the request`;
    default:
      return `${title}: the double knows no type ${type}`;
  }
}

/**
 * Ashby on loopback, one base URL for both of its hosts:
 *
 * - `POST /api/non-user-graphql?op=ApiJobPosting` (jobs.ashbyhq.com, no key): the hosted page's
 *   posting query the miner reads (CEZ-ASHBY); `jobPosting: null` for an unpublished posting.
 * - `POST /jobPosting.info` (Basic auth, the key as user, ASHBY-OAS securitySchemes): the posting
 *   with `applicationFormDefinition` and `surveyFormDefinitions` (ASHBY-OAS, ASHBY-GUIDE step 2).
 *   ASHBY-OAS is silent on an unpublished posting read by id: the double returns it (with
 *   `isListed: false`); an unknown id answers `job_posting_not_found` (a code of the double's own;
 *   the reference lists none for this call).
 * - `POST /applicationForm.submit` (Basic auth): `jobPostingId` and `applicationForm:
 *   {fieldSubmissions: [{path, value}]}` as JSON, or as multipart parts (`applicationForm` a JSON
 *   text, each file a part named by its submission's value: ASHBY-OAS). The reference is silent
 *   on how an object travels in multipart: the double reads the part as JSON. Values are checked
 *   per type (`invalidValue`); a required field left out, or `testing-fail-validation@example.com`
 *   ("you can simulate a validation failure"), fails with `invalid_input` (code from ASHBY-OAS's
 *   error example; message wording the double's own). `allowSubmissionForUnpublishedJobPosting`
 *   defaults to true; false on an unpublished posting "will return a `job_posting_not_published`
 *   error". A path the form does not have is ignored (ASHBY-OAS: the body allows other properties;
 *   the reference says nothing of unknown paths). Success: `results.submittedFormInstance {id,
 *   formDefinition, submittedValues}` keyed by path, and `formMessages.blocked`.
 * - Application limits: "Whether the application was blocked due to configured application limits
 *   (eg too many applications submitted for a single candidate)" (ASHBY-OAS formMessages): the
 *   double's employer allows one application per email per posting; the next is `blocked: true`
 *   with a `blockMessageForCandidateHtml`, and no application exists for it.
 * - `POST /application.info` with `submittedFormInstanceId` (ASHBY-OAS): the application and its
 *   candidate; a blocked submission answers `application_blocked` (ASHBY-OAS).
 * - `POST /surveySubmission.create` {candidateId, applicationId, surveyFormDefinitionId,
 *   submittedValues} (ASHBY-OAS; values "keys … should be the IDs from the associated survey's form
 *   definition" in one text, "A map of form field paths" in another: the double keys them by path,
 *   like submittedValues everywhere else), values checked as for the application form.
 * - Another key: HTTP 401. ASHBY-ERRORS and ASHBY-OAS are silent on the answer to a wrong key;
 *   401 is what HTTP Basic authentication answers.
 */
export async function startAshbyApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const postings = new Map(fixture.postings.map(({ published, posting }) => [posting.id, { published, posting }]));
  const appliedEmails = new Set<string>();
  const instances = new Map<string, { blocked: boolean; applicationId: string; candidateId: string; jobPostingId: string }>();
  let sequence = 0;
  const next = () => `7b000000-0000-4000-8000-${String((sequence += 1)).padStart(12, '0')}`;

  return startVendorDouble(
    (request) => {
      if (request.method !== 'POST') return null;
      if (request.path === '/api/non-user-graphql') {
        const variables = (request.json as { variables?: { jobPostingId?: string; organizationHostedJobsPageName?: string } } | undefined)
          ?.variables;
        const found = variables?.organizationHostedJobsPageName === 'acme' ? postings.get(variables.jobPostingId ?? '') : undefined;
        return { reply: { status: 200, body: { data: { jobPosting: found?.published ? hostedPosting(found.posting) : null } } } };
      }
      if (request.headers.authorization !== basicUser(options.key))
        return {
          reply: {
            status: 401,
            body: {
              success: false,
              errors: ['invalid_api_key'],
              errorInfo: { code: 'invalid_api_key', message: 'The API key is not valid' },
            },
          },
        };
      const body = isObject(request.json) ? request.json : {};
      if (request.path === '/jobPosting.info') {
        const found = postings.get(String(body['jobPostingId'] ?? ''));
        return {
          reply: found ? ok({ ...found.posting, isListed: found.published }) : failure('job_posting_not_found', 'Job posting not found'),
        };
      }
      if (request.path === '/application.info') {
        const instance = instances.get(String(body['submittedFormInstanceId'] ?? ''));
        if (!instance) return { reply: failure('application_not_found', 'Application not found') };
        if (instance.blocked) return { reply: failure('application_blocked', 'The application was blocked by application limits') };
        return {
          reply: ok({
            id: instance.applicationId,
            status: 'Active',
            candidate: { id: instance.candidateId },
            job: { id: instance.jobPostingId },
          }),
        };
      }
      if (request.path === '/surveySubmission.create') return { accept: () => submitSurvey(body) };
      if (request.path === '/applicationForm.submit') return { accept: () => submitApplication(request) };
      return null;
    },
    (url) => ({ ashby: url, ashbyApi: url }),
  );

  function submitApplication(request: ReceivedRequest): DoubleReply {
    const part = (name: string) => request.parts.find(([key]) => key === name)?.[1];
    const json = isObject(request.json) ? request.json : undefined;
    if (!json && request.parts.length === 0)
      return failure('invalid_input', 'The Content-Type of this request must be multipart/form-data or application/json');
    const read = (name: string): unknown => {
      if (json) return json[name];
      const value = part(name);
      if (typeof value !== 'string') return undefined;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    };
    const jobPostingId = json ? json['jobPostingId'] : part('jobPostingId');
    const found = postings.get(String(jobPostingId ?? ''));
    if (!found) return failure('job_posting_not_found', 'Job posting not found');
    if (!found.published && read('allowSubmissionForUnpublishedJobPosting') === false)
      return failure('job_posting_not_published', 'The job posting is not published');
    const form = read('applicationForm');
    const submissions = isObject(form) && Array.isArray(form['fieldSubmissions']) ? (form['fieldSubmissions'] as unknown[]) : null;
    if (!submissions || !submissions.every((entry) => isObject(entry) && typeof entry['path'] === 'string' && 'value' in entry))
      return failure('invalid_input', 'applicationForm.fieldSubmissions must be a list of { path, value }');
    const files = new Set(request.parts.filter(([, value]) => typeof value !== 'string').map(([name]) => name));
    const entries = new Map(fieldsOf(found.posting.applicationFormDefinition).map((entry) => [entry.field.path, entry]));
    const given = new Map<string, unknown>();
    for (const entry of submissions as Array<{ path: string; value: unknown }>)
      if (entries.has(entry.path)) given.set(entry.path, entry.value);
    const problems: string[] = [];
    for (const [path, entry] of entries) {
      const value = given.get(path);
      if (isBlank(value)) {
        if (entry.isRequired) problems.push(`Missing required field: ${entry.field.title || path}`);
        continue;
      }
      const wrong = invalidValue(entry, value, files);
      if (wrong) problems.push(wrong);
    }
    const email = String(given.get('_systemfield_email') ?? '').toLowerCase();
    if (email === 'testing-fail-validation@example.com') problems.push('Simulated validation failure');
    if (problems.length > 0) return failure('invalid_input', problems.join('; '));
    const instanceId = next();
    const key = `${found.posting.id}|${email}`;
    const blocked = appliedEmails.has(key);
    instances.set(instanceId, { blocked, applicationId: next(), candidateId: next(), jobPostingId: found.posting.id });
    appliedEmails.add(key);
    const formMessages = blocked
      ? {
          blocked: true,
          blockMessageForCandidateHtml:
            '<div><p>Please note: we accept one application per candidate for this role in any 60 day span.</p></div>',
        }
      : { blocked: false };
    return ok({
      submittedFormInstance: {
        id: instanceId,
        formDefinition: found.posting.applicationFormDefinition,
        submittedValues: Object.fromEntries(given),
      },
      formMessages,
    });
  }

  function submitSurvey(body: Record<string, unknown>): DoubleReply {
    const application = [...instances.values()].find(
      (instance) => instance.applicationId === body['applicationId'] && instance.candidateId === body['candidateId'] && !instance.blocked,
    );
    if (!application) return failure('application_not_found', 'Application not found');
    const survey = postings
      .get(application.jobPostingId)
      ?.posting.surveyFormDefinitions.find((definition) => definition.id === body['surveyFormDefinitionId']);
    if (!survey) return failure('survey_form_definition_not_found', 'Survey form definition not found');
    const values = body['submittedValues'];
    if (!isObject(values)) return failure('invalid_input', 'submittedValues must be an object');
    const entries = new Map(fieldsOf(survey.formDefinition).map((entry) => [entry.field.path, entry]));
    const problems: string[] = [];
    for (const [path, entry] of entries) {
      const value = values[path];
      if (isBlank(value)) {
        if (entry.isRequired) problems.push(`Missing required field: ${entry.field.title || path}`);
      } else {
        const wrong = invalidValue(entry, value, new Set());
        if (wrong) problems.push(wrong);
      }
    }
    if (problems.length > 0) return failure('invalid_input', problems.join('; '));
    return ok({
      id: next(),
      surveyType: survey.surveyType,
      candidateId: application.candidateId,
      applicationId: application.applicationId,
      submittedValues: Object.fromEntries(Object.entries(values).filter(([path]) => entries.has(path))),
    });
  }
}
