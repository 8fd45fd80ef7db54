/**
 * Sources for Greenhouse's hosted form as doubled here:
 * - The job and its questions: the Job Board API's documented shape (grnhse/greenhouse-api-docs @
 *   011af17a00bc, `source/includes/job-board/_applications.md` and `_jobs.md`), as the API double's
 *   fixture holds it. No hosted page was captured.
 * - Inputs whose id is the field name, react-select lists, files POSTed on choose to Greenhouse's S3
 *   bucket, the closed page's wording, contact and answers only at Submit:
 *   https://github.com/cezkid/jobs/blob/218e576d/app/docs/apply/greenhouse.md.
 * - Success at `…/confirmation` titled "Thank you for applying":
 *   https://github.com/cezkid/jobs/blob/5b3b88d6/app/docs/apply/sent.md, and Cheddar's check
 *   (Ches-ctrl/Cheddar @ b08713b3, `app/models/concerns/ats/greenhouse/submit_application.rb:21-40`).
 * - The e-mailed security code after a low invisible-reCAPTCHA score:
 *   https://support.greenhouse.io/hc/en-us/articles/115005448066-Invisible-reCAPTCHA.
 * Silent: the hosted submit's endpoint and body (nobody measured it), any duplicate refusal. Where
 * the double decides these, its comments say so.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedVendor } from './hosted-ats.double.ts';

/** Greenhouse has no real capture yet: the page is built from the API double's post (the Job Board API's documented shape). */
const greenhouseJobFixture = (): unknown =>
  JSON.parse(readFileSync(new URL('../../fixtures/vendor-apis/greenhouse/backend-engineer.json', import.meta.url), 'utf8'));

type GreenhouseField = { name: string; type: string; values: Array<{ label: string; value: number }> };
type GreenhouseQuestion = { label: string; required: boolean; fields: GreenhouseField[] };
type GreenhouseJob = {
  id: number;
  title: string;
  questions: GreenhouseQuestion[];
  location_questions: GreenhouseQuestion[];
  compliance: Array<{ questions: GreenhouseQuestion[] }>;
};

/** A react-select: a combobox input named by the field (its id), the chosen value id in a hidden input of the field's name. */
const reactSelect = (question: GreenhouseQuestion, field: GreenhouseField) => `
<div class="select__container"><label id="${field.name}-label" for="${field.name}">${escapeHtml(question.label)}${question.required ? ' *' : ''}</label>
  <div class="select-shell"><div class="select__control"><div class="select__value-container">
    <input class="select__input" id="${field.name}" role="combobox" aria-expanded="false" aria-autocomplete="list" type="text" autocomplete="off"
      data-options="${escapeHtml(JSON.stringify(field.values.map((value) => ({ value: String(value.value), label: value.label }))))}">
  </div></div></div>
  <input type="hidden" name="${field.name}" value=""></div>`;

/**
 * A question's controls: each field's, a hidden field as a hidden input (the location's
 * coordinates, which the page's place search fills), a file-or-text question as its upload and
 * its "enter manually" box.
 */
function control(question: GreenhouseQuestion): string {
  return question.fields.map((field) => fieldControl(question, field)).join('\n');
}

function fieldControl(question: GreenhouseQuestion, field: GreenhouseField): string {
  const star = question.required ? ' *' : '';
  switch (field.type) {
    case 'input_text':
      return `<div class="field"><label for="${field.name}">${escapeHtml(question.label)}${star}</label><input type="text" id="${field.name}" name="${field.name}"${question.required ? ' aria-required="true"' : ''}></div>`;
    case 'textarea':
      return `<div class="field"><label for="${field.name}">${escapeHtml(question.label)}${question.fields.length > 1 ? ' (enter manually)' : star}</label><textarea id="${field.name}" name="${field.name}"></textarea></div>`;
    case 'input_hidden':
      return `<input type="hidden" id="${field.name}" name="${field.name}" value="">`;
    case 'input_file':
      // The file goes to storage on choose; the form carries only the stored key.
      return `<div class="field upload"><div id="upload-label-${field.name}">${escapeHtml(question.label)}${star}</div>
  <label for="${field.name}">Attach ${escapeHtml(question.label)}</label><input type="file" id="${field.name}" data-upload="${field.name}" accept=".pdf,.doc,.docx,.txt,.rtf">
  <input type="hidden" name="${field.name}_url" value=""><span class="file-upload__filename"></span></div>`;
    case 'multi_value_single_select':
      return reactSelect(question, field);
    case 'multi_value_multi_select':
      return `<fieldset class="checkbox" id="${field.name}"><legend>${escapeHtml(question.label)}${star}</legend>${field.values
        .map(
          (value) =>
            `<div><input type="checkbox" id="${field.name}_${value.value}" name="${field.name}" value="${value.value}"><label for="${field.name}_${value.value}">${escapeHtml(value.label)}</label></div>`,
        )
        .join('')}</fieldset>`;
    default:
      return '';
  }
}

const script = `
for (const input of document.querySelectorAll('input[role=combobox]')) {
  const container = input.closest('.select__container'), hidden = container.querySelector('input[type=hidden]');
  const options = JSON.parse(input.dataset.options);
  const close = () => { container.querySelector('.select__menu')?.remove(); input.setAttribute('aria-expanded', 'false'); };
  const open = () => {
    close();
    const menu = document.createElement('div');
    menu.className = 'select__menu'; menu.setAttribute('role', 'listbox'); menu.id = input.id + '-listbox';
    input.setAttribute('aria-controls', menu.id);
    for (const option of options.filter((o) => o.label.toLowerCase().includes(input.value.toLowerCase()))) {
      const item = document.createElement('div');
      item.setAttribute('role', 'option'); item.textContent = option.label;
      item.addEventListener('mousedown', (event) => event.preventDefault());
      item.addEventListener('click', () => {
        container.querySelector('.select__single-value')?.remove();
        const shown = document.createElement('div'); shown.className = 'select__single-value'; shown.textContent = option.label;
        container.querySelector('.select__value-container').prepend(shown);
        hidden.value = option.value; input.value = ''; close();
      });
      menu.append(item);
    }
    container.append(menu); input.setAttribute('aria-expanded', 'true');
  };
  input.addEventListener('input', open); input.addEventListener('click', open);
  input.addEventListener('keydown', (event) => { if (event.key === 'Escape') close(); });
  input.addEventListener('blur', () => setTimeout(close, 150));
}
for (const input of document.querySelectorAll('input[data-upload]')) {
  input.addEventListener('change', async () => {
    const box = input.closest('.upload'), file = input.files[0];
    box.querySelector('.error')?.remove();
    const body = new FormData(); body.append('key', input.dataset.upload); body.append('file', file, file.name);
    const answer = await fetch('/uploads/s3', { method: 'POST', body });
    const reply = await answer.json();
    if (!answer.ok) { const error = document.createElement('div'); error.className = 'error'; error.setAttribute('role', 'alert'); error.textContent = reply.error; box.append(error); return; }
    box.querySelector('input[type=hidden]').value = reply.key;
    box.querySelector('.file-upload__filename').textContent = file.name;
  });
}`;

/**
 * Greenhouse's hosted form (job-boards.greenhouse.io) built from the job-board definition of the
 * fixture: inputs whose id is the field name, react-select lists whose chosen value id goes under
 * the field name, multi-selects as `question_N[]` checkboxes of value ids, files stored on choose
 * (the S3 post) with the key in `<field>_url`. Success moves to `…/confirmation` ("Thank you for
 * applying"). Closed: "The job you are looking for is no longer open." Refused file: the
 * job-board validation text. Bot check: the e-mailed security code Greenhouse asks for when its
 * invisible reCAPTCHA scores the candidate low. Greenhouse documents no duplicate refusal.
 */
export function greenhouseHostedVendor(): HostedVendor {
  const job = greenhouseJobFixture() as unknown as GreenhouseJob;
  const applyPath = `/acme/jobs/${job.id}`;
  const questions = [...job.questions, ...job.location_questions, ...job.compliance.flatMap((block) => block.questions)];
  const head = `<link rel="canonical" href="https://job-boards.greenhouse.io${applyPath}">`;
  const form = (notice = '') =>
    htmlPage(
      `Job Application for ${job.title} at Acme`,
      head,
      `<div id="grnhse_app"><h1>${escapeHtml(job.title)}</h1>${notice}<form id="application-form" method="post" action="${applyPath}" enctype="multipart/form-data">${questions.map(control).join('\n')}
<button type="submit">Submit application</button></form><p class="recaptcha">This site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.</p></div>`,
      script,
    );
  const message = (status: number, title: string, body: string): HostedReply => ({ status, html: htmlPage(title, head, body, '') });
  return {
    ats: 'greenhouse',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? message(404, 'Acme Jobs', '<div class="flash-error">The job you are looking for is no longer open.</div>')
        : { status: 200, html: form() },
    post: (request, variant) => {
      if (request.path === '/uploads/s3') {
        if (variant === 'invalidFile')
          return { kind: 'early', reply: { status: 400, json: { error: 'Must be a supported file type (pdf, doc, docx, txt, rtf)' } } };
        return {
          kind: 'early',
          reply: { status: 201, json: { key: `uploads/${Date.now()}/${String(request.parts.find(([name]) => name === 'key')?.[1])}` } },
        };
      }
      if (variant === 'missingField')
        return { kind: 'submission', reply: { status: 422, html: form('<div class="error" role="alert">Country is required.</div>') } };
      if (variant === 'botCheck')
        return {
          kind: 'submission',
          reply: message(
            200,
            'Verify your email',
            '<form><p>A security code was sent to your email. Enter it below to submit your application.</p><label for="security_code">Security code</label><input id="security_code" name="security_code"><button type="submit">Submit</button></form>',
          ),
        };
      return { kind: 'submission', reply: { status: 303, headers: { location: `${applyPath}/confirmation` } } };
    },
    extraPages: {
      [`${applyPath}/confirmation`]: message(
        200,
        'Thank you for applying',
        '<h1>Thank you for applying.</h1><p>Your application has been received. We will review it and be in touch.</p>',
      ),
    },
  };
}
