/**
 * Sources for Teamtailor's hosted form as doubled here:
 * - The form: the capture `teamtailor/tenant-a.html` (the `#job-application-form` Turbo frame;
 *   cezkid/jobs `app/tests/fixtures/` @ 14b6605d638c, MIT; provenance in
 *   packages/miner/fixtures/ats/README.md).
 * - The proof of work on load ("Checking your browser"), the knockout text "You have to meet these
 *   requirements to be able to apply", uploads via `/uploads/presigned_data` to storage on choose,
 *   names `candidate[answers_attributes][N][…]`, "Submit application":
 *   https://github.com/cezkid/jobs/blob/1b690396/app/docs/apply/teamtailor.md.
 * Silent: any duplicate refusal (no source documents one), the confirmation's wording, the `choices[]` and `date` answer names (inferred from the
 * captured Rails names), the closed page's wording. Where the double decides these, its comments say so.
 */
import { readFileSync } from 'node:fs';
import { htmlPage, type HostedReply, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

export const teamtailorJobPath = '/jobs/100083-software-engineer';
const applyPath = `${teamtailorJobPath}/applications/new`;

/** The Turbo frame of the fixture: the `#job-application-form` Teamtailor returns for `Turbo-Frame: application_form`. */
const captured = () => readFileSync(new URL('../../../miner/fixtures/ats/teamtailor/tenant-a.html', import.meta.url), 'utf8');

/** Dropzone's words for a file the server refused as unsafe (the form's own `xssError` translation). */
const teamtailorInvalidFileText = 'This is an invalid file, please use a document which does not contain JavaScript.';

/**
 * Two employer questions of the kinds the capture lacks (a multiple choice and a date), in the
 * capture's markup. Their answer attributes (`choices[]`, `date`) follow the Rails naming of the
 * captured ones (`boolean`, `text`, `number`) and were not measured.
 */
const extraQuestions = `
            <div>
              <div class="question" data-question-uuid="7d1e0c52-0000-4000-8000-000000000005" data-question-mandatory="true" data-question-multiple-choice="true">
                <input type="hidden" value="100701" name="candidate[answers_attributes][5][question_id]" id="candidate_answers_attributes_5_question_id" />
<fieldset id="id_4959500">
  <legend><span>Languages<sup data-asterisk="true" aria-hidden="true">*</sup><span class="sr-only">Required</span></span><div>Which languages do you work in?</div></legend>
  <div><input type="checkbox" value="200001" name="candidate[answers_attributes][5][choices][]" id="choice-100701-200001" /><label for="choice-100701-200001">English</label></div>
  <div><input type="checkbox" value="200002" name="candidate[answers_attributes][5][choices][]" id="choice-100701-200002" /><label for="choice-100701-200002">French</label></div>
  <div><input type="checkbox" value="200003" name="candidate[answers_attributes][5][choices][]" id="choice-100701-200003" /><label for="choice-100701-200003">German</label></div>
</fieldset>
</div></div>
            <div>
              <div class="question" data-question-uuid="7d1e0c52-0000-4000-8000-000000000006" data-question-mandatory="false" data-question-multiple-choice="false">
                <input type="hidden" value="100702" name="candidate[answers_attributes][6][question_id]" id="candidate_answers_attributes_6_question_id" />
<div id="id_4959508" data-controller="forms--inputs--text tooltip">
  <label for="candidate_answers_attributes_6_date">Earliest start date</label>
    <input type="date" name="candidate[answers_attributes][6][date]" id="candidate_answers_attributes_6_date" />
</div>
</div></div>
`;

const style = `<style>.hidden{display:none!important}.pointer-events-none{pointer-events:none}.opacity-50{opacity:.5}.cursor-not-allowed{cursor:not-allowed}
[data-forms--inputs--upload-target=trigger]{border:1px dashed #999;padding:12px;cursor:pointer}[role=listbox]{border:1px solid #999}</style>`;

/**
 * The page's own behaviour, as the research measured Teamtailor's (what it could not measure is
 * said): the proof of work solved on load (the "Checking your browser" status goes once solved;
 * `unsolved` keeps it, the case of a browser the check refuses); the knockout: answering "No"
 * to the eligibility question shows the knockout message and disables the rest of the form, as
 * the form's own `data-careersite--form-*-class` values say; each upload zone is a Dropzone whose
 * file input sits at the end of the body, and a chosen file goes to `/uploads/presigned_data`
 * then to storage at once, the stored address landing in the preview's `…_remote_url` box; the
 * address box suggests places as typed. Submit posts the form natively.
 */
const script = (unsolved: boolean) => `
const form = document.getElementById('job-application-form');
const challenge = form.querySelector('[data-controller~="forms--challenge"]');
if (!${unsolved}) setTimeout(() => {
  challenge.querySelector('[name=challenge_response]').value = 'solved';
  challenge.querySelector('[name=challenge_solve_ms]').value = '42';
  challenge.querySelector('[role=status]').remove();
}, 50);
const wrapperClasses = form.getAttribute('data-careersite--form-form-content-wrapper-class');
const contentWrapper = form.querySelector('[data-careersite--form-target=formContentWrapper]');
const content = form.querySelector('[data-careersite--form-target=formContent]');
const knockout = form.querySelector('[data-careersite--form-target=qualifyingMessageWrapper]');
for (const radio of form.querySelectorAll('[data-controller~="questions--qualifying--boolean"]')) {
  radio.addEventListener('click', () => {
    // This tenant's eligibility question excludes those who answer No.
    const excluded = radio.value === 'false';
    knockout.classList.toggle('hidden', !excluded); knockout.setAttribute('aria-hidden', String(!excluded));
    for (const name of wrapperClasses.split(' ')) contentWrapper.classList.toggle(name, excluded);
    content.classList.toggle('pointer-events-none', excluded);
  });
}
form.querySelectorAll('[data-forms--inputs--upload-target=desktopText]').forEach((text) => text.classList.remove('hidden'));
for (const zone of form.querySelectorAll('[data-controller~="forms--inputs--upload"]')) {
  const input = document.createElement('input');
  input.type = 'file'; input.className = 'dz-hidden-input';
  input.style.cssText = 'visibility:hidden;position:absolute;top:0;left:0;height:0;width:0';
  if (zone.dataset.formsInputsUploadAcceptedFilesValue) input.accept = zone.dataset.formsInputsUploadAcceptedFilesValue;
  document.body.append(input);
  const errors = zone.querySelector('[data-forms--inputs--upload-target=errorContainer]');
  zone.querySelector('[data-forms--inputs--upload-target=trigger]').addEventListener('click', () => input.click());
  let count = 0;
  input.addEventListener('change', async () => {
    const file = input.files[0];
    errors.classList.add('hidden'); errors.removeAttribute('role');
    const fail = (text) => { errors.querySelector('span').textContent = text; errors.classList.remove('hidden'); errors.setAttribute('role', 'alert'); };
    const presigned = await fetch('/uploads/presigned_data', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ filename: file.name, content_type: file.type }) });
    const target = await presigned.json();
    const body = new FormData(); body.append('key', target.fields.key); body.append('file', file, file.name);
    const stored = await fetch(target.url, { method: 'POST', body });
    if (!stored.ok) return fail((await stored.json()).error);
    const preview = zone.querySelector('template[data-forms--inputs--upload-target=templatePreview]').content.firstElementChild.cloneNode(true);
    const [name, model, parent] = ['name', 'model', 'parent'].map((part) => preview.getAttribute('data-forms--inputs--upload-preview-' + part + '-value'));
    const url = preview.querySelector('[data-forms--inputs--upload-preview-target=urlInput]');
    url.disabled = false; url.value = 'https://teamtailor-production.s3.amazonaws.com/' + target.fields.key;
    if (model) url.name = parent + '[' + model + '][' + count + '][' + name + ']';
    count += 1;
    preview.querySelector('[data-forms--inputs--upload-preview-target=name]').classList.remove('hidden');
    preview.querySelector('[data-dz-name]').textContent = file.name;
    preview.querySelector('[data-progress]').remove();
    zone.querySelector('[data-forms--inputs--upload-target=previewsContainer]').append(preview);
  });
}
const place = form.querySelector('[name="candidate[location][query]"]');
const places = document.getElementById(place.getAttribute('aria-controls'));
place.addEventListener('input', () => {
  places.parentElement.parentElement.classList.toggle('hidden', place.value === '');
  places.innerHTML = place.value ? '<div role="option" tabindex="-1"></div>' : '';
  places.firstElementChild?.append(place.value);
  places.setAttribute('aria-hidden', String(place.value === ''));
  place.setAttribute('aria-expanded', String(place.value !== ''));
  places.firstElementChild?.addEventListener('click', (event) => {
    const [city, country] = event.target.textContent.split(', ');
    place.value = event.target.textContent;
    form.querySelector('[name="candidate[location][city]"]').value = city;
    form.querySelector('[name="candidate[location][country]"]').value = country ?? '';
    places.parentElement.parentElement.classList.add('hidden'); places.innerHTML = ''; place.setAttribute('aria-expanded', 'false');
  });
});`;

/**
 * Teamtailor's hosted form ({company}.teamtailor.com/jobs/{id}-{slug}/applications/new): the
 * captured Turbo frame (the miner reads the same), with two employer questions of the kinds it
 * lacks, posting natively to `/applications`. Closed: 404 "no longer available". Refused file:
 * Dropzone's "This is an invalid file…" after storage refuses it. Missing answer: the re-rendered
 * form with Rails' "can't be blank". Bot check: the proof of work that never finishes ("Checking
 * your browser"). Knockout: "No" to the eligibility question. No duplicate refusal is documented
 * (no source says whether its API merges a repeat e-mail). The confirmation wording was not measured.
 */
export function teamtailorHostedVendor(): HostedVendor {
  const frame = captured()
    .replace('action="https://acme.na.teamtailor.com/applications"', 'action="/applications"')
    .replace(/(\n {10}<div>\n {12}<h2)/, `${extraQuestions}$1`);
  const page = (unsolved: boolean, notice = '') =>
    htmlPage(
      'Software Engineer - Acme',
      `<link rel="canonical" href="https://acme.teamtailor.com${teamtailorJobPath}">${style}`,
      `<main><turbo-frame id="application_form">${notice}${frame}</turbo-frame></main>`,
      script(unsolved),
    );
  const message = (status: number, title: string, body: string): HostedReply => ({
    status,
    html: htmlPage(title, style, `<main>${body}</main>`, ''),
  });
  return {
    ats: 'teamtailor',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) =>
      variant === 'closed'
        ? message(404, 'Acme', '<h1>This job is no longer available</h1><p><a href="/jobs">See our other open positions</a></p>')
        : { status: 200, html: page(variant === 'botCheck') },
    post: (request, variant) => {
      if (request.path === '/uploads/presigned_data')
        return {
          kind: 'read',
          reply: {
            status: 200,
            json: { url: '/s3/teamtailor-production', fields: { key: `uploads/${Date.now()}-${Math.random().toString(36).slice(2, 8)}` } },
          },
        };
      if (request.path === '/s3/teamtailor-production') {
        if (variant === 'invalidFile') return { kind: 'early', reply: { status: 422, json: { error: teamtailorInvalidFileText } } };
        return { kind: 'early', reply: { status: 204 } };
      }
      if (variant === 'missingField')
        return {
          kind: 'submission',
          reply: { status: 422, html: page(false, `<div class="error" role="alert">Salary Expectation can't be blank</div>`) },
        };
      return {
        kind: 'submission',
        reply: message(
          200,
          'Application sent - Acme',
          '<h1>Thank you for your application!</h1><p>We have received your application and will be in touch.</p>',
        ),
      };
    },
  };
}

/** The stored files of a Teamtailor application by storage key, with their bytes. */
export function teamtailorUploads(writes: HostedRequest[]): Map<string, Buffer> {
  const stored = new Map<string, Buffer>();
  for (const write of writes) {
    const key = write.parts.find(([name]) => name === 'key')?.[1];
    const file = write.parts.find(([name]) => name === 'file')?.[1];
    if (typeof key === 'string' && file && typeof file !== 'string') stored.set(key, file.bytes);
  }
  return stored;
}
