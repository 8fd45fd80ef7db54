/**
 * Sources for Workable's hosted form as doubled here:
 * - The form definition (`GET apply.workable.com/api/v1/jobs/{shortcode}/form`): the captures
 *   `workable/tenant-a.json` and `tenant-b.json` (cezkid/jobs `app/tests/fixtures/` @ 4254977e04b1
 *   and af6cd535a73b, MIT; provenance in packages/miner/fixtures/ats/README.md).
 * - Random input ids under `data-ui` wrappers, drawn radios mirrored by hidden inputs, the résumé to
 *   S3 on choose and "Please use a different file.", the closed short link moving to `/oops`,
 *   Cloudflare Turnstile ("verify you are human") at Submit:
 *   https://github.com/cezkid/jobs/blob/356127e6/app/docs/apply/workable.md.
 * - The submission's shape (answers by `question_key` with `checked`, `choices` or `body`): Workable's
 *   candidate API, https://workable.readme.io/reference-link/job-candidates-create.
 * - A candidate kept per job, no duplicate refusal: Unified.to's Workable guide (docs.unified.to).
 * Silent: the hosted submission's own body and its confirmation. Where the double decides these,
 * its comments say so.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

type WorkableField = {
  id: string;
  required: boolean;
  label: string;
  type: string;
  singleOption?: boolean;
  options?: Array<{ name: string; value: string }>;
  value?: string;
};
type WorkableSection = { name: string; fields: WorkableField[] };

export const workableShortcode = 'ACME00001';

/** The form definition of the fixture (tenant-a.json), as `GET /api/v1/jobs/{shortcode}/form` serves it. */
const workableForm = (): WorkableSection[] =>
  JSON.parse(readFileSync(new URL('../../../miner/fixtures/ats/workable/tenant-a.json', import.meta.url), 'utf8')) as WorkableSection[];

const inputTypes: Record<string, string> = { text: 'text', email: 'email', phone: 'tel', number: 'number', date: 'date' };

function control(field: WorkableField): string {
  const label = `${field.required ? '* ' : ''}${escapeHtml(field.label)}`;
  switch (field.type) {
    case 'paragraph':
      return `<div class="field"><label for="${field.id}">${label}</label><textarea id="${field.id}" name="${field.id}"></textarea></div>`;
    case 'file':
      // The input's id is random per load: only its data-ui wrapper names the field.
      return `<div data-ui="${field.id}" class="field upload"><label>${label}</label><span class="hint">Maximum file size 5 MB</span><input type="file" id="input_files_input_${Math.random().toString(36).slice(2, 8)}"><div class="file"></div></div>`;
    case 'boolean':
      return `<fieldset role="radiogroup" data-ui="${field.id}"><legend>${label}</legend>${[
        ['true', 'YES'],
        ['false', 'NO'],
      ]
        .map(
          ([value, text]) =>
            `<div class="opt"><input type="radio" name="${field.id}" value="${value}"><div role="radio" aria-checked="false" tabindex="0"></div><span>${text}</span></div>`,
        )
        .join('')}</fieldset>`;
    case 'multiple':
      if (field.singleOption)
        return `<div class="field"><label>${label}</label><div data-ui="${field.id}" data-input-type="select"><input name="${field.id}" type="text" readonly tabindex="-1" style="width:0;height:0;border:0;padding:0">
  <input id="input_${field.id}_input" role="combobox" aria-haspopup="listbox" aria-expanded="false" readonly placeholder="Select an option…"><ul role="listbox">${(
    field.options ?? []
  )
    .map((option) => `<li role="option" data-name="${option.name}">${escapeHtml(option.value)}</li>`)
    .join('')}</ul></div></div>`;
      return `<fieldset data-ui="${field.id}"><legend>${label}</legend>${(field.options ?? []).map((option) => `<label><input type="checkbox" name="${option.name}"> ${escapeHtml(option.value)}</label>`).join('')}</fieldset>`;
    case 'group':
      // Education and experience entries: optional, not drawn by this double.
      return '';
    default:
      return `<div class="field"><label for="${field.id}">${label}</label><input id="${field.id}" name="${field.id}" type="${inputTypes[field.type] ?? 'text'}"${field.value ? ` value="${escapeHtml(field.value)}"` : ''}></div>`;
  }
}

const style = `<style>.opt{position:relative;display:flex;gap:6px}.opt input[type=radio]{position:absolute;opacity:0;pointer-events:none}
[role=radio]{width:14px;height:14px;border:1px solid #333;border-radius:50%}[role=radio][aria-checked=true]{background:#333}
[role=listbox]{display:none;border:1px solid #999}[role=listbox].open{display:block}.cf-turnstile{width:300px;height:65px;border:1px solid #ccc}</style>`;

/**
 * The page's behaviour as Workable's was measured: drawn radios mirrored by hidden inputs, a
 * read-only dropdown, the résumé stored on choose (S3) with "Please use a different file." when
 * refused, and a script-sent submission. The body of that submission was never measured: it is
 * sent here in the shape of Workable's candidate API (standard fields by id, answers by
 * `question_key` with `checked`, `choices` (option ids) or `body`).
 */
const script = (shortcode: string, botCheck: boolean) => `
document.querySelectorAll('fieldset[role=radiogroup]').forEach((set) => {
  const pick = (radio) => set.querySelectorAll('[role=radio]').forEach((other) => { other.setAttribute('aria-checked', String(other === radio)); other.parentElement.querySelector('input').checked = other === radio; });
  set.querySelectorAll('[role=radio]').forEach((radio) => radio.addEventListener('click', () => pick(radio)));
});
document.querySelectorAll('[data-input-type=select]').forEach((widget) => {
  const box = widget.querySelector('[role=combobox]'), list = widget.querySelector('[role=listbox]'), hidden = widget.querySelector('input[name]');
  box.addEventListener('click', () => { list.classList.add('open'); box.setAttribute('aria-expanded', 'true'); });
  list.querySelectorAll('[role=option]').forEach((option) => option.addEventListener('click', () => { box.value = option.textContent; hidden.value = option.dataset.name; list.classList.remove('open'); box.setAttribute('aria-expanded', 'false'); }));
});
const stored = {};
document.querySelectorAll('[data-ui] input[type=file]').forEach((input) => {
  const wrap = input.closest('[data-ui]'), row = wrap.querySelector('.file');
  input.addEventListener('change', async () => {
    const file = input.files[0];
    row.textContent = ''; row.classList.remove('error'); row.removeAttribute('role');
    const body = new FormData(); body.append('field', wrap.dataset.ui); body.append('file', file, file.name);
    const answer = await fetch('/workable-application-form/upload', { method: 'POST', body });
    if (!answer.ok) { row.textContent = 'Please use a different file.'; row.classList.add('error'); row.setAttribute('role', 'alert'); return; }
    stored[wrap.dataset.ui] = { key: (await answer.json()).key, name: file.name };
    row.textContent = file.name;
  });
});
document.getElementById('submit').addEventListener('click', async () => {
  if (${botCheck}) { document.getElementById('challenge').innerHTML = '<div class="cf-turnstile" data-sitekey="0x4AAA">Verify you are human</div>'; return; }
  const candidate = { answers: [] };
  for (const control of document.querySelectorAll('form input[id][name], form textarea[name]')) if (control.closest('[data-ui]').id === 'application') candidate[control.name] = control.value;
  for (const key in stored) candidate[key] = stored[key];
  for (const set of document.querySelectorAll('fieldset[role=radiogroup]')) { const on = set.querySelector('input:checked'); if (on) candidate.answers.push({ question_key: set.dataset.ui, checked: on.value === 'true' }); }
  for (const widget of document.querySelectorAll('[data-input-type=select]')) { const hidden = widget.querySelector('input[name]'); if (hidden.value) candidate.answers.push({ question_key: widget.dataset.ui, choices: [hidden.value] }); }
  for (const set of document.querySelectorAll('fieldset[data-ui]:not([role])')) candidate.answers.push({ question_key: set.dataset.ui, choices: [...set.querySelectorAll('input:checked')].map((box) => box.name) });
  const answer = await fetch('/api/v1/jobs/${shortcode}/apply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ candidate }) });
  const reply = await answer.json();
  const form = document.getElementById('application');
  if (answer.ok) { form.outerHTML = '<div data-ui="application-success"><h2>Application submitted!</h2><p>Thanks for applying. Acme will be in touch.</p></div>'; return; }
  for (const [field, messages] of Object.entries(reply.errors ?? {})) { const error = document.createElement('div'); error.setAttribute('role', 'alert'); error.className = 'error'; error.textContent = field + ': ' + messages.join(' '); form.prepend(error); }
  if (!reply.errors) { const error = document.createElement('div'); error.setAttribute('role', 'alert'); error.textContent = reply.error; form.prepend(error); }
});`;

/**
 * Workable's hosted form (apply.workable.com/{account}/j/{shortcode}/apply/) built from the
 * fixture's form definition, which it also serves to the miner. Closed: the short link moves to
 * `/oops`. Refused file: "Please use a different file." Bot check: Cloudflare Turnstile ("verify
 * you are human") at Submit. Workable keeps a candidate per job: no duplicate refusal.
 */
export function workableHostedVendor(): HostedVendor {
  const sections = workableForm();
  const applyPath = `/acme/j/${workableShortcode}/apply/`;
  const form = (botCheck: boolean) =>
    htmlPage(
      'Software Engineer - Acme',
      `<link rel="canonical" href="https://apply.workable.com${applyPath}">${style}`,
      `<main><form id="application" data-ui="application-form" onsubmit="return false">${sections
        .map((section) => `<section><h3>${escapeHtml(section.name)}</h3>${section.fields.map(control).join('\n')}</section>`)
        .join('')}<div id="challenge"></div><button type="button" id="submit" data-ui="submit">Submit application</button></form></main>`,
      script(workableShortcode, botCheck),
    );
  const oops: HostedReply = {
    status: 200,
    html: htmlPage('Oops - Workable', '', '<main><h1>Oops!</h1><p>This job is no longer available.</p></main>', ''),
  };
  return {
    ats: 'workable',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed' ? { status: 302, headers: { location: '/oops' } } : { status: 200, html: form(variant === 'botCheck') },
    post: (request, variant) => {
      if (request.path === '/workable-application-form/upload') {
        if (variant === 'invalidFile') return { kind: 'early', reply: { status: 400, json: { error: 'invalid file' } } };
        return { kind: 'early', reply: { status: 200, json: { key: `uploads/${Date.now()}` } } };
      }
      if (variant === 'missingField')
        return { kind: 'submission', reply: { status: 422, json: { errors: { QA_11529563: ['This field is required'] } } } };
      return { kind: 'submission', reply: { status: 201, json: { status: 'applied' } } };
    },
    extraPages: { '/oops': oops, [`/api/v1/jobs/${workableShortcode}/form`]: { status: 200, json: sections } },
  };
}

/** A Workable submission flattened by field id: standard fields, the stored résumé's bytes, answers by `question_key`. */
export function workableReceived(submission: HostedRequest | undefined, uploads: HostedRequest[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const candidate = ((submission?.json ?? {}) as { candidate?: Record<string, unknown> }).candidate ?? {};
  for (const [key, value] of Object.entries(candidate)) if (key !== 'answers') values.set(key, value);
  for (const answer of (candidate['answers'] ?? []) as Array<Record<string, unknown>>) {
    const { question_key: key, ...rest } = answer;
    values.set(String(key), Object.values(rest)[0]);
  }
  for (const upload of uploads) {
    const field = upload.parts.find(([name]) => name === 'field')?.[1];
    const file = upload.parts.find(([name]) => name === 'file')?.[1];
    if (typeof field === 'string' && file && typeof file !== 'string') values.set(`upload ${field}`, { bytes: file.bytes });
  }
  return values;
}
