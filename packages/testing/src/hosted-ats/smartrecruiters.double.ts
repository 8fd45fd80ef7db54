/**
 * Sources for SmartRecruiters' hosted form app as doubled here:
 * - The configuration (`fieldSets`) and the posting: the captures `config-tenant-a.json` and
 *   `posting.json` (cezkid/jobs `app/tests/fixtures/` @ 0f5f9e930df0, MIT; provenance in
 *   packages/miner/fixtures/ats/README.md).
 * - The form app's address, page 1's boxes (a parsing file box beside the résumé's), Spark widgets
 *   in open shadow roots, `first-name-input`, uploads on choose, DataDome and Cloudflare on every
 *   form: https://github.com/cezkid/jobs/blob/0f5f9e93/app/docs/apply/smartrecruiters.md.
 * - The submission's shape (`firstName`, `lastName`, `email`, `phoneNumber`, `location`, `web`,
 *   `resume`, `messageToHiringManager`): the Application API's `ApplyApiRequest` in the SDK generated
 *   from SmartRecruiters' specification (https://rubydoc.info/gems/open_api_smart_recruiters_sdk/SmartRecruiters/ApplyApiRequest).
 * Silent: the hosted submission itself (never measured), the later pages' screening questions,
 * duplicates. The expired page's and the file errors' wording follow the form app's English
 * strings as the project above read them. Where the double decides more, its comments say so.
 */
import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedRequest, type HostedVendor } from './hosted-ats.double.ts';

type Toggle = { required?: boolean; visible?: boolean; [part: string]: unknown };
type SmartConfig = { fieldSets: Record<string, Toggle | null> };
type SmartPosting = { id: string; name: string; uuid: string; company: { identifier: string } };

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../../miner/fixtures/ats/smartrecruiters/${name}`, import.meta.url), 'utf8'));

const places = ['London, England, United Kingdom', 'Londonderry, Northern Ireland, United Kingdom', 'London, Ontario, Canada'];

const star = (toggle: Toggle | null | undefined) => (toggle?.required ? '<span class="required">*</span>' : '');
const shown = (toggle: Toggle | null | undefined): toggle is Toggle => toggle?.visible === true;
const part = (toggle: Toggle, key: string) => (toggle[key] ?? null) as Toggle | null;

/** Page 1 of the form app from the configuration's `fieldSets`, in its measured order: résumé parsing on top, contact boxes, the résumé field below them. */
function pageOne(config: SmartConfig): string {
  const sets = config.fieldSets;
  const box = (id: string, title: string, toggle: Toggle, type = 'text') =>
    `<div class="field"><label for="${id}">${title}${star(toggle)}</label><input type="${type}" id="${id}"></div>`;
  const resumeBox = (kind: string, title: string) =>
    `<div class="field upload" data-kind="${kind}"><label for="file-input">${title}</label><input type="file" id="file-input" accept=".pdf,.doc,.docx,.odt,.rtf,.txt"><span class="file-name"></span><div class="upload-error" role="alert" hidden></div></div>`;
  const parts: string[] = [];
  // The parsing box reads the file and fills the boxes from it: it shares the field's id and label.
  if (shown(part(sets['easyApply'] ?? {}, 'easyApplyResumeParsing')))
    parts.push(
      `<section class="parsing"><p>Apply faster: we will fill in the form from your resume.</p>${resumeBox('parsing', 'Resume')}</section>`,
    );
  const names = sets['firstAndLastName'];
  if (shown(names)) parts.push(box('first-name-input', 'First name', names), box('last-name-input', 'Last name', names));
  const email = sets['email'];
  if (shown(email)) parts.push(box('email-input', 'Email', email, 'email'), box('confirm-email-input', 'Confirm email', email, 'email'));
  const residence = sets['placeOfResidence'];
  if (shown(residence))
    parts.push(
      `<div class="field"><label for="city-input">City${star(residence)}</label><input type="text" id="city-input" role="combobox" aria-expanded="false" aria-controls="city-list" autocomplete="off"><div id="city-list" role="listbox" hidden></div></div>`,
    );
  const phone = sets['phoneNumber'];
  if (shown(phone)) parts.push(box('phone-number-input', 'Phone number', phone, 'tel'));
  const social = sets['socialProfiles'];
  if (shown(social))
    for (const [key, title] of [
      ['linkedIn', 'LinkedIn'],
      ['website', 'Website'],
      ['facebook', 'Facebook'],
      ['x', 'X'],
    ] as const) {
      const toggle = part(social, key);
      if (shown(toggle)) parts.push(box(`${key.toLowerCase()}-input`, title, toggle, 'url'));
    }
  if (shown(sets['resume'])) parts.push(resumeBox('resume', 'Resume'));
  const message = sets['messageToHiringManager'];
  if (shown(message))
    parts.push(
      `<div class="field"><label for="message-input">Message to the hiring manager${star(message)}</label><textarea id="message-input"></textarea></div>`,
    );
  return parts.join('\n');
}

/**
 * The form app's behaviour as SmartRecruiters' was measured: a chosen file POSTs at once (the
 * parsing box to the parser, the résumé field to the attachment store), failures in its own words
 * (its English strings); City is a place search whose list answers as typed. The submission was
 * never measured: it is sent here as JSON in the shape of SmartRecruiters' apply request
 * (`firstName`, `lastName`, `email`, `phoneNumber`, `location.city`, `web.*`, `resume`,
 * `messageToHiringManager`).
 */
const script = (company: string, uuid: string) => `
const stored = {};
for (const box of document.querySelectorAll('.upload')) {
  const input = box.querySelector('input[type=file]'), error = box.querySelector('.upload-error');
  input.addEventListener('change', async () => {
    const file = input.files[0];
    if (!file) return;
    error.hidden = true;
    const body = new FormData(); body.append('file', file, file.name);
    const answer = await fetch(box.dataset.kind === 'parsing' ? '/oneclick-ui/api/resume-parse' : '/oneclick-ui/api/attachments', { method: 'POST', body });
    if (!answer.ok) { error.textContent = answer.status === 415 ? 'Unfortunately, this file format is not supported.' : 'Cannot upload resume. Please try again in a while.'; error.hidden = false; return; }
    if (box.dataset.kind === 'resume') stored.resume = (await answer.json()).id;
    box.querySelector('.file-name').textContent = file.name;
  });
}
const city = document.getElementById('city-input'), list = document.getElementById('city-list');
city.addEventListener('input', async () => {
  const answer = await fetch('/oneclick-ui/api/places?q=' + encodeURIComponent(city.value));
  list.innerHTML = '';
  for (const place of await answer.json()) {
    const option = document.createElement('div'); option.setAttribute('role', 'option'); option.textContent = place;
    option.addEventListener('mousedown', (event) => event.preventDefault());
    option.addEventListener('click', () => { city.value = place; list.hidden = true; city.setAttribute('aria-expanded', 'false'); });
    list.append(option);
  }
  list.hidden = false; city.setAttribute('aria-expanded', 'true');
});
const value = (id) => document.getElementById(id)?.value ?? '';
document.getElementById('submit').addEventListener('click', async () => {
  const web = {};
  for (const key of ['linkedIn', 'website', 'facebook', 'x']) if (value(key.toLowerCase() + '-input')) web[key] = value(key.toLowerCase() + '-input');
  const application = {
    firstName: value('first-name-input'), lastName: value('last-name-input'), email: value('email-input'), confirmEmail: value('confirm-email-input'),
    phoneNumber: value('phone-number-input'), location: { city: value('city-input') }, web, resume: stored.resume ?? null, messageToHiringManager: value('message-input'),
  };
  const answer = await fetch('/oneclick-ui/api/company/${company}/publication/${uuid}/apply', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(application) });
  const reply = await answer.json();
  const form = document.getElementById('application');
  if (answer.ok) { form.outerHTML = '<div class="success"><h2>Thank you for your interest!</h2><p>Your application has been sent to Acme.</p></div>'; return; }
  const error = document.createElement('div'); error.setAttribute('role', 'alert'); error.className = 'error'; error.textContent = reply.message; form.prepend(error);
});`;

/**
 * SmartRecruiters' hosted form app (jobs.smartrecruiters.com/oneclick-ui/company/{Company}/publication/{uuid})
 * built from the fixture's configuration (`fieldSets`), which it also serves to the miner with
 * the posting record: page 1, contact and résumé. Its Spark widgets live in open shadow roots on
 * the real page and its box ids were measured for First name only (`first-name-input`): here they
 * are plain boxes with ids of the same pattern, found by their labels. Two file boxes share id and
 * label, the parsing one above the name; both upload on choose. Closed: the posting page says "This
 * job has expired". Refused file: "Unfortunately, this file format is not supported." Missing
 * answer: "Please attach your resume to complete this application." Bot check: DataDome's captcha
 * over the page on load (its scripts were met on every form); `accept` is a candidate it lets through.
 * SmartRecruiters documents no duplicate refusal.
 */
export function smartRecruitersHostedVendor(): HostedVendor {
  const config = fixture('config-tenant-a.json') as SmartConfig;
  const posting = fixture('posting.json') as SmartPosting;
  const company = posting.company.identifier;
  const applyPath = `/oneclick-ui/company/${company}/publication/${posting.uuid}`;
  const postingPath = `/${company}/${posting.id}-example-job`;
  const head = `<link rel="canonical" href="https://jobs.smartrecruiters.com${applyPath}">`;
  // DataDome's tag on the form app lays its captcha over the page when it doubts the visitor.
  const dataDome =
    '<iframe src="about:blank#geo.captcha-delivery.com/captcha/?initialCid=test" title="DataDome CAPTCHA" width="400" height="500" style="position:fixed;top:0;border:0"></iframe>';
  const form = (botCheck: boolean) =>
    htmlPage(
      `${posting.name} - Acme`,
      head,
      `<oneclick-ui><h1>${escapeHtml(posting.name)}</h1><div id="application" data-test="oneclick-application">${pageOne(config)}<button type="button" id="submit">Submit</button></div></oneclick-ui>${botCheck ? dataDome : ''}`,
      script(company, posting.uuid),
    );
  return {
    ats: 'smartrecruiters',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField', 'botCheck'],
    page: (variant) => {
      if (variant === 'closed') return { status: 302, headers: { location: postingPath } };
      return { status: 200, html: form(variant === 'botCheck') };
    },
    post: (request, variant) => {
      if (request.path === '/oneclick-ui/api/resume-parse' || request.path === '/oneclick-ui/api/attachments') {
        if (variant === 'invalidFile') return { kind: 'early', reply: { status: 415, json: { message: 'unsupported media type' } } };
        return { kind: 'early', reply: { status: 200, json: { id: 'att-0001' } } };
      }
      if (variant === 'missingField')
        return { kind: 'submission', reply: { status: 400, json: { message: 'Please attach your resume to complete this application.' } } };
      return { kind: 'submission', reply: { status: 201, json: { id: 'application-0001' } } };
    },
    extraPages: {
      [postingPath]: {
        status: 200,
        html: htmlPage(
          `${posting.name} - Acme`,
          `<link rel="canonical" href="https://jobs.smartrecruiters.com${postingPath}">`,
          '<main><h1>Example Job</h1><p>This job has expired. See other jobs at Acme.</p></main>',
          '',
        ),
      },
      [`/v1/companies/${company}/postings/${posting.id}`]: { status: 200, json: posting },
      [`/oneclick-ui/api/company/${company}/publication/${posting.uuid}/config`]: { status: 200, json: config },
      '/oneclick-ui/api/places': { status: 200, json: places },
    },
  };
}

/** A SmartRecruiters submission flattened by dotted path (`web.linkedIn`), the stored résumé's bytes under `upload resume`, the parser's under `upload parsing`. */
export function smartRecruitersReceived(submission: HostedRequest | undefined, uploads: HostedRequest[]): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const flatten = (value: unknown, path: string) => {
    if (value && typeof value === 'object' && !Array.isArray(value))
      for (const [key, inner] of Object.entries(value)) flatten(inner, path ? `${path}.${key}` : key);
    else values.set(path, value);
  };
  flatten(submission?.json ?? {}, '');
  for (const upload of uploads) {
    const file = upload.parts.find(([name]) => name === 'file')?.[1];
    if (file && typeof file !== 'string')
      values.set(upload.path.endsWith('/attachments') ? 'upload resume' : 'upload parsing', { bytes: file.bytes });
  }
  return values;
}
