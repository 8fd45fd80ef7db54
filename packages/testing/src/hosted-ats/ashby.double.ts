/**
 * Sources for Ashby's hosted form as doubled here:
 * - The posting: the captures `survey-kinds.json` and `consent-untitled.json` (cezkid/jobs
 *   `app/tests/fixtures/` @ 29d25949c31a, MIT; provenance in packages/miner/fixtures/ats/README.md).
 *   The field types the captures lack, and their frequency over 111 forms, come from the same
 *   project's measurements (https://github.com/cezkid/jobs/blob/0b76bf2e/app/docs/apply/ashby.md).
 * - Answers saved box by box (`ApiSetFormValue`), files to `ApiCreateFileUploadHandle` on choose,
 *   `div[data-field-path]` wrappers, Yes/No buttons with `aria-pressed`, "<file> failed to upload",
 *   the tenant banner "one application per role every 60 days", the posting query answering
 *   `jobPosting: null` when closed: ashby.md above.
 * - Confirmation at the same address (no page of its own): https://github.com/cezkid/jobs/blob/5b3b88d6/app/docs/apply/sent.md.
 * - The reCAPTCHA site key on the page (\`window.__appData.recaptchaPublicSiteKey\` and a hidden badge):
 *   two public research notes in other projects' code, found by searching code; neither is Ashby's
 *   own statement, and Ashby's documentation says nothing of it.
 * Silent: the wording of the closed page, the submit action's body, whether the reCAPTCHA ever
 * shows a checkbox. Where the double decides these, its comments say so. The sources disagree on a
 * second role at the same company (career-ops-hq/career-ops#1435 says it is rejected, an adapter
 * reads the same source as a silent merge); the double follows the tenant banner.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

type AshbyField = {
  path: string;
  title: string;
  type: string;
  selectableValues?: Array<{ label: string; value?: string }>;
  [part: string]: unknown;
};
type AshbyEntry = { isRequired: boolean; descriptionHtml?: string; field: AshbyField };
type AshbyForm = { sections: Array<{ fieldEntries: AshbyEntry[] }> };

export const ashbyPostingId = '0a1b2c3d-0000-4000-8000-00000000a5b1';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../miner/fixtures/ats/ashby/${name}`, import.meta.url), 'utf8')) as {
    title?: string;
    applicationForm: AshbyForm;
    surveyForms: AshbyForm[];
  };

/**
 * The posting the double serves: the fixture's application form (survey-kinds.json) with the
 * consent survey of consent-untitled.json, plus fields in the same shape for the types the
 * research counted across 111 Ashby forms that the two captures lack (e-mail, phone, résumé,
 * Boolean, Date, ValueSelect, MultiValueSelect, LongText).
 */
function ashbyPosting(): { title: string; applicationForm: AshbyForm; surveyForms: AshbyForm[] } {
  const kinds = fixture('survey-kinds.json');
  const consent = fixture('consent-untitled.json');
  const custom = (suffix: string, title: string, type: string, isRequired: boolean, values?: string[]): AshbyEntry => ({
    isRequired,
    field: {
      path: `0a1b2c3d-0000-4000-8000-0000000000${suffix}`,
      title,
      type,
      ...(values ? { selectableValues: values.map((label) => ({ label })) } : {}),
    },
  });
  const system = (path: string, title: string, type: string): AshbyEntry => ({ isRequired: true, field: { path, title, type } });
  const entries = kinds.applicationForm.sections[0]?.fieldEntries ?? [];
  return {
    title: kinds.title ?? 'Example Role',
    applicationForm: {
      sections: [
        {
          fieldEntries: [
            ...entries.slice(0, 1),
            system('_systemfield_email', 'Email', 'Email'),
            system('_systemfield_phone', 'Phone', 'Phone'),
            system('_systemfield_resume', 'Resume', 'File'),
            ...entries.slice(1),
            custom('b1', 'Will you now or in the future require visa sponsorship?', 'Boolean', true),
            custom('b2', 'Earliest start date', 'Date', true),
            custom('b3', 'Years of professional experience', 'ValueSelect', true, ['0-2', '3-5', '6+']),
            custom('b4', 'Which of these do you use every week?', 'MultiValueSelect', false, ['Python', 'SQL', 'TypeScript']),
            custom('b5', 'Why Acme?', 'LongText', false),
          ],
        },
      ],
    },
    surveyForms: consent.surveyForms,
  };
}

const educationParts: Array<[key: string, title: string, type: string]> = [
  ['schoolName', 'School', 'String'],
  ['degree', 'Degree', 'String'],
  ['major', 'Major', 'String'],
  ['startDate', 'Start Date', 'Date'],
  ['endDate', 'End Date', 'Date'],
];

let controlIds = 0;
function control(entry: AshbyEntry): string {
  const { field } = entry;
  const id = `field-${(controlIds += 1)}`;
  const title = `${escapeHtml(field.title || '')}${entry.isRequired ? '<span class="required">*</span>' : ''}`;
  const description = entry.descriptionHtml ? `<div class="description">${entry.descriptionHtml}</div>` : '';
  const wrap = (inner: string, kind = '') =>
    `<div class="ashby-application-form-field-entry ${kind}" data-field-path="${escapeHtml(field.path)}" data-type="${field.type}"><label class="title" for="${id}">${title}</label>${description}${inner}</div>`;
  switch (field.type) {
    case 'String':
    case 'Url':
      return wrap(`<input type="text" id="${id}">`);
    case 'Email':
      return wrap(`<input type="email" id="${id}">`);
    case 'Phone':
      return wrap(`<input type="tel" id="${id}">`);
    case 'LongText':
      return wrap(`<textarea id="${id}"></textarea>`);
    case 'Date':
      return wrap(`<input type="date" id="${id}">`);
    case 'Boolean':
      return wrap(
        `<div class="yesno"><button type="button" aria-pressed="false">Yes</button><button type="button" aria-pressed="false">No</button></div>`,
        'boolean',
      );
    case 'File':
      return wrap(`<input type="file" id="${id}" accept=".pdf,.doc,.docx"><span class="name"></span>`, 'upload');
    case 'ValueSelect':
    case 'MultiValueSelect': {
      const kind = field.type === 'ValueSelect' ? 'radio' : 'checkbox';
      return wrap(
        (field.selectableValues ?? [])
          .map(
            (value, index) =>
              `<span><input type="${kind}" id="${id}-${index}" name="${id}" value="${escapeHtml(value.value ?? value.label)}"><label for="${id}-${index}">${escapeHtml(value.label)}</label></span>`,
          )
          .join(''),
      );
    }
    case 'EducationHistory':
      return wrap(
        `<div class="entry">${educationParts
          .filter(([key]) => field[key] === 'required' || field[key] === 'optional')
          .map(([key, partTitle, type]) =>
            control({ isRequired: field[key] === 'required', field: { path: `${field.path}.${key}`, title: partTitle, type } }),
          )
          .join('')}</div>`,
        'education',
      );
    default:
      return '';
  }
}

/**
 * The page's own behaviour, as Ashby's was measured: every answer is saved as it is given
 * (GraphQL `ApiSetFormValue` with the field's path), a chosen file goes to
 * `ApiCreateFileUploadHandle` at once, Submit sends `ApiSubmitSingleApplicationFormAction` and the
 * form gives way to the confirmation at the same address.
 */
const script = `
const graphql = (op, body) => fetch('/api/non-user-graphql?op=' + op, body instanceof FormData ? { method: 'POST', body } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operationName: op, variables: body }) });
const save = (path, value) => graphql('ApiSetFormValue', { fieldPath: path, value });
const entryValue = (box) => {
  const type = box.dataset.type;
  if (type === 'Boolean') { const on = box.querySelector('[aria-pressed=true]'); return on ? on.textContent === 'Yes' : null; }
  if (type === 'ValueSelect') return box.querySelector('input:checked')?.value ?? null;
  if (type === 'MultiValueSelect') return [...box.querySelectorAll('input:checked')].map((input) => input.value);
  return box.querySelector('input, textarea').value;
};
for (const box of document.querySelectorAll('[data-field-path]')) {
  const path = box.dataset.fieldPath;
  const education = box.closest('.education');
  const saveBox = () => {
    if (education && education !== box) {
      const entry = {};
      for (const part of education.querySelectorAll('[data-field-path]')) if (part !== education) entry[part.dataset.fieldPath.split('.').pop()] = entryValue(part);
      return save(education.dataset.fieldPath, [entry]);
    }
    return save(path, entryValue(box));
  };
  if (box.classList.contains('education')) continue;
  if (box.dataset.type === 'Boolean') {
    const buttons = box.querySelectorAll('button');
    for (const button of buttons) button.addEventListener('click', () => {
      const on = button.getAttribute('aria-pressed') !== 'true';
      setTimeout(() => { for (const other of buttons) other.setAttribute('aria-pressed', String(on && other === button)); saveBox(); }, 200);
    });
  } else if (box.dataset.type === 'File') {
    const input = box.querySelector('input');
    input.addEventListener('change', async () => {
      const file = input.files[0], name = box.querySelector('.name');
      name.textContent = file.name + ' Replace';
      const body = new FormData(); body.append('fieldPath', path); body.append('file', file, file.name);
      const answer = await graphql('ApiCreateFileUploadHandle', body);
      if (!answer.ok) { const error = document.createElement('div'); error.className = 'error'; error.innerText = 'ERROR\\n' + file.name + ' failed to upload'; box.append(error); return; }
      save(path, { handle: (await answer.json()).data.createFileUploadHandle.handle });
    });
  } else {
    for (const input of box.querySelectorAll('input, textarea')) input.addEventListener('change', saveBox);
  }
}
document.getElementById('submit').addEventListener('click', async () => {
  const answer = await graphql('ApiSubmitSingleApplicationFormAction', {});
  const result = await answer.json();
  const form = document.getElementById('form');
  if (result.data?.submitSingleApplicationFormAction?.applicationFormResult?.__typename === 'FormSubmitSuccess') {
    form.outerHTML = '<div class="success"><h2>Application submitted</h2><p>Your application was successfully submitted. We will contact you if there are next steps.</p></div>';
    return;
  }
  const banner = document.createElement('div'); banner.setAttribute('role', 'alert'); banner.className = 'ashby-application-form-errors';
  banner.textContent = result.data?.submitSingleApplicationFormAction?.applicationFormResult?.message ?? 'Something went wrong';
  form.prepend(banner);
});`;

const recaptcha = `<div class="g-recaptcha" data-sitekey="6Lc-ashby" style="width:304px;height:78px;border:1px solid #d3d3d3"><span>I'm not a robot</span></div>`;

/**
 * Ashby's hosted form (jobs.ashbyhq.com/{org}/{id}/application) built from the posting above:
 * every field in its `div[data-field-path]`, Yes/No buttons marked by `aria-pressed`, radios and
 * checkboxes by label. It also answers the miner's `ApiJobPosting` query with the same posting.
 * Closed: "Job not found" (the posting query answers `jobPosting: null`; the page wording is
 * unmeasured). Duplicate: the tenant banner "one application per role every 60 days". Refused
 * file: "<file> failed to upload". Bot check: a reCAPTCHA checkbox on load (the page ships a
 * reCAPTCHA site key; whether it ever shows a checkbox is unmeasured).
 */
export function ashbyHostedVendor(): HostedVendor {
  const posting = ashbyPosting();
  const applyPath = `/acme/${ashbyPostingId}/application`;
  const form = (botCheck: boolean) =>
    htmlPage(
      `${posting.title} @ Acme`,
      `<link rel="canonical" href="https://jobs.ashbyhq.com${applyPath}"><style>.yesno button[aria-pressed=true]{background:#333;color:#fff}</style>`,
      `<main><h1>${escapeHtml(posting.title)}</h1>${botCheck ? recaptcha : ''}<div id="form">${[
        ...posting.applicationForm.sections,
        ...posting.surveyForms.flatMap((survey) => survey.sections),
      ]
        .flatMap((section) => section.fieldEntries)
        .map(control)
        .join('\n')}<button type="button" id="submit">Submit Application</button></div></main>`,
      botCheck ? '' : script,
    );
  const submitResult = (applicationFormResult: unknown): HostedReply => ({
    status: 200,
    json: { data: { submitSingleApplicationFormAction: { applicationFormResult } } },
  });
  const operation = (request: HostedRequest) => request.query.get('op');
  return {
    ats: 'ashby',
    applyPath,
    variants: ['accept', 'closed', 'duplicate', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? {
            status: 200,
            html: htmlPage(
              'Jobs at Acme',
              '',
              '<main><h2>Job not found</h2><p>The job posting is no longer open. See all open jobs at Acme.</p></main>',
              '',
            ),
          }
        : { status: 200, html: form(variant === 'botCheck') },
    post: (request, variant) => {
      switch (operation(request)) {
        case 'ApiJobPosting':
          return { kind: 'read', reply: { status: 200, json: { data: { jobPosting: variant === 'closed' ? null : posting } } } };
        case 'ApiCreateFileUploadHandle':
          if (variant === 'invalidFile')
            return { kind: 'early', reply: { status: 400, json: { errors: [{ message: 'File type not allowed' }] } } };
          return {
            kind: 'early',
            reply: { status: 200, json: { data: { createFileUploadHandle: { handle: `file-handle-${Date.now()}` } } } },
          };
        case 'ApiSetFormValue':
          return { kind: 'early', reply: { status: 200, json: { data: { setFormValue: { ok: true } } } } };
        default:
          if (variant === 'duplicate')
            return {
              kind: 'submission',
              reply: submitResult({
                __typename: 'FormSubmitBlocked',
                message: 'You have already applied to this job. Acme accepts one application per role every 60 days.',
              }),
            };
          if (variant === 'missingField')
            return {
              kind: 'submission',
              reply: submitResult({
                __typename: 'FormSubmitInvalid',
                message: 'Missing entry for required field: Phone. This field is required.',
              }),
            };
          return { kind: 'submission', reply: submitResult({ __typename: 'FormSubmitSuccess' }) };
      }
    },
  };
}

/** The answers Ashby kept, by field path: the last value each `ApiSetFormValue` saved, files by the bytes behind their handle. */
export function ashbySavedValues(writes: HostedRequest[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const files = new Map<string, Buffer>();
  for (const write of writes) {
    if (write.query.get('op') === 'ApiCreateFileUploadHandle') {
      const path = write.parts.find(([name]) => name === 'fieldPath')?.[1];
      const file = write.parts.find(([name]) => name === 'file')?.[1];
      if (typeof path === 'string' && file && typeof file !== 'string') files.set(path, file.bytes);
    }
    if (write.query.get('op') === 'ApiSetFormValue') {
      const { fieldPath, value } = (write.json as { variables: { fieldPath: string; value: unknown } }).variables;
      values.set(fieldPath, value);
    }
  }
  for (const [path, bytes] of files) if (values.has(path)) values.set(path, { bytes });
  return values;
}
