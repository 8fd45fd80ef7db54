/**
 * Sources for Manatal's hosted form as doubled here:
 * - The definition (`GET /api/v1.0/jobs/{id}/application-form/`): the captures `manatal/tenant-a.json`
 *   and `tenant-b.json` (cezkid/jobs `app/tests/fixtures/` @ d33c5b21399a, MIT; provenance in
 *   packages/miner/fixtures/ats/README.md).
 * - Boxes `#field<id>`, the terms box `terms_and_condition`, nothing sent before Submit (a presigned
 *   address, the résumé to storage, then the answers), the 404 of a closed apply page, the refused
 *   file's wording, the AWS WAF challenge (`x-amzn-waf-action: challenge`):
 *   https://github.com/cezkid/jobs/blob/14b6605d/app/docs/apply/manatal.md.
 * Silent: the answers' body, the success wording, duplicates (Manatal publishes no apply API to
 * say). Where the double decides these, its comments say so.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

type ManatalField = {
  id: number;
  label: string;
  is_required: boolean;
  client_field_field_type: string;
  client_field_answer_choices: string[];
  response_type: string;
  field_type: string;
};

export const manatalJobPath = '/acme/job/AbCdEf0123456789/apply';
/** The numeric id the apply page names (`selectedJobId`); the form definition is addressed by it. */
const manatalJobId = '4242';

/** The form definition of the fixture (tenant-b.json), as `GET /api/v1.0/jobs/{id}/application-form/` serves it. */
const manatalForm = (): ManatalField[] =>
  JSON.parse(readFileSync(new URL('../../../miner/fixtures/ats/manatal/tenant-b.json', import.meta.url), 'utf8')) as ManatalField[];

const manatalInvalidFileText = 'This file is invalid. Supported formats include PDF, DOC, DOCX, or RTF (max 20MB).';

/** One box per definition entry: `#field<id>`, named by the id; list types as checkboxes, files as a file input. */
function control(field: ManatalField): string {
  const id = `field${field.id}`;
  const label = `<label for="${id}">${escapeHtml(field.label)}${field.is_required ? ' <span class="required">*</span>' : ''}</label>`;
  if (field.field_type === 'resume' || field.field_type === 'attachment')
    return `<div class="form-group">${label}<input type="file" id="${id}" name="${field.id}" accept=".pdf,.doc,.docx,.rtf"></div>`;
  if (field.client_field_field_type === 'checkbox' || field.client_field_field_type === 'multiple_select_dropdown')
    return `<fieldset class="form-group" id="${id}"><legend>${escapeHtml(field.label)}${field.is_required ? ' *' : ''}</legend>${field.client_field_answer_choices
      .map(
        (choice, index) =>
          `<div><input type="checkbox" id="${id}_${index}" name="${field.id}" value="${escapeHtml(choice)}"><label for="${id}_${index}">${escapeHtml(choice)}</label></div>`,
      )
      .join('')}</fieldset>`;
  if (field.response_type === 'longtext')
    return `<div class="form-group">${label}<textarea id="${id}" name="${field.id}"></textarea></div>`;
  return `<div class="form-group">${label}<input type="text" id="${id}" name="${field.id}"></div>`;
}

/**
 * What the page does at Submit, in the order the research measured (nothing leaves before it):
 * a presigned address for the résumé, the résumé to storage, then the answers. The answers' body
 * was never observed: it is sent here as JSON keyed by definition id (lists as lists, the terms box
 * as a boolean), the résumé by its stored key.
 */
const script = (jobId: string) => `
const form = document.getElementById('application-form');
const alert = (text) => { const box = document.getElementById('form-errors'); box.textContent = text; box.hidden = false; };
document.getElementById('submit').addEventListener('click', async () => {
  document.getElementById('form-errors').hidden = true;
  const answers = {};
  let resume = null, resumeField = null;
  for (const control of form.querySelectorAll('input[name]:not([name=terms_and_condition]), textarea[name]')) {
    if (control.type === 'file') { resume = control.files[0] ?? null; resumeField = control.name; continue; }
    if (control.type === 'checkbox') { answers[control.name] ??= []; if (control.checked) answers[control.name].push(control.value); continue; }
    answers[control.name] = control.value;
  }
  let resumeKey = null;
  if (resume) {
    const presigned = await fetch('/api/v1.0/jobs/apply-by-career-page-resume-get-presigned-url/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file_name: resume.name }) });
    const target = await presigned.json();
    if (!presigned.ok) return alert(target.detail);
    const body = new FormData(); body.append('key', target.key); body.append('file', resume, resume.name);
    const stored = await fetch(target.url, { method: 'POST', body });
    if (!stored.ok) return alert('Upload failed.');
    answers[resumeField] = target.key;
  }
  const terms = form.querySelector('[name=terms_and_condition]').checked;
  const answer = await fetch('/api/v1.0/jobs/${jobId}/apply-by-career-page/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answers, terms_and_condition: terms }) });
  const reply = await answer.json();
  if (answer.ok) { form.outerHTML = '<div class="success"><h2>Thank you for applying!</h2><p>Your application has been submitted successfully.</p></div>'; return; }
  alert(Object.entries(reply.errors ?? {}).map(([id, messages]) => (document.querySelector('label[for=field' + id + ']')?.textContent ?? id) + ': ' + messages.join(' ')).join(' ') || reply.detail);
});`;

/**
 * Manatal's hosted form (www.careers-page.com/{client}/job/{hash}/apply) built from the fixture's
 * form definition, which it also serves to the miner: boxes `#field<id>` named by the definition
 * id, the terms box (`terms_and_condition`, optional on this tenant), everything sent at Submit.
 * Closed: 404 on the apply page. Refused file: "This file is invalid. Supported formats include
 * PDF, DOC, DOCX, or RTF (max 20MB)." Bot check: the AWS WAF challenge (`x-amzn-waf-action:
 * challenge`). Duplicates: undocumented, so none. Its success wording was never measured.
 */
export function manatalHostedVendor(): HostedVendor {
  const fields = manatalForm();
  const page = htmlPage(
    'Software Engineer - Acme Careers',
    `<link rel="canonical" href="https://www.careers-page.com${manatalJobPath}">`,
    `<main data-manatal><h1>Software Engineer</h1><form id="application-form" onsubmit="return false">${fields.map(control).join('\n')}
<div class="form-group"><input type="checkbox" id="fieldterms" name="terms_and_condition"><label for="fieldterms">I agree to the terms and conditions and the privacy policy</label></div>
<div id="form-errors" class="alert alert-danger" role="alert" hidden></div><button type="button" id="submit">Submit</button></form></main>`,
    `var selectedJobId = "${manatalJobId}", csrf_token = "x", isTCPPRequired = false;\n${script(manatalJobId)}`,
  );
  const wafChallenge: HostedReply = {
    status: 202,
    headers: { 'x-amzn-waf-action': 'challenge' },
    html: htmlPage(
      'Human Verification',
      '',
      '<awswaf-captcha style="display:block;width:320px;height:200px"><p>Let\'s confirm you are human. Complete the security check before continuing.</p></awswaf-captcha>',
      '',
    ),
  };
  return {
    ats: 'manatal',
    applyPath: manatalJobPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) => {
      if (variant === 'closed')
        return {
          status: 404,
          html: htmlPage('Not Found', '', '<h1>Not Found</h1><p>The requested resource was not found on this server.</p>', ''),
        };
      if (variant === 'botCheck') return wafChallenge;
      return { status: 200, html: page };
    },
    post: (request, variant) => {
      if (request.path === '/api/v1.0/jobs/apply-by-career-page-resume-get-presigned-url/') {
        if (variant === 'invalidFile') return { kind: 'read', reply: { status: 400, json: { detail: manatalInvalidFileText } } };
        const key = `resumes/${Date.now()}`;
        return { kind: 'read', reply: { status: 200, json: { url: `/s3/${key}`, key } } };
      }
      if (request.path.startsWith('/s3/')) return { kind: 'early', reply: { status: 204 } };
      if (variant === 'missingField')
        return { kind: 'submission', reply: { status: 400, json: { errors: { '2007': ['This field is required.'] } } } };
      return { kind: 'submission', reply: { status: 201, json: { id: 98765 } } };
    },
    extraPages: { [`/api/v1.0/jobs/${manatalJobId}/application-form/`]: { status: 200, json: fields } },
  };
}

/** A Manatal submission by definition id: the answers as posted, the résumé's bytes as stored. */
export function manatalReceived(submission: HostedRequest | undefined, uploads: HostedRequest[]): Map<string, unknown> {
  const body = (submission?.json ?? {}) as { answers?: Record<string, unknown>; terms_and_condition?: unknown };
  const values = new Map<string, unknown>(Object.entries(body.answers ?? {}));
  if (body.terms_and_condition !== undefined) values.set('terms_and_condition', body.terms_and_condition);
  for (const upload of uploads) {
    const file = upload.parts.find(([name]) => name === 'file')?.[1];
    const key = upload.parts.find(([name]) => name === 'key')?.[1];
    if (file && typeof file !== 'string') values.set('upload resume', { bytes: file.bytes, key });
  }
  return values;
}
