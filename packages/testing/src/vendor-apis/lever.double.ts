import { readFileSync } from 'node:fs';
import { startVendorDouble, type DoubleReply, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

// Every behaviour below cites its source. LEVER-README is
// lever/postings-api@f61aac5831a193bc66e1183c3ad102739dfd9f56:README.md ("Apply to a job posting",
// https://github.com/lever/postings-api#apply-to-a-job-posting); CEZ-LEVER is cezkid/jobs@10c2c409
// app/docs/apply/lever.md (the hosted apply page as measured on four tenants).

type Row = { name: string; label: string; type: 'text' | 'email' | 'file' | 'textarea' | 'checkbox'; required?: boolean };
type CardField = { type: string; text: string; required?: boolean; options?: Array<{ text: string }> };
type Template = { id: string; text: string; fields: CardField[] };
type ApplyForm = {
  sections: Array<{ heading: string; rows: Row[] }>;
  cards?: Template[];
  surveys?: Template[];
  eeo?: Record<string, { label: string; options: string[] }>;
};
type Posting = { id: string; text: string; applyForm: ApplyForm } & Record<string, unknown>;

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/vendor-apis/lever/postings.json', import.meta.url), 'utf8')) as {
  postings: Posting[];
};

/** The postings of site `acme` on the Lever double. */
export const leverDoublePostings = {
  /** Only rows the Postings API has a field for: résumé, name, email, phone, org, urls, comments, consents. */
  standard: '7d1c2a9e-3f4b-4c6d-8e1f-2a3b4c5d6e01',
  /** Rows the API has no field for as well: current location, pronouns, a custom card of every type, a survey, EEO. */
  custom: '7d1c2a9e-3f4b-4c6d-8e1f-2a3b4c5d6e02',
} as const;
/** The posting most cases use (kept for the existing callers). */
export const leverDoublePosting = leverDoublePostings.standard;

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const star = (required?: boolean) => (required ? '<span class="required">✱</span>' : '');

function rowHtml(row: Row): string {
  const required = row.required ? ' required' : '';
  const control =
    row.type === 'textarea'
      ? `<textarea name="${escape(row.name)}"${required}></textarea>`
      : row.type === 'checkbox'
        ? `<input type="checkbox" name="${escape(row.name)}" value="true"${required}>`
        : `<input type="${row.type}" name="${escape(row.name)}"${required}>`;
  return `<li class="application-question"><label><div class="application-label">${escape(row.label)}${star(row.required)}</div><div class="application-field">${control}</div></label></li>`;
}

function templateHtml(kind: 'cards' | 'surveysResponses', template: Template): string {
  const prefix = kind === 'cards' ? `cards[${template.id}]` : `surveysResponses[${template.id}][responses]`;
  const hiddenName = kind === 'cards' ? `cards[${template.id}][baseTemplate]` : `surveysResponses[${template.id}][baseTemplate]`;
  const fields = template.fields
    .map((field, index) => {
      const name = escape(`${prefix}[field${index}]`);
      const options = field.options ?? [];
      const control =
        field.type === 'textarea'
          ? `<textarea name="${name}"></textarea>`
          : field.type === 'dropdown'
            ? `<select name="${name}"><option value="">Select...</option>${options.map((option) => `<option value="${escape(option.text)}">${escape(option.text)}</option>`).join('')}</select>`
            : field.type === 'multiple-choice' || field.type === 'multiple-select'
              ? options
                  .map(
                    (option) =>
                      `<label><input type="${field.type === 'multiple-choice' ? 'radio' : 'checkbox'}" name="${name}" value="${escape(option.text)}">${escape(option.text)}</label>`,
                  )
                  .join('')
              : field.type === 'file-upload'
                ? `<input type="file" name="${name}">`
                : `<input type="text" name="${name}">`;
      return `<li class="application-question custom-question"><div class="application-label"><div class="text">${escape(field.text)}${star(field.required)}</div></div><div class="application-field">${control}</div></li>`;
    })
    .join('');
  return `<div class="section page-centered application-form"><h4>${escape(template.text)}</h4><input type="hidden" name="${escape(hiddenName)}" value="${escape(JSON.stringify({ text: template.text, instructions: '', fields: template.fields }))}"><ul>${fields}</ul></div>`;
}

/** The hosted apply page in the markup the captured pages use (CEZ-LEVER): what the miner reads. */
function applyPage(posting: Posting): string {
  const form = posting.applyForm;
  const sections = form.sections.map(
    (section) =>
      `<div class="section page-centered application-form"><h4>${escape(section.heading)}</h4><ul>${section.rows.map(rowHtml).join('')}</ul></div>`,
  );
  for (const card of form.cards ?? []) sections.push(templateHtml('cards', card));
  for (const survey of form.surveys ?? []) sections.push(templateHtml('surveysResponses', survey));
  if (form.eeo) {
    const rows = Object.entries(form.eeo).map(
      ([name, { label, options }]) =>
        `<div class="application-question"><label><div class="application-label">${escape(label)}</div><div class="application-field"><select name="${escape(name)}"><option value="">Select ...</option>${options.map((option) => `<option value="${escape(option)}">${escape(option)}</option>`).join('')}</select></div></label></div>`,
    );
    sections.push(
      `<div class="section eeo-section page-centered application-form"><h4>U.S. Equal Employment Opportunity information</h4>${rows.join('')}</div>`,
    );
  }
  return `<!doctype html><html><head><title>Acme - ${escape(posting.text)}</title></head><body><form id="application-form" enctype="multipart/form-data" method="POST">${sections.join('')}<button type="button" data-qa="btn-submit">Submit application</button></form></body></html>`;
}

/** The posting as `GET /v0/postings/SITE/POSTING-ID` answers it (LEVER-README "Get a specific job posting"). */
function postingJson(posting: Posting, url: string): Record<string, unknown> {
  const { applyForm: _form, ...documented } = posting;
  return { ...documented, hostedUrl: `${url}/acme/${posting.id}`, applyUrl: `${url}/acme/${posting.id}/apply` };
}

/** A request's fields as Lever reads them: JSON (`urls` and `consent` objects) or form parts (`urls[GitHub]`, `consent[marketing]`). */
function submittedFields(request: ReceivedRequest): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (request.json && typeof request.json === 'object') {
    for (const [name, value] of Object.entries(request.json as Record<string, unknown>)) {
      if ((name === 'urls' || name === 'consent') && value && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) fields.set(`${name}[${key}]`, inner);
      else fields.set(name, value);
    }
  }
  for (const [name, value] of request.parts) fields.set(name, value);
  return fields;
}

const refused = (status: number, error: string): DoubleReply => ({ status, body: { ok: false, error } });
const blank = (value: unknown) => value === undefined || value === null || value === '';

/**
 * Lever on loopback, one base URL for its hosts: the hosted apply page under `/site/{host}`
 * (`GET /acme/{posting id}/apply`, what the miner reads) and the Postings API at the root.
 *
 * - `GET /v0/postings/acme/{id}`: the posting's JSON (LEVER-README "Get a specific job posting");
 *   an unknown or unpublished posting is 404: "All other jobs are completely hidden" (LEVER-README).
 * - `POST /v0/postings/acme/{id}?key=`: JSON, urlencoded or multipart; the résumé "Only in
 *   multipart/form-data mode" (LEVER-README). Success is `200 {ok: true, applicationId}`, an error
 *   "the appropriate HTTP error code and a body of {ok:false, error:<error string>}" (LEVER-README).
 *   The README names no status or text per error: the double answers 401 for another key, 404 for
 *   an unknown posting, 400 for a missing `name`/`email` ("Two fields are required"), an email
 *   without "@" ("Requires an '@' symbol"), and a field the posting's form requires that is
 *   missing ("Required fields are also required when submitting against the POST API"); the
 *   error strings are the double's own.
 * - A repeated email is merged into the same candidate, never refused ("Lever de-dupes candidates
 *   using the email address field"): the double accepts it with a new applicationId.
 * - More than 2 application POSTs in a second answer 429 (LEVER-README "POST Application Rate
 *   Limit"); the double counts the accepted ones (a scripted reply takes the place of one).
 * - Fields the README does not list (custom cards, surveys, EEO, current location) are not part
 *   of the API: the double ignores them, as a server ignores unknown form fields (the README is
 *   silent on unknown fields; ignoring them is what makes sending them a silent loss).
 */
export async function startLeverApiDouble(options: { key: string; postsPerSecond?: number }): Promise<VendorApiDouble> {
  const postings = new Map(fixture.postings.map((posting) => [posting.id, posting]));
  const limit = options.postsPerSecond ?? 2;
  const acceptedAt: number[] = [];
  let sequence = 0;
  let base = '';
  const double = await startVendorDouble(
    (request) => {
      const page = /^\/site\/[^/]+\/acme\/([0-9a-f-]{36})\/apply$/.exec(request.path);
      if (request.method === 'GET' && page) {
        const posting = postings.get(page[1] ?? '');
        // A closed posting's page: 404 "Sorry, we couldn't find anything here" (CEZ-LEVER).
        if (!posting)
          return {
            reply: {
              status: 404,
              body: "<html><body><h2>Sorry, we couldn't find anything here</h2><p>The job posting you're looking for might have closed, or it has been removed.</p></body></html>",
              headers: { 'content-type': 'text/html; charset=utf-8' },
            },
          };
        return { reply: { status: 200, body: applyPage(posting), headers: { 'content-type': 'text/html; charset=utf-8' } } };
      }
      const api = /^\/v0\/postings\/acme\/([0-9a-f-]{36})$/.exec(request.path);
      if (!api) return null;
      const posting = postings.get(api[1] ?? '');
      if (request.method === 'GET')
        return {
          reply: posting ? { status: 200, body: postingJson(posting, `${base}/site/jobs.lever.co`) } : refused(404, 'Document not found'),
        };
      if (request.method !== 'POST') return null;
      if (request.query.get('key') !== options.key) return { reply: refused(401, 'Invalid API key') };
      if (!posting) return { reply: refused(404, 'Posting not found') };
      return { accept: () => accept(posting, request) };
    },
    (url) => ({ lever: `${url}/site/{host}`, leverApi: url }),
  );
  base = double.url;

  function accept(posting: Posting, request: ReceivedRequest): DoubleReply {
    const now = Date.now();
    while (acceptedAt.length > 0 && now - (acceptedAt[0] ?? 0) >= 1_000) acceptedAt.shift();
    if (acceptedAt.length >= limit) return refused(429, 'Too many requests');
    const fields = submittedFields(request);
    for (const name of ['name', 'email']) if (blank(fields.get(name))) return refused(400, `Missing required field: ${name}`);
    if (!String(fields.get('email')).includes('@')) return refused(400, 'Invalid email address: requires an "@" symbol');
    const resume = fields.get('resume');
    // A résumé is a file, in multipart only.
    if (resume !== undefined && typeof resume === 'string')
      return refused(400, 'Invalid resume: resume must be uploaded as a file in multipart/form-data');
    const required = posting.applyForm.sections.flatMap((section) => section.rows).filter((row) => row.required === true);
    for (const row of required)
      if (blank(fields.get(row.name)) || (row.type === 'checkbox' && !['true', true].includes(fields.get(row.name) as string | boolean)))
        return refused(400, `Missing required field: ${row.name}`);
    acceptedAt.push(now);
    sequence += 1;
    return { status: 200, body: { ok: true, applicationId: `0e0c0a00-0000-4000-8000-${String(sequence).padStart(12, '0')}` } };
  }
  return double;
}
