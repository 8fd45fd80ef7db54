/**
 * Sources for BambooHR's hosted form as doubled here:
 * - The definition (`GET /careers/{id}/detail`: `formFields`, `customQuestions`): the captures
 *   `bamboohr/tenant-a.json` and `tenant-b.json` (cezkid/jobs `app/tests/fixtures/` @ a33bf2ac59d6,
 *   MIT; provenance in packages/miner/fixtures/ats/README.md).
 * - Page names (`customQuestionAnswers.<type>_<id>`, `<key>.value`), Fabric lists over an empty
 *   native select, Veteran Status as three React-named radios (4 of 4 tenants), files POSTed on
 *   choose to `/ajax/files/attachTemporary.php`, the hidden `g-recaptcha-response`, the honeypot
 *   `nickname_hpcsaf` ("Please leave this field blank"), the closed definition's 404
 *   `{"type": "not_found", "title": "Resource not found."}`: the project's measurements,
 *   https://github.com/cezkid/jobs/blob/0c99d020/app/docs/apply/bamboohr.md.
 * Silent: the submission's body, the field-error and confirmation wording, any duplicate refusal
 * (no source documents one). Where the double decides these, its comments say so.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedPart, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

type BambooOption = { id: string; text: string };
type BambooField = { isRequired?: boolean; label?: string; options?: BambooOption[] };
type BambooQuestion = { id: string; isRequired: boolean; question: string; type: string };
type BambooDetail = { result: { jobOpening: { jobOpeningName: string }; formFields: Record<string, unknown> } };

export const bambooJobId = '1';

/** The form definition of the fixture (tenant-a.json), as `GET /careers/{id}/detail` serves it. */
const bambooDetail = (): BambooDetail =>
  JSON.parse(readFileSync(new URL('../../../miner/fixtures/ats/bamboohr/tenant-a.json', import.meta.url), 'utf8')) as BambooDetail;

// The boxes the page names `<key>.value` (their ids change between loads), and the lists drawn as Fabric menus over an empty native select.
const namedByValue = new Set(['streetAddress', 'city', 'state', 'zip', 'countryId']);
const fabricLists = new Set(['state', 'countryId', 'educationLevelId', 'genderId', 'ethnicityId']);
// Whatever the definition lists, the page asks Veteran Status as three radios named by React (measured on 4 of 4 tenants).
const veteranRadios: Array<[text: string, definitionText: string]> = [
  ['Decline to Answer', 'Decline to answer'],
  ['Not a Veteran', 'Not a veteran'],
  ['Veteran', 'Active Duty Wartime or Campaign Badge Veteran'],
];

let textFields = 0;
/** One definition key as the page draws it, in a block with its label or heading (the block's class is not measured). */
function control(key: string, field: BambooField): string {
  const label = `${escapeHtml(field.label ?? key)}${field.isRequired ? '<span class="fab-Label__required">*</span>' : ''}`;
  const block = (inner: string) => `<div class="fab-FormField">${inner}</div>`;
  if (key.endsWith('FileId'))
    return block(
      `<p class="fab-Label">${label}</p><div data-fabric-component="FileUpload"><div data-fabric-component="FileUploadList"></div><button type="button" class="choose">Choose File</button><input type="file" aria-label="file-input"></div>`,
    );
  if (key === 'veteranStatusId') {
    const options = field.options ?? [];
    return block(
      `<p class="fab-Label">${escapeHtml(field.label ?? key)}</p><div role="radiogroup">${veteranRadios
        .map(
          ([text, definitionText]) =>
            `<label class="radio"><input type="radio" name=":r5:" value="${options.find((option) => option.text === definitionText)?.id ?? ''}"><span class="circle"></span>${text}</label>`,
        )
        .join('')}</div>`,
    );
  }
  if (fabricLists.has(key)) {
    const select = namedByValue.has(key)
      ? `<select name="${key}.value"><option value=""></option></select>`
      : `<select id="${key}"><option value=""></option></select>`;
    return block(`<label class="fab-Label">${label}</label><div class="fab-Select">${select}<button type="button" aria-haspopup="true" data-menu="${key}"><span class="fab-SelectToggle__content">-Select-</span></button>
  <div role="menu" hidden>${(field.options ?? []).map((option) => `<div role="menuitem" data-option="${escapeHtml(option.id)}">${escapeHtml(option.text)}</div>`).join('')}</div></div>`);
  }
  textFields += 1;
  const id = namedByValue.has(key) || key === 'dateAvailable' ? `FabricTextField-${textFields}` : key;
  const name = namedByValue.has(key)
    ? ` name="${key}.value"`
    : ['firstName', 'lastName', 'email', 'phone'].includes(key)
      ? ` name="${key}"`
      : '';
  const placeholder = key === 'dateAvailable' ? ' placeholder="mm/dd/yyyy"' : '';
  return block(`<label class="fab-Label" for="${id}">${label}</label><input type="text" id="${id}"${name}${placeholder}>`);
}

function customControl(question: BambooQuestion): string {
  const name = `customQuestionAnswers.${question.type}_${question.id}`;
  const label = `${escapeHtml(question.question.trim())}${question.isRequired ? '<span class="fab-Label__required">*</span>' : ''}`;
  textFields += 1;
  const id = `FabricTextField-${textFields}`;
  switch (question.type) {
    case 'yes_no':
      return `<div class="fab-FormField"><p class="fab-Label">${label}</p><div role="radiogroup">${['yes', 'no']
        .map(
          (value) =>
            `<label class="radio"><input type="radio" name="${name}" value="${value}"><span class="circle"></span>${value === 'yes' ? 'Yes' : 'No'}</label>`,
        )
        .join('')}</div></div>`;
    case 'long':
      return `<div class="fab-FormField"><label class="fab-Label" for="${id}">${label}</label><textarea id="${id}" name="${name}"></textarea></div>`;
    default:
      return `<div class="fab-FormField"><label class="fab-Label" for="${id}">${label}</label><input type="text" id="${id}" name="${name}"></div>`;
  }
}

const style = `<style>.fab-Select{position:relative;display:inline-block}.fab-Select select{position:absolute;opacity:0;width:1px;height:1px;pointer-events:none}
[role=menu]{border:1px solid #999;max-height:200px;overflow:auto}[role=menu][hidden]{display:none}.radio{position:relative;display:inline-flex;gap:4px}
.radio input{position:absolute;opacity:0;width:1px;height:1px}.circle{width:14px;height:14px;border:1px solid #333;border-radius:50%}input:checked+.circle{background:#333}
[data-fabric-component=FileUpload] input[type=file]{opacity:0;position:absolute;width:1px;height:1px}[data-fabric-component=SlidedownPortal]{position:fixed;top:0;width:100%}</style>`;

/**
 * The page's behaviour, as BambooHR's was measured (its page script, 2026-10-06): Fabric lists
 * whose choice lives in the page's state, a chosen file POSTed to `/ajax/files/attachTemporary.php`
 * at once (the file leaves the list and a banner slides down with BambooHR's own words when
 * refused), a honeypot that must stay empty. The submission's body was never measured: it is sent
 * here as JSON keyed by the definition's keys (files by the temporary file id, lists by option id,
 * custom answers under `customQuestionAnswers`).
 */
const script = (keys: string[], jobId: string, botCheck: boolean) => `
const keys = ${JSON.stringify(keys)};
const blocks = [...document.querySelectorAll('#application .fab-FormField')];
const chosen = {}, files = {};
const SAYS = {
  invalid_file_size: 'Whoa, this is a big file (a little too big). The maximum file size you can upload is 20 MB.',
  invalid_file_type: 'Sorry, we can\\u2019t accept the ".exe" format. Make sure you\\u2019re selecting the right file and try again.',
  unknown_error: 'Whoops, something on our side prevented your file from uploading. Please give it another try.',
};
const banner = (words) => {
  const portal = document.createElement('div'); portal.dataset.fabricComponent = 'SlidedownPortal';
  portal.innerHTML = '<div data-fabric-component="Slidedown" role="alert"><div class="message"></div><button type="button" aria-label="Close">x</button></div>';
  portal.querySelector('.message').textContent = words; document.body.appendChild(portal);
};
for (const toggle of document.querySelectorAll('.fab-Select button')) {
  const menu = toggle.parentElement.querySelector('[role=menu]');
  toggle.addEventListener('click', () => { menu.hidden = !menu.hidden; });
  for (const item of menu.querySelectorAll('[role=menuitem]')) item.addEventListener('click', () => {
    toggle.querySelector('.fab-SelectToggle__content').textContent = item.textContent;
    chosen[toggle.dataset.menu] = item.dataset.option; menu.hidden = true;
  });
}
blocks.forEach((block, index) => {
  const input = block.querySelector('input[type=file]');
  if (!input) return;
  const list = block.querySelector('[data-fabric-component=FileUploadList]');
  input.addEventListener('change', async () => {
    const file = input.files[0];
    if (!file) return;
    input.value = '';
    list.innerHTML = '<div><span class="name"></span><div role="progressbar" aria-label="file-upload-progress-bar"></div></div>';
    list.querySelector('.name').textContent = file.name;
    const body = new FormData(); body.append('file', file, file.name);
    let said = null;
    try {
      const answer = await fetch('/ajax/files/attachTemporary.php', { method: 'POST', body });
      const data = await answer.json();
      if (data.status !== 'OK') said = SAYS[data.errorType] || data.message || SAYS.unknown_error;
      else files[keys[index]] = String(data.fileId);
    } catch (error) { said = 'Network Error'; }
    if (said) { list.innerHTML = ''; banner(said); } else list.querySelector('[role=progressbar]').remove();
  });
});
document.getElementById('submit').addEventListener('click', async () => {
  if (${botCheck}) { document.getElementById('challenge').innerHTML = '<iframe src="about:blank#www.google.com/recaptcha/api2/bframe" title="recaptcha challenge expires in two minutes" width="400" height="580"></iframe>'; return; }
  const application = { nickname_hpcsaf: document.getElementById('nickname_hpcsaf').value, customQuestionAnswers: {} };
  blocks.forEach((block, index) => {
    const key = keys[index];
    let value;
    if (key in files) value = files[key];
    else if (block.querySelector('.fab-Select')) value = chosen[key];
    else if (block.querySelector('input[type=radio]')) value = block.querySelector('input[type=radio]:checked')?.value;
    else value = block.querySelector('input[type=text], textarea')?.value;
    if (value === undefined || value === '') return;
    if (key.startsWith('customQuestionAnswers.')) application.customQuestionAnswers[key.slice('customQuestionAnswers.'.length)] = value;
    else application[key] = value;
  });
  const answer = await fetch('/careers/${jobId}/apply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(application) });
  const reply = await answer.json();
  const form = document.getElementById('application');
  if (answer.ok) { form.outerHTML = '<div class="fab-Card"><h2>Application submitted!</h2><p>Thank you for applying to Acme. We will review your application and be in touch.</p></div>'; return; }
  const error = document.createElement('div'); error.setAttribute('role', 'alert'); error.className = 'fab-FormField__error'; error.textContent = reply.message; form.prepend(error);
});`;

/**
 * BambooHR's hosted form ({company}.bamboohr.com/careers/{id}) built from the fixture's definition,
 * which it also serves to the miner at `/careers/{id}/detail`: first and last name, e-mail and
 * phone by name, the address boxes as `<key>.value`, Fabric lists (a button and its menu over an
 * empty native select), file boxes and Date Available with no name (their heading is the only
 * hook), Veteran Status as three React-named radios, custom questions as
 * `customQuestionAnswers.<type>_<id>` (yes/no radios valued `yes` / `no`), the honeypot
 * `nickname_hpcsaf`. Closed: the definition answers 404 `{"type": "not_found", "title": "Resource
 * not found."}` and the page says so. Refused file: BambooHR's banner words. Bot check: a reCAPTCHA
 * challenge at Submit (the page carries `g-recaptcha-response`). Field error and confirmation
 * wording are unmeasured. BambooHR documents no duplicate refusal.
 */
export function bamboohrHostedVendor(): HostedVendor {
  const detail = bambooDetail();
  const applyPath = `/careers/${bambooJobId}`;
  const title = detail.result.jobOpening.jobOpeningName;
  textFields = 0;
  const keys: string[] = [];
  const controls: string[] = [];
  for (const [key, value] of Object.entries(detail.result.formFields)) {
    if (key === 'customQuestions') {
      for (const question of value as BambooQuestion[]) {
        keys.push(`customQuestionAnswers.${question.type}_${question.id}`);
        controls.push(customControl(question));
      }
    } else if (!Array.isArray(value)) {
      keys.push(key);
      controls.push(control(key, value as BambooField));
    }
  }
  const form = (botCheck: boolean) =>
    htmlPage(
      `${title} - Acme`,
      `<link rel="canonical" href="https://acme.bamboohr.com${applyPath}">${style}`,
      `<main><h1>${escapeHtml(title)}</h1><form id="application" onsubmit="return false">
<input id="nickname_hpcsaf" name="nickname_hpcsaf" style="display:none" aria-label="Please leave this field blank" tabindex="-1" autocomplete="off">
<input type="hidden" name="g-recaptcha-response" value="">
${controls.join('\n')}<div id="challenge"></div><button type="button" id="submit">Submit Application</button></form></main>`,
      script(keys, bambooJobId, botCheck),
    );
  const notFound = { type: 'not_found', title: 'Resource not found.' };
  return {
    ats: 'bamboohr',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? {
            status: 200,
            html: htmlPage(
              'Acme - Careers',
              `<link rel="canonical" href="https://acme.bamboohr.com${applyPath}">`,
              `<main><h2>${notFound.title}</h2><p>View all open positions at Acme.</p></main>`,
              '',
            ),
          }
        : { status: 200, html: form(variant === 'botCheck') },
    post: (request, variant) => {
      if (request.path === '/ajax/files/attachTemporary.php') {
        if (variant === 'invalidFile')
          return { kind: 'early', reply: { status: 200, json: { status: 'ERROR', errorType: 'invalid_file_type' } } };
        return {
          kind: 'early',
          reply: { status: 200, json: { status: 'OK', fileId: temporaryFileId(request.parts.find(([name]) => name === 'file')?.[1]) } },
        };
      }
      const body = (request.json ?? {}) as Record<string, unknown>;
      // The honeypot filled: BambooHR drops the application as a bot's.
      if (body['nickname_hpcsaf'])
        return { kind: 'submission', reply: { status: 400, json: { message: 'Please leave this field blank' } } };
      if (variant === 'missingField') return { kind: 'submission', reply: { status: 400, json: { message: 'Zip is required.' } } };
      return { kind: 'submission', reply: { status: 200, json: { success: true } } };
    },
    extraPages: {
      [`${applyPath}/detail`]: { status: 200, json: detail },
    },
  };
}

/** The id BambooHR gives a temporary file: here derived from its bytes, so a test can tell which upload a submission names. */
const temporaryFileId = (file: HostedPart | undefined) =>
  file && typeof file !== 'string' ? String(parseInt(createHash('sha256').update(file.bytes).digest('hex').slice(0, 8), 16)) : '0';

/** A BambooHR submission flattened by the definition's keys; a file key's value is the bytes of the upload its temporary id names. */
export function bamboohrReceived(submission: HostedRequest | undefined, uploads: HostedRequest[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const body = (submission?.json ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'customQuestionAnswers')
      for (const [custom, answer] of Object.entries(value as Record<string, unknown>))
        values.set(`customQuestionAnswers.${custom}`, answer);
    else values.set(key, value);
  }
  for (const [key, value] of values) {
    if (!key.endsWith('FileId') && !key.startsWith('customQuestionAnswers.file_')) continue;
    const upload = uploads
      .map((request) => request.parts.find(([name]) => name === 'file')?.[1])
      .find((file) => temporaryFileId(file) === value);
    values.set(key, upload && typeof upload !== 'string' ? { bytes: upload.bytes } : undefined);
  }
  return values;
}
