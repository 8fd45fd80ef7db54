import { readdirSync, readFileSync } from 'node:fs';
import { startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * JazzHR, rebuilt from its published material:
 * - JAZZ-DOCS  https://www.resumatorapi.com/v1/ (Applicants: POST /v1/applicants; Jobs: GET /v1/jobs, 100 a page,
 *   further pages at /v1/jobs/page/{n}); the key travels as `apikey`.
 * - HRFLOW-SCHEMA  Riminder/hrflow-connectors@d9304cf89167fc6cb939a8fbe3d08c35371945c5:src/hrflow_connectors/v2/connectors/jazzhr/schemas.py
 *   (`JazzHrApplicants`: the applicant POST's parameters, in the docs' order; `JazzHrJobs`: a job's `canned_*` settings).
 * - HRFLOW-AISLE  same commit, …/jazzhr/aisles.py (`write_applicants`: 201 is success).
 * - PROSPECT  a public TypeScript client's `ApplicantPostRequest {first_name,last_name,email,phone,apikey,"base64-resume"}` →
 *   `ApplicantPostResponse {prospect_id}` (code corpus excerpt, repository unnamed; the same names as JAZZ-DOCS).
 * - CEZ  cezkid/jobs@34824bb8:app/docs/apply/jazzhr.md (the apply page: `resumator-<field>-value` boxes, questionnaire
 *   `resumator-questionnaire[n]`, EEO selects with numeric codes, 410 "This position is no longer available").
 *
 * Where they are silent, and what the double does then:
 * - The values of `canned_*` are not listed anywhere found: the postings say `required` / `optional` / `hidden`.
 * - Error bodies of the applicant POST are not published: the double answers `{ "error": "<text>" }` (as the
 *   public clients read it) with 400 for a missing required parameter (first_name, last_name, email: JAZZ-DOCS
 *   marks them required) or a job that is not the account's, 401 for another key. No duplicate refusal is
 *   documented: a repeat is accepted (JazzHR keeps one prospect per apply).
 * - Parameters JAZZ-DOCS does not list are ignored, as a form-encoded API does; the double keeps, per applicant,
 *   only the documented parameters (`kept`), which is what reached the employer.
 * - The questionnaire has no POST parameter in JAZZ-DOCS (questionnaire answers are read-only there): it lives only
 *   on the apply page, which the double renders from each posting's `applyPage`.
 */

/** The applicant POST's documented parameters (JAZZ-DOCS via HRFLOW-SCHEMA; `base64-resume` spelled as JAZZ-DOCS and PROSPECT do). */
export const jazzApplicantParameters = [
  'apikey',
  'first_name',
  'last_name',
  'email',
  'apply_date',
  'address',
  'city',
  'state',
  'postal',
  'phone',
  'job',
  'workflow_step_id',
  'coverletter',
  'source',
  'referral',
  'license',
  'cdl',
  'relocate',
  'citizen',
  'college',
  'gpa',
  'over18',
  'flighthours',
  'flightgrade',
  'linkedin',
  'twitter',
  'website',
  'languages',
  'salary',
  'start',
  'weekends',
  'evenings',
  'overtime',
  'felony',
  'felonyexplain',
  'wmyu',
  'references',
  'eeo_gender',
  'eeo_race',
  'eeo_disability',
  'eeoc_veteran',
  'eeoc_disability',
  'eeoc_disability_signature',
  'eeoc_disability_date',
  'resumetext',
  'base64-resume',
] as const;

type QuestionnaireEntry = {
  id: number;
  text: string;
  type: 'select' | 'checkbox' | 'text' | 'textarea';
  required: boolean;
  options?: string[];
};
type JazzPosting = {
  job: Record<string, string> & { id: string; board_code: string; status: string; title: string };
  applyPage: { eeo: boolean; questionnaire: QuestionnaireEntry[] };
};

const postings: JazzPosting[] = readdirSync(new URL('../../fixtures/vendor-apis/jazzhr/', import.meta.url))
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => JSON.parse(readFileSync(new URL(`../../fixtures/vendor-apis/jazzhr/${name}`, import.meta.url), 'utf8')) as JazzPosting);

/** The postings of company `acme` on the double, by the board code of their apply page. */
export const jazzDoubleJobs = {
  /** Open; every apply-page box it shows has an applicant parameter (text, long text, date, address, résumé). */
  carried: 'QzPlat0001',
  /** Open; yes/no canned questions, education, a questionnaire (every kind) and EEO: page-only answers. */
  withQuestionnaire: 'QzWare0002',
  /** Listed by the API as Closed; its apply page answers 410. */
  closed: 'QzClos0009',
} as const;

const yesNo = [
  ['1', 'Yes'],
  ['0', 'No'],
] as const;
/**
 * The apply page's canned boxes by the job's `canned_*` key (HRFLOW-SCHEMA `JazzHrJobs`): the page box
 * `resumator-<field>-value`, its label and kind. The applicant parameter of the same name carries it
 * (CEZ names the boxes; HRFLOW-SCHEMA the parameters), except `education`, which has no parameter.
 */
const canned: Array<[key: string, field: string, label: string, kind: 'text' | 'textarea' | 'date' | 'yesno' | 'education']> = [
  ['canned_cover_letter', 'coverletter', 'Cover Letter', 'textarea'],
  ['canned_start', 'start', 'Date Available', 'date'],
  ['canned_salary', 'salary', 'Desired Salary', 'text'],
  ['canned_linked_in', 'linkedin', 'LinkedIn Profile URL', 'text'],
  ['canned_website', 'website', 'Website, Blog or Portfolio', 'text'],
  ['canned_twitter_username', 'twitter', 'Twitter Username', 'text'],
  ['canned_languages', 'languages', 'Languages Spoken', 'text'],
  ['canned_referral', 'referral', 'Who referred you?', 'text'],
  ['canned_college', 'college', 'College / University', 'text'],
  ['canned_gpa', 'gpa', 'College GPA', 'text'],
  ['canned_flighthours', 'flighthours', 'Flight Hours', 'text'],
  ['canned_flightgrade', 'flightgrade', 'Flight Grade', 'text'],
  ['canned_references', 'references', 'References', 'textarea'],
  ['canned_wmyu', 'wmyu', 'What makes you uniquely qualified?', 'textarea'],
  ['canned_felonyexplain', 'felonyexplain', 'If you have been convicted of a felony, please explain', 'textarea'],
  ['canned_weekends', 'weekends', 'Are you available to work weekends?', 'yesno'],
  ['canned_evenings', 'evenings', 'Are you available to work evenings?', 'yesno'],
  ['canned_overtime', 'overtime', 'Are you available to work overtime?', 'yesno'],
  ['canned_license', 'license', "Do you have a valid driver's license?", 'yesno'],
  ['canned_cdl', 'cdl', 'Do you have a CDL?', 'yesno'],
  ['canned_relocate', 'relocate', 'Are you willing to relocate?', 'yesno'],
  ['canned_citizen', 'citizen', 'Are you authorized to work in this country?', 'yesno'],
  ['canned_over18', 'over18', 'Are you 18 years of age or older?', 'yesno'],
  ['canned_felony', 'felony', 'Have you ever been convicted of a felony?', 'yesno'],
  ['canned_education', 'education', 'Highest Education Level', 'education'],
];

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
const asterisk = (required: boolean) => (required ? '<i class="asterisk">*</i>' : '');
const box = (field: string, label: string, required: boolean, control: string) =>
  `<div class='form-group'><label id='resumator-${field}-label' for='resumator-${field}-value' class='control-label'>${escape(label)}${asterisk(required)}</label>${control}</div>`;
const select = (name: string, options: ReadonlyArray<readonly [value: string, text: string]>, blank = true) =>
  `<select id="${name}" name="${name}" class="form-control">${blank ? "<option value='resumator_no_selection'>-- No answer --</option>" : ''}${options.map(([value, text]) => `<option value='${escape(value)}'>${escape(text)}</option>`).join('')}</select>`;
const radios = (name: string, options: ReadonlyArray<readonly [value: string, text: string]>) =>
  options
    .map(
      ([value, text], index) =>
        `<label class="radio" for="${name}_${index}"><input type="radio" id="${name}_${index}" name="${name}" value="${escape(value)}"/>${escape(text)}</label>`,
    )
    .join('');

/** The EEO block as CEZ measured it: numeric codes behind the words (the captured page's gender and race codes). */
function eeoBlock(): string {
  const gender = [
    ['0', 'Decline to answer'],
    ['1', 'Female'],
    ['2', 'Male'],
  ] as const;
  const race = [
    ['0', 'Decline to answer'],
    ['50', 'Hispanic or Latino'],
    ['51', 'White, not Hispanic or Latino'],
    ['52', 'Black or African-American, not Hispanic or Latino'],
    ['53', 'Asian, not Hispanic or Latino'],
  ] as const;
  const veteran = [
    ['0', 'I choose not to self-identify'],
    ['1', 'I identify as one or more of the classifications of protected veteran'],
    ['2', 'I am not a protected veteran'],
  ] as const;
  const disability = [
    ['1', 'Yes, I have a disability (or previously had a disability)'],
    ['2', 'No, I do not have a disability'],
    ['3', 'I do not wish to answer'],
  ] as const;
  return [
    `<div class='form-group'><label for=resumator-eeo_gender-value>Gender${select('resumator-eeo_gender-value', gender, false)}</label></div>`,
    `<div class='form-group'><label for=resumator-eeo_race-value>Race/Ethnicity${select('resumator-eeo_race-value', race, false)}</label></div>`,
    `<div class='form-group'><label id='resumator-eeoc_veteran-label' class='control-label'>Protected Veteran Status</label>${radios('resumator-eeoc_veteran-value', veteran)}</div>`,
    `<div class='form-group'><label id='resumator-eeoc_disability-label' class='control-label'>Disability Status</label>${radios('resumator-eeoc_disability-value', disability)}</div>`,
    `<div id="disability-signature-area">${box('eeoc_disability_signature', 'Your Name', false, "<input type='text' id='resumator-eeoc_disability_signature-value' name='resumator-eeoc_disability_signature-value' class='form-control'/>")}${box('eeoc_disability_date', "Today's Date", false, "<input type='date' id='resumator-eeoc_disability_date-value' name='resumator-eeoc_disability_date-value' class='form-control'/>")}</div>`,
  ].join('');
}

function questionnaireBlock(entry: QuestionnaireEntry): string {
  const name = `resumator-questionnaire[${entry.id}]`;
  const id = `resumator-questionnaire-q${entry.id}`;
  const label = `<label id='${id}-label' for='${id}' class='control-label'>${escape(entry.text)}${asterisk(entry.required)}</label>`;
  switch (entry.type) {
    case 'checkbox':
      return `<div class='form-group'>${label}<input type="hidden" name="${name}" id="${id}" class="resumator-questionnaire-checkbox-answer" value=""/>${(
        entry.options ?? []
      )
        .map(
          (option, index) =>
            `<label class="checkbox" for="resumator-checkbox-${entry.id}-${index + 1}"><input type="checkbox" id="resumator-checkbox-${entry.id}-${index + 1}" name="resumator-checkbox-${entry.id}-${index + 1}" class="resumator-questionnaire-checkbox" value="${escape(option)}"/>${escape(option)}</label>`,
        )
        .join('')}</div>`;
    case 'select':
      return `<div class='form-group'>${label}${select(
        name,
        (entry.options ?? []).map((option) => [option, option] as const),
      ).replace(`id="${name}"`, `id="${id}"`)}</div>`;
    case 'textarea':
      return `<div class='form-group'>${label}<textarea id="${id}" name="${name}" class="form-control"></textarea></div>`;
    default:
      return `<div class='form-group'>${label}<input type="text" id="${id}" name="${name}" class="form-control"/></div>`;
  }
}

/** The apply page JazzHR serves for a posting, in the structure CEZ measured (what the miner reads). */
function applyPage(posting: JazzPosting): string {
  const { job, applyPage: page } = posting;
  const setting = (key: string) => job[key] ?? 'hidden';
  const text = (field: string, label: string, required: boolean, type = 'text') =>
    box(
      field,
      label,
      required,
      `<input type='${type}' id='resumator-${field}-value' name='resumator-${field}-value' value='' class='form-control'/>`,
    );
  const parts = [
    text('firstname', 'First Name', true),
    text('lastname', 'Last Name', true),
    text('email', 'Email Address', true),
    text('phone', 'Phone', true),
  ];
  if (setting('canned_address') !== 'hidden') {
    const required = setting('canned_address') === 'required';
    const inputs = [
      ['address', 'Address'],
      ['city', 'City'],
      ['state', 'State/Province'],
      ['postal', 'Postal'],
    ]
      .map(
        ([field, placeholder]) =>
          `<input type='text' id='resumator-${field}-value' name='resumator-${field}-value' placeholder='${placeholder}' class='form-control'/>`,
      )
      .join('');
    parts.push(
      `<div class="form-group" id="resumator-address"><label id='resumator-address-label' for='resumator-address-value' class='control-label'>Address${asterisk(required)}</label>${inputs}</div>`,
    );
  }
  parts.push(
    `<div class="form-group" id="resumator-resume"><label id='resumator-resume-label' for='resumator-resume-value' class='control-label'>Resume${asterisk(true)}</label><input type='file' id='resumator-resume-value' name='resumator-resume-value'/><div class="resumator-resume-text">Attach resume as .pdf, .doc, .docx, .odt, .txt, or .rtf (limit 5MB)</div><div class="resumator-resume-text none"><textarea name='resumator-resumetext-value' class='none'></textarea></div></div>`,
  );
  for (const [key, field, label, kind] of canned) {
    const shown = setting(key);
    if (shown === 'hidden') continue;
    const required = shown === 'required';
    if (kind === 'textarea')
      parts.push(
        box(
          field,
          label,
          required,
          `<textarea id='resumator-${field}-value' name='resumator-${field}-value' class='form-control'></textarea>`,
        ),
      );
    else if (kind === 'yesno') parts.push(box(field, label, required, select(`resumator-${field}-value`, yesNo)));
    else if (kind === 'education')
      parts.push(
        box(
          field,
          label,
          required,
          select(`resumator-${field}-value`, [
            ['1', 'High School'],
            ['2', "Associate's Degree"],
            ['3', "Bachelor's Degree"],
            ['4', "Master's Degree"],
            ['5', 'Doctorate'],
          ]),
        ),
      );
    else parts.push(text(field, label, required, kind === 'date' ? 'date' : 'text'));
  }
  parts.push(...page.questionnaire.map(questionnaireBlock));
  if (page.eeo) parts.push(eeoBlock());
  const hidden = `<input type='hidden' name='resumator-job-value' value='${escape(job.id)}'/><input type='hidden' name='resumator-subdomain-value' value='acme'/>`;
  return `<!doctype html><html><head><title>${escape(job.title)} - Acme</title></head><body><h1>${escape(job.title)}</h1><form id="form_submit_new_resume" method="POST" enctype="multipart/form-data">${hidden}${parts.join('\n')}<a id="resumator-submit-resume" href="#">Submit Application</a></form></body></html>`;
}

/**
 * JazzHR on loopback, one base URL for its two hosts: the apply pages under `/apply-site/{company}`
 * (`GET /apply/{board code}/{slug}`, what the miner reads) and the API under `/api`:
 * `GET /v1/jobs` (and `/v1/jobs/page/{n}`) with `apikey` in the query, `POST /v1/applicants` (JSON, `apikey` in the body).
 * `applicants()` is what JazzHR kept of each accepted applicant: its documented parameters only.
 */
export async function startJazzApiDouble(options: {
  key: string;
}): Promise<VendorApiDouble & { applicants: () => Array<Record<string, unknown>> }> {
  const kept: Array<Record<string, unknown>> = [];
  const documented = new Set<string>(jazzApplicantParameters);
  const double = await startVendorDouble(
    (request) => {
      const page = /^\/apply-site\/acme\/apply\/([^/]+)(\/[^/]*)?$/.exec(request.path);
      if (page && request.method === 'GET') {
        const posting = postings.find((candidate) => candidate.job.board_code === page[1]);
        if (!posting) return { reply: { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } } };
        // CEZ: a closed posting's apply page is 410 with this sentence.
        if (posting.job.status !== 'Open')
          return {
            reply: { status: 410, body: '<h1>This position is no longer available</h1>', headers: { 'content-type': 'text/html' } },
          };
        return { reply: { status: 200, body: applyPage(posting), headers: { 'content-type': 'text/html; charset=utf-8' } } };
      }
      const jobs = /^\/api\/v1\/jobs(?:\/page\/(\d+))?$/.exec(request.path);
      if (jobs && request.method === 'GET') {
        if (request.query.get('apikey') !== options.key) return { reply: { status: 401, body: { error: 'Invalid API key' } } };
        // JAZZ-DOCS: 100 jobs a page; page 2 of this account is empty.
        const pageNumber = Number(jobs[1] ?? '1');
        return { reply: { status: 200, body: pageNumber === 1 ? postings.map((posting) => posting.job) : [] } };
      }
      if (request.path !== '/api/v1/applicants' || request.method !== 'POST') return null;
      const body = (request.json ?? {}) as Record<string, unknown>;
      if (body.apikey !== options.key) return { reply: { status: 401, body: { error: 'Invalid API key' } } };
      return {
        accept: () => {
          const blank = ['first_name', 'last_name', 'email'].filter((name) => (body[name] ?? '') === '');
          if (blank.length > 0) return { status: 400, body: { error: `${blank.join(', ')} is required` } };
          if (body.job !== undefined && !postings.some((posting) => posting.job.id === body.job))
            return { status: 400, body: { error: 'job: invalid job id' } };
          const applicant = Object.fromEntries(Object.entries(body).filter(([name]) => documented.has(name) && name !== 'apikey'));
          kept.push(applicant);
          // PROSPECT: the created applicant comes back as `prospect_id`; HRFLOW-AISLE: with 201.
          return { status: 201, body: { prospect_id: `prospect_20261128_${String(kept.length).padStart(6, '0')}` } };
        },
      };
    },
    (url) => ({ jazzhr: `${url}/apply-site/{company}`, jazzhrApi: `${url}/api` }),
  );
  return { ...double, applicants: () => [...kept] };
}
