/**
 * Sources for Breezy HR's hosted form as doubled here:
 * - The position: the capture `breezy/tenant-a.json` (cezkid/jobs `app/tests/fixtures/` @
 *   8218f6a4d214, MIT; provenance in packages/miner/fixtures/ats/README.md).
 * - Box names (`cName`, `cEmail`, `section_<sid>_question_<n>`, `ccpaAgreement`), the definition in
 *   `script#portal-data`, the honeypot `hp_7f2b`, the résumé sent on choose to
 *   `/api/portal/{company}/upload` and read into the summary, the possible e-mailed 4-digit code at
 *   Submit, the closed position's 200 "Position Closed", answers tagged "auto disqualified":
 *   https://github.com/cezkid/jobs/blob/1b690396/app/docs/apply/breezy.md.
 * - Breezy's candidate fields as its API names them: https://developer.breezy.hr/docs/company-position-candidates-add.
 * Silent: the submission's body, the refused résumé's wording, the confirmation. Where the double
 * decides these, its comments say so.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedVendor } from './hosted-ats.double.ts';

type BreezyQuestion = { _id: string; text: string; type?: { id: string }; required?: boolean; options?: Array<{ text: string }> };
type BreezySection = { _id: number | string; title?: string; questions: BreezyQuestion[] };
type BreezyCapture = {
  position: {
    name: string;
    friendly_id: string;
    application_form: Record<string, unknown>;
    locations: Array<{ name: string; id: string }>;
  };
  questions: BreezySection[];
  flags: Record<string, unknown>;
};

export const breezyPosting = '0a1b2c3d4e5f-software-engineer';

/**
 * The position of the fixture (tenant-a.json), plus a section in the same shape for the two
 * question types the capture lacks (a date, checkboxes), so their encodings are tested too.
 */
function breezyDefinition(): BreezyCapture {
  const capture = JSON.parse(
    readFileSync(new URL('../../../miner/fixtures/ats/breezy/tenant-a.json', import.meta.url), 'utf8'),
  ) as BreezyCapture;
  const extra: BreezySection = {
    _id: 1001,
    title: 'Availability',
    questions: [
      { _id: 'q10100', text: 'Earliest start date', type: { id: 'date' }, required: true },
      {
        _id: 'q10101',
        text: 'Which shifts can you work?',
        type: { id: 'checkboxes' },
        required: false,
        options: [{ text: 'Morning' }, { text: 'Evening' }, { text: 'Night' }],
      },
    ],
  };
  return { ...capture, questions: [...capture.questions, extra] };
}

const salaryPeriods = ['Hourly', 'Weekly', 'Monthly', 'Yearly'];
// Voluntary self-identification as Breezy draws it: radios named by the block, each valued by a code and labelled by `for`.
const eeo: Array<[name: string, title: string, options: Array<[code: string, text: string]>]> = [
  [
    'race_ethnicity',
    'Race or Ethnicity',
    [
      ['white', 'White (not Hispanic or Latino)'],
      ['asian', 'Asian (not Hispanic or Latino)'],
      ['hispanic', 'Hispanic or Latino (including Black individuals whose origins are Hispanic)'],
      ['decline', "I don't wish to answer"],
    ],
  ],
  [
    'gender',
    'Gender',
    [
      ['male', 'Male'],
      ['female', 'Female'],
      ['decline', "I don't wish to answer"],
    ],
  ],
  [
    'eeoc.veteran_status',
    'Veteran status',
    [
      ['protected', 'I IDENTIFY AS ONE OR MORE OF THE CLASSIFICATIONS OF PROTECTED VETERAN LISTED ABOVE'],
      ['not_protected', 'I AM NOT A PROTECTED VETERAN'],
      ['decline', 'I CHOOSE NOT TO SELF-IDENTIFY MY PROTECTED VETERAN STATUS'],
    ],
  ],
];

const star = (required: boolean) => (required ? '<span class="required">*</span>' : '');

/** An employer question, named by its place: `section_<sid>_question_<n>`. */
function employerQuestion(section: BreezySection, question: BreezyQuestion, index: number): string {
  const name = `section_${section._id}_question_${index}`;
  const heading = `<h4>${escapeHtml(question.text)}${star(question.required === true)}</h4>`;
  switch (question.type?.id ?? 'text') {
    case 'multiplechoice':
    case 'checkboxes': {
      const type = question.type?.id === 'checkboxes' ? 'checkbox' : 'radio';
      return `<li class="question">${heading}<ul class="options">${(question.options ?? [])
        .map(
          (option) =>
            `<li><label><input type="${type}" name="${name}" value="${escapeHtml(option.text)}"> <span>${escapeHtml(option.text)}</span></label></li>`,
        )
        .join('')}</ul></li>`;
    }
    case 'dropdown':
      return `<li class="question">${heading}<select name="${name}"><option value=""></option>${(question.options ?? []).map((option) => `<option>${escapeHtml(option.text)}</option>`).join('')}</select></li>`;
    case 'paragraph':
      return `<li class="question">${heading}<textarea name="${name}"></textarea></li>`;
    case 'date':
      return `<li class="question">${heading}<input type="date" name="${name}"></li>`;
    default:
      return `<li class="question">${heading}<input type="text" name="${name}"></li>`;
  }
}

function formBody(definition: BreezyCapture, applyPath: string, notice: string): string {
  const form = definition.position.application_form;
  const shown = (key: string) => form[key] === 'required' || form[key] === 'optional';
  const required = (key: string) => form[key] === 'required';
  const box = (key: string, name: string, title: string, type = 'text') =>
    shown(key)
      ? `<div class="form-group"><label for="${name}">${title}${star(required(key))}</label><input type="${type}" id="${name}" name="${name}"></div>`
      : '';
  const long = (key: string, name: string, title: string) =>
    shown(key)
      ? `<div class="form-group"><label for="${name}">${title}${star(required(key))}</label><textarea id="${name}" name="${name}"></textarea></div>`
      : '';
  return `<form name="form" action="${applyPath}" novalidate>
${notice}
<input type="text" name="hp_7f2b" value="" tabindex="-1" autocomplete="off" style="display:none">
<div class="section-header"><h3>Resume${star(required('resume'))}</h3><div class="file-input-container"><input type="file" id="cResume" name="cResume" accept=".pdf,.doc,.docx,.odt,.rtf,.txt"><a class="bzyLinkColor"></a>
  <div class="error-container ng-hide"><span class="error" role="alert"></span></div></div><input type="hidden" name="cResumeUpload" value=""></div>
${box('name', 'cName', 'Full Name')}${box('email_address', 'cEmail', 'Email Address', 'email')}${box('phone_number', 'cPhoneNumber', 'Phone Number', 'tel')}${box('address', 'cAddress', 'Address')}
${shown('salary') ? `<div class="form-group desired-salary"><label for="cSalary">Desired Salary${star(required('salary'))}</label><input type="text" id="cSalary" name="cSalary"> <span>per</span> <select>${salaryPeriods.map((period) => `<option>${period}</option>`).join('')}</select></div>` : ''}
${shown('preferred_location') ? `<div class="form-group"><label for="cLocation">Which location are you applying for${star(required('preferred_location'))}</label><select id="cLocation" name="cLocation"><option value="">Select a location</option>${definition.position.locations.map((location) => `<option value="${location.id}">${escapeHtml(location.name)}</option>`).join('')}</select></div>` : ''}
${long('summary', 'cSummary', 'Experience Summary')}${long('cover_letter', 'cCoverLetter', 'Cover Letter')}
${definition.questions.map((section) => `<div class="section"><h3>${escapeHtml(section.title || 'Questionnaire')}</h3><ul class="questions">${section.questions.map((question, index) => employerQuestion(section, question, index)).join('')}</ul></div>`).join('\n')}
${
  shown('eeoc') || definition.flags['eeocEnabled'] === true
    ? `<div class="section"><h3>Voluntary Self-Identification</h3>${eeo
        .map(
          ([name, title, options]) =>
            `<fieldset><legend>${title}</legend>${options.map(([code, text], index) => `<div><input type="radio" id="${name}-${index}" name="${name}" value="${code}"><label for="${name}-${index}">${escapeHtml(text)}</label></div>`).join('')}</fieldset>`,
        )
        .join('')}</div>`
    : ''
}
${shown('ccpa') ? `<div class="form-group"><label><input type="checkbox" name="ccpaAgreement" value="true"> I've read the Privacy Notice below and consent the processing of my data as part of my job application.</label></div>` : ''}
<div id="verification"></div>
<div class="apply-buttons"><button type="submit" class="button">Submit Application</button></div>
</form>`;
}

/**
 * The page's behaviour as Breezy's was measured (portal.js): the résumé goes to
 * `/api/portal/{company}/upload` as soon as it is chosen, the box shows its name once Breezy has
 * it, and Breezy reads it into Experience Summary (overwriting what is there). The submission was
 * never measured: it is sent here as a multipart post of the form's named boxes, with the stored
 * résumé's address in `cResumeUpload` and the unnamed pay-period list as `cSalaryPeriod`.
 */
const script = (company: string) => `
const form = document.forms.form, resume = form.querySelector('[name=cResume]'), box = form.querySelector('.file-input-container');
resume.addEventListener('change', async () => {
  const file = resume.files[0], error = box.querySelector('.error-container');
  if (!file) return;
  error.classList.add('ng-hide');
  const body = new FormData(); body.append('file', file, file.name);
  const answer = await fetch('/api/portal/${company}/upload', { method: 'POST', body });
  if (!answer.ok) { error.querySelector('.error').textContent = "We couldn't upload your resume. Please try a PDF, DOC or DOCX file."; error.classList.remove('ng-hide'); return; }
  const stored = await answer.json();
  form.querySelector('[name=cResumeUpload]').value = stored.url;
  box.querySelector('a.bzyLinkColor').textContent = file.name;
  const summary = form.querySelector('[name=cSummary]');
  if (summary) summary.value = stored.summary;
});
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = new FormData(form);
  body.delete('cResume');
  body.append('cSalaryPeriod', form.querySelector('.desired-salary select').value);
  const answer = await fetch(form.action, { method: 'POST', body });
  const reply = await answer.json();
  if (reply.verification) { document.getElementById('verification').innerHTML = '<p>' + reply.verification + '</p><label for="verification_code">Verification code</label><input id="verification_code" name="verification_code" autocomplete="one-time-code">'; return; }
  if (answer.ok) { form.outerHTML = '<div class="thank-you"><h2>Thank you for applying!</h2><p>Your application has been submitted to Acme.</p></div>'; return; }
  const alert = document.createElement('div'); alert.className = 'alert alert-danger'; alert.setAttribute('role', 'alert'); alert.textContent = reply.error; form.prepend(alert);
});`;

/**
 * Breezy's hosted form ({company}.breezy.hr/p/{id}-{slug}/apply) built from the position of the
 * fixture, which the page carries for the miner in `script#portal-data` as Breezy's React build
 * does: standard boxes `cName`, `cEmail`, … by name, the pay box `cSalary` with an unnamed
 * period list beside it, employer questions named by place `section_<sid>_question_<n>` (radios
 * and checkboxes valued by the option's words), EEO radios valued by a code, `ccpaAgreement`, the
 * honeypot `hp_7f2b`. Closed: 200 "Position Closed". Refused résumé: its error beside the box
 * (wording unmeasured). Bot check: the e-mailed 4-digit code Breezy may ask for at Submit.
 * Breezy documents no duplicate refusal (it tags answers "auto disqualified" silently).
 */
export function breezyHostedVendor(): HostedVendor {
  const definition = breezyDefinition();
  const applyPath = `/p/${breezyPosting}/apply`;
  const portal = JSON.stringify({
    data: { position: definition.position, questions: definition.questions, ...definition.flags },
  }).replaceAll('<', '\\u003c');
  const head = `<link rel="canonical" href="https://acme.breezy.hr${applyPath}"><style>.ng-hide{display:none}</style>`;
  const page = (notice = '') =>
    htmlPage(
      `${definition.position.name} at Acme`,
      head,
      `<div id="app"><h1>${escapeHtml(definition.position.name)}</h1>${formBody(definition, applyPath, notice)}</div><script id="portal-data" type="application/json">${portal}</script>`,
      script('acme'),
    );
  const closed: HostedReply = {
    status: 200,
    html: htmlPage(
      'Acme',
      head,
      '<div class="position-closed"><h1>Position Closed</h1><p>Sorry, this position is no longer accepting candidates.</p></div>',
      '',
    ),
  };
  return {
    ats: 'breezy',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) => (variant === 'closed' ? closed : { status: 200, html: page() }),
    post: (request, variant) => {
      if (request.path === '/api/portal/acme/upload') {
        if (variant === 'invalidFile') return { kind: 'early', reply: { status: 400, json: { error: 'invalid_file' } } };
        return {
          kind: 'early',
          reply: {
            status: 200,
            json: { url: 'https://breezy-uploads.s3.amazonaws.com/acme/resume-0001.pdf', summary: 'Analyst (parsed from the résumé)' },
          },
        };
      }
      const honeypot = request.parts.find(([name]) => name === 'hp_7f2b')?.[1];
      if (honeypot) return { kind: 'submission', reply: { status: 400, json: { error: 'Your application could not be submitted.' } } };
      if (variant === 'missingField')
        return { kind: 'submission', reply: { status: 400, json: { error: 'Please answer all required questions.' } } };
      if (variant === 'botCheck')
        return {
          kind: 'submission',
          reply: {
            status: 200,
            json: { verification: 'We sent a verification code to your email. Enter the 4-digit code to submit your application.' },
          },
        };
      return { kind: 'submission', reply: { status: 200, json: { ok: true } } };
    },
  };
}
