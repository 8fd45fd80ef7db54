// Longer than 400 lines: one double of Workday's hosted application, its steps and the captured markup
// of each; the steps share the session the double keeps.
/**
 * Sources for Workday's hosted application as doubled here:
 * - The pages: the captures `workday/form.html` (the "My Experience" step), `upload.html` (the
 *   Resume/CV box) and `posting-open-d.html` (an open posting's Apply button) (cezkid/jobs
 *   `app/tests/fixtures/` @ b4a8136bfa07 and 29d25949c31a, MIT; provenance in
 *   packages/miner/fixtures/ats/README.md). Those are the upstream project's models of Workday's
 *   widgets as it measured them, not live markup.
 * - The steps' names, the account wall, "Save and Continue" keeping a value only after focus-out,
 *   the closed page "The page you are looking for doesn't exist." with no Apply, the cxs address's
 *   `HTTP_400 "You are not authorized to this job application"`:
 *   https://github.com/cezkid/jobs/blob/0b6588ec/app/docs/apply/workday.md.
 * - Success at Candidate Home (`…/jobTasks/completed/application`):
 *   https://github.com/cezkid/jobs/blob/5b3b88d6/app/docs/apply/sent.md.
 * Silent: Workday publishes no candidate-facing API. The e-mailed sign-in code, the shared
 * `myworkdaysite.com` host's own pages, where a draft resumes, and the other steps' questions are
 * modelled, not measured, and the comments below say so where they are used.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';
import { workdayFlowScript, workdayStyle } from './workday-page.ts';
import { answers, createWorkdayDrafts, type WorkdayApplication, type WorkdayFile } from './workday-drafts.ts';

export const workdayJobPath = '/acme/job/Remote/Software-Developer_R1';
/** The posting's path as on the shared myworkdaysite.com hosts, which name the tenant after `/recruiting/`. */
export const workdaySharedJobPath = '/recruiting/acme/External/job/Remote/Software-Developer_R1';
const cxs = '/wday/cxs/acme/External';
export const workdaySuccessPath = '/acme/userHome/jobTasks/completed/application';

/** The anonymised open posting of the fixture: blank at load, drawn ~1.5 s later, Apply = the `adventureButton` link. */
const postingFixture = () => readFileSync(new URL('../../../miner/fixtures/ats/workday/posting-open-d.html', import.meta.url), 'utf8');

type WorkdayKind = 'text' | 'textarea' | 'checkbox' | 'yesNo' | 'dropdown' | 'checkboxes' | 'date' | 'monthYear' | 'prompt' | 'file';
type WorkdayField = { key: string; label: string; kind: WorkdayKind; required: boolean; options?: string[] };
type WorkdayStep = { title: string; name: string; fields: WorkdayField[] };

/**
 * The steps of a Workday application as the research names them (My Information, My Experience,
 * Application Questions, Voluntary Disclosures, Review). "My Experience" is the fixture's model
 * of that step (form.html: work experience with a month/year "From", education with a degree
 * list, type-to-add skills) with the Resume/CV box of upload.html; the other steps' questions are
 * ones Workday tenants commonly ask, in the same widgets. Field keys name each box's value, as
 * the fixture's `data-key`s do.
 */
const steps: WorkdayStep[] = [
  {
    title: 'My Information',
    name: 'myInformation',
    fields: [
      {
        key: 'source',
        label: 'How Did You Hear About Us?',
        kind: 'dropdown',
        required: true,
        options: ['Job Board', 'LinkedIn', 'Referral'],
      },
      { key: 'previousWorker', label: 'Have you previously worked for Acme?', kind: 'yesNo', required: true },
      { key: 'firstName', label: 'Given Name(s)', kind: 'text', required: true },
      { key: 'lastName', label: 'Family Name', kind: 'text', required: true },
      { key: 'addressLine1', label: 'Address Line 1', kind: 'text', required: false },
      { key: 'city', label: 'City', kind: 'text', required: true },
      { key: 'postalCode', label: 'Postal Code', kind: 'text', required: false },
      { key: 'phoneNumber', label: 'Phone Number', kind: 'text', required: true },
    ],
  },
  {
    title: 'My Experience',
    name: 'myExperience',
    fields: [
      { key: 'jobTitle', label: 'Job Title', kind: 'text', required: true },
      { key: 'company', label: 'Company', kind: 'text', required: true },
      { key: 'location', label: 'Location', kind: 'text', required: false },
      { key: 'current', label: 'I currently work here', kind: 'checkbox', required: false },
      { key: 'startDate', label: 'From', kind: 'monthYear', required: true },
      { key: 'roleDescription', label: 'Role Description', kind: 'textarea', required: false },
      { key: 'school', label: 'School or University', kind: 'text', required: true },
      {
        key: 'degree',
        label: 'Degree',
        kind: 'dropdown',
        required: true,
        options: ['H.S. - High School', 'B.A. - Bachelor of Arts', 'B.S. - Bachelor of Science'],
      },
      { key: 'skills', label: 'Type to Add Skills', kind: 'prompt', required: false, options: ['Excel', 'SQL', 'Python'] },
      { key: 'resume', label: 'Resume/CV', kind: 'file', required: true },
    ],
  },
  {
    title: 'Application Questions',
    name: 'primaryQuestionnaire',
    fields: [
      {
        key: 'workAuthorization',
        label: 'Are you legally authorized to work in the United Kingdom?',
        kind: 'dropdown',
        required: true,
        options: ['Yes', 'No'],
      },
      {
        key: 'sponsorship',
        label: 'Will you now or in the future require sponsorship for employment?',
        kind: 'dropdown',
        required: true,
        options: ['Yes', 'No'],
      },
      { key: 'relocation', label: 'Would you relocate for this role?', kind: 'yesNo', required: false },
      {
        key: 'offices',
        label: 'Which offices would you work from?',
        kind: 'checkboxes',
        required: false,
        options: ['London', 'Manchester', 'Remote'],
      },
      { key: 'availableFrom', label: 'Earliest start date', kind: 'date', required: true },
      { key: 'motivation', label: 'Why Acme?', kind: 'textarea', required: false },
    ],
  },
  {
    title: 'Voluntary Disclosures',
    name: 'voluntaryDisclosures',
    fields: [
      { key: 'gender', label: 'Gender', kind: 'dropdown', required: false, options: ['Female', 'Male', 'I do not wish to answer'] },
      {
        key: 'veteranStatus',
        label: 'Veteran Status',
        kind: 'dropdown',
        required: false,
        options: ['I am not a veteran', 'I am a veteran', 'I do not wish to answer'],
      },
      {
        key: 'termsAndConditions',
        label: 'I consent to Acme processing my data as the privacy notice describes',
        kind: 'checkbox',
        required: true,
      },
    ],
  },
];

/** A question as the interface describes one (`Question` of the contracts), for the fields of these steps. */
export type WorkdayQuestion = {
  id: string;
  question: string;
  inputType: 'Text' | 'TextArea' | 'SelectOne' | 'SelectMultiple' | 'Date' | 'Boolean' | 'File';
  label: string;
  mandatory: boolean;
  options?: Array<{ answer: string; conditionalQuestions: [] }>;
};

const inputTypes: Record<WorkdayKind, WorkdayQuestion['inputType']> = {
  text: 'Text',
  textarea: 'TextArea',
  checkbox: 'Boolean',
  yesNo: 'Boolean',
  dropdown: 'SelectOne',
  checkboxes: 'SelectMultiple',
  date: 'Date',
  monthYear: 'Date',
  prompt: 'SelectMultiple',
  file: 'File',
};

/**
 * The questions of the double's steps as the page shows them, by field key: what the miner reads
 * behind the account (the tests compare the two), without the categories it adds.
 */
export function workdayQuestions(): WorkdayQuestion[] {
  return steps.flatMap((step) =>
    step.fields.map((field) => ({
      id: field.key,
      question: field.label,
      inputType: inputTypes[field.kind],
      label: step.title,
      mandatory: field.required,
      ...(field.options ? { options: field.options.map((answer) => ({ answer, conditionalQuestions: [] as [] })) } : {}),
    })),
  );
}

const datePart = (key: string, part: 'Month' | 'Day' | 'Year') =>
  `<input data-automation-id="dateSection${part}-input" data-key="${key}${part}" aria-label="${part}" placeholder="${part === 'Year' ? 'YYYY' : part === 'Month' ? 'MM' : 'DD'}" size="${part === 'Year' ? 4 : 2}">`;

function control(field: WorkdayField): string {
  const star = field.required ? '<abbr title="required">*</abbr>' : '';
  const label = `<label>${escapeHtml(field.label)}${star}</label>`;
  const options = field.options ?? [];
  const inner = (() => {
    switch (field.kind) {
      case 'text':
        return `<input type="text" data-key="${field.key}" aria-label="${escapeHtml(field.label)}">`;
      case 'textarea':
        return `<textarea data-key="${field.key}" aria-label="${escapeHtml(field.label)}"></textarea>`;
      case 'checkbox':
        return `<input type="checkbox" data-key="${field.key}" id="cb-${field.key}"><label for="cb-${field.key}">${escapeHtml(field.label)}${star}</label>`;
      case 'yesNo':
        return ['Yes', 'No']
          .map(
            (answer) =>
              `<input type="radio" name="${field.key}" value="${answer === 'Yes'}" data-key="${field.key}" id="${field.key}-${answer}"><label for="${field.key}-${answer}">${answer}</label>`,
          )
          .join('');
      case 'dropdown':
        return `<button type="button" aria-haspopup="listbox" data-key="${field.key}" data-options="${escapeHtml(JSON.stringify(options))}">Select One</button>`;
      case 'checkboxes':
        return options
          .map(
            (option, index) =>
              `<div><input type="checkbox" data-key="${field.key}" value="${escapeHtml(option)}" id="${field.key}-${index}"><label for="${field.key}-${index}">${escapeHtml(option)}</label></div>`,
          )
          .join('');
      case 'date':
        return `<div data-automation-id="dateInputWrapper">${datePart(field.key, 'Month')}/${datePart(field.key, 'Day')}/${datePart(field.key, 'Year')}</div>`;
      case 'monthYear':
        return `<div data-automation-id="dateInputWrapper">${datePart(field.key, 'Month')}/${datePart(field.key, 'Year')}</div>`;
      case 'prompt':
        return `<input role="combobox" aria-haspopup="listbox" aria-expanded="false" data-prompt="${field.key}" data-options="${escapeHtml(JSON.stringify(options))}" placeholder="Search"><div role="listbox" data-automation-id="promptList" hidden></div>`;
      case 'file':
        return `<div data-automation-id="file-upload-drop-zone">Drop file here or <input type="file" data-automation-id="file-upload-input-ref" data-key="${field.key}"></div><div data-automation-id="file-upload-items"></div>`;
    }
  })();
  const wrapped = field.kind === 'checkbox' ? inner : `${label}${inner}`;
  return `<div data-automation-id="formField-${field.key}" class="field">${wrapped}<div class="errors"></div></div>`;
}

const stepHtml = (step: WorkdayStep, index: number) =>
  `<section data-step="${step.name}" hidden><h2 data-automation-id="progressBarActiveStep">${escapeHtml(step.title)}</h2><p>Step ${index + 1} of ${steps.length + 1}</p>${step.fields.map(control).join('\n')}</section>`;

/** The Workday double, with what the tenant saw and kept besides the requests. */
export type WorkdayVendor = HostedVendor & {
  signIns: Array<{ email: string; accepted: boolean }>;
  /** The applications Submit sent the employer, in order: each the draft as it stood, files with their bytes. */
  submitted: WorkdayApplication[];
  /** The account's draft of the posting's application (files with their bytes), or undefined when it has none. */
  draftOf(email: string): Record<string, unknown> | undefined;
  /** Values and files an earlier attempt saved in the account's draft of the posting, over what it holds. */
  keepInDraft(email: string, values: Record<string, unknown>, files?: Record<string, WorkdayFile[]>): void;
};

/**
 * Where the page resumes a draft (neither was measured): at the first step, every step shown again
 * with what it saved (the double's default), or at the first step the draft has not saved.
 */
export type WorkdayResume = 'fromFirstStep' | 'afterLastSaved';

/**
 * Where the double serves the posting (and its application beneath it): as on a tenant's own host,
 * `{tenant}.wd{N}.myworkdayjobs.com` (the default), or as on a shared `wd{N}.myworkdaysite.com`,
 * whose path names the tenant (`/recruiting/acme/External/job/…`). Same pages and steps: only
 * the addresses and the canonical link differ (the shared host's own pages were not captured).
 */
export type WorkdayAddress = 'tenantHost' | 'sharedHost';

/**
 * A candidate account the tenant knows; `emailCode`: past its password the tenant asks for a
 * code it e-mails to the account (modelled: Workday's page for it was not captured).
 */
export type WorkdayAccount = { email: string; password: string; emailCode?: boolean };

/** What the tenant says to a wrong password (the wording was not measured). */
export const workdayWrongPasswordText = 'Wrong email address or password.';

/**
 * Workday's hosted application ({tenant}.wd{N}.myworkdayjobs.com): the fixture's posting page
 * whose Apply link leads to "Start Your Application" (Apply Manually), then the account wall (a
 * "Create Account" page with a "Sign In" link, the sign-in form), then the steps (`steps` above)
 * and Review with Submit. Closed: "The page you are looking for doesn't exist." with no Apply.
 * Refused file: the upload's error under the Resume/CV box (upload.html's wording, unmeasured).
 * Missing answer: the tenant's "The field … is required and must have a value." on Save and
 * Continue (the wording of upload.html; the fixture's re-render wipes kept answers this way).
 * Sign-in attempts are counted: a wrong password must be tried once, never again. Each account
 * has one draft of the posting's application (`workday-drafts.ts`): every accepted save keeps its
 * step there, the page shows it again at the next sign-in, and Submit sends it to the employer
 * (`submitted`).
 */
export function workdayHostedVendor(
  accounts: WorkdayAccount | WorkdayAccount[],
  options: { resume?: WorkdayResume; address?: WorkdayAddress } = {},
): WorkdayVendor {
  const known = Array.isArray(accounts) ? accounts : [accounts];
  const shared = options.address === 'sharedHost';
  const jobPath = shared ? workdaySharedJobPath : workdayJobPath;
  const applyPath = `${jobPath}/apply`;
  const manualPath = `${applyPath}/applyManually`;
  const successPath = shared ? '/recruiting/acme/External/userHome/jobTasks/completed/application' : workdaySuccessPath;
  const canonical = shared
    ? `https://wd5.myworkdaysite.com${workdaySharedJobPath}`
    : `https://acme.wd5.myworkdayjobs.com/en-US/External${workdayJobPath.slice('/acme'.length)}`;
  const signIns: Array<{ email: string; accepted: boolean }> = [];
  // The account each session signed in, by its token.
  const sessions = new Map<string, string>();
  const drafts = createWorkdayDrafts(steps);
  const head = `<link rel="canonical" href="${canonical}">${workdayStyle}`;
  const posting = postingFixture()
    .replace('<head><meta charset="utf-8">', `<head><meta charset="utf-8">${head}`)
    .replace('href="/acme/job/Remote/Software-Developer_R1/apply"', `href="${applyPath}"`);
  const closed = htmlPage(
    'Acme Careers',
    head,
    '<div data-automation-id="errorContainer"><h2 data-automation-id="errorMessage">The page you are looking for doesn\'t exist.</h2><button type="button">Search for Jobs</button></div>',
    '',
  );
  const start = htmlPage(
    'Start Your Application - Acme',
    head,
    `<div data-automation-id="applyFlowPage"><h2>Start Your Application</h2><a data-automation-id="autofillWithResume" href="#">Autofill with Resume</a> <a data-automation-id="applyManually" role="button" href="${manualPath}">Apply Manually</a> <a data-automation-id="useMyLastApplication" href="#">Use My Last Application</a></div>`,
    '',
  );
  const application = htmlPage(
    'Software Developer - Acme',
    head,
    `<div data-automation-id="applyFlowPage"><h1>Software Developer</h1>
<div id="account">
  <div data-automation-id="createAccountPage"><h2>Create Account</h2><label>Email Address* <input type="email" data-automation-id="createAccountEmail"></label>
    <label>Password* <input type="password" data-automation-id="createAccountPassword"></label><button type="button" data-automation-id="createAccountSubmitButton">Create Account</button>
    <p>Already have an account? <button type="button" data-automation-id="signInLink">Sign In</button></p></div>
  <div data-automation-id="signInContent" hidden><h2>Sign In</h2><label>Email Address* <input type="email" data-automation-id="email"></label>
    <label>Password* <input type="password" data-automation-id="password"></label><button type="button" data-automation-id="signInSubmitButton">Sign In</button></div>
</div>
<div id="flow" hidden>${steps.map(stepHtml).join('\n')}
  <section id="review" hidden><h2 data-automation-id="progressBarActiveStep">Review</h2><p>Check your application before you submit it.</p></section>
  <div data-automation-id="pageFooter"><button type="button" data-automation-id="bottom-navigation-next-button" id="next">Save and Continue</button>
  <button type="button" data-automation-id="bottom-navigation-next-button" id="submit" hidden>Submit</button></div>
</div>
<div id="popup" role="listbox" hidden></div></div>`,
    workdayFlowScript(cxs, successPath),
  );
  const stepsByName = new Map(steps.map((step) => [step.name, step]));
  const refused = (status: number, errorMessage: string): HostedReply => ({ status, json: { errorMessage } });
  const notAuthorized = refused(400, 'You are not authorized to this job application');
  const sessionOf = (request: HostedRequest) => {
    const token =
      request.parts.find(([name]) => name === 'sessionToken')?.[1] ??
      (request.json as { sessionToken?: unknown } | undefined)?.sessionToken;
    return typeof token === 'string' ? sessions.get(token) : undefined;
  };
  return {
    ats: 'workday',
    applyPath: jobPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField'],
    signIns,
    submitted: drafts.submitted,
    draftOf: (email) => drafts.draftOf(email, jobPath),
    keepInDraft: (email, values, files) => drafts.keep(email, jobPath, values, files),
    page: (variant) => ({ status: 200, html: variant === 'closed' ? closed : posting }),
    post: (request, variant) => {
      if (request.path === `${cxs}/signin`) {
        const given = (request.json ?? {}) as { email?: string; password?: string };
        const matched = known.find((account) => given.email === account.email && given.password === account.password);
        const accepted = Boolean(matched);
        signIns.push({ email: String(given.email), accepted });
        if (!matched) return { kind: 'read', reply: refused(401, workdayWrongPasswordText) };
        // No session until the e-mailed code is typed: the page asks for it.
        if (matched.emailCode) return { kind: 'read', reply: { status: 200, json: { verification: 'emailCode' } } };
        const token = `session-${signIns.length}-${Date.now()}`;
        sessions.set(token, String(given.email));
        return { kind: 'read', reply: { status: 200, json: { sessionToken: token } } };
      }
      const email = sessionOf(request);
      if (!email) return { kind: 'read', reply: notAuthorized };
      if (request.path === `${cxs}/attachments`) {
        if (variant === 'invalidFile') return { kind: 'early', reply: refused(400, 'This file type is not allowed.') };
        const file = request.parts.find(([name]) => name === 'file')?.[1];
        if (!file || typeof file === 'string') return { kind: 'early', reply: refused(400, 'No file was received.') };
        return { kind: 'early', reply: { status: 200, json: { id: drafts.upload(email, { name: file.filename, bytes: file.bytes }) } } };
      }
      const body = (request.json ?? {}) as { job?: string; values?: Record<string, unknown> };
      const job = String(body.job);
      if (request.path === `${cxs}/jobapplication/draft`) {
        const { values, savedSteps } = drafts.read(email, job);
        return { kind: 'read', reply: { status: 200, json: { values, step: options.resume === 'afterLastSaved' ? savedSteps : 0 } } };
      }
      if (request.path === `${cxs}/jobapplication/submit`) {
        drafts.submit(email, job);
        return { kind: 'submission', reply: { status: 200, json: { status: 'submitted' } } };
      }
      const step = stepsByName.get(request.path.slice(`${cxs}/jobapplication/`.length));
      if (!step) return { kind: 'read', reply: { status: 404, json: {} } };
      const values = body.values ?? {};
      const missing = step.fields.filter((field) => field.required && !answers(field, values));
      if (variant === 'missingField' && step.name === 'myExperience') missing.unshift(step.fields[0] as WorkdayField);
      if (missing.length > 0)
        return {
          kind: 'early',
          reply: {
            status: 400,
            json: {
              errors: missing.map((field) => ({
                field: field.key,
                message: `The field ${field.label} is required and must have a value.`,
              })),
            },
          },
        };
      drafts.save(email, job, step.name, values);
      return { kind: 'early', reply: { status: 200, json: { saved: step.name } } };
    },
    extraPages: {
      [applyPath]: { status: 200, html: start },
      [manualPath]: { status: 200, html: application },
      [successPath]: {
        status: 200,
        html: htmlPage(
          'Candidate Home - Acme',
          head,
          '<div data-automation-id="candidateHomePage"><h2>My Applications</h2><p>Software Developer — Submitted. Your application was submitted.</p></div>',
          '',
        ),
      },
    },
  };
}

/** What a Workday application saved, merged over its steps, with the résumé's bytes by its attachment. */
export function workdaySaved(writes: HostedRequest[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const write of writes) {
    const file = write.parts.find(([name]) => name === 'file')?.[1];
    if (file && typeof file !== 'string') values.set('upload resume', { bytes: file.bytes });
    for (const [key, value] of Object.entries(((write.json ?? {}) as { values?: Record<string, unknown> }).values ?? {}))
      values.set(key, value);
  }
  return values;
}
