import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One submission as the site received it: every field and every file, byte for byte. */
export type ReceivedApplication = {
  path: string;
  fields: Record<string, string[]>;
  files: Record<string, Array<{ filename: string; contentType: string; bytes: Buffer }>>;
};

export type ApplicationSites = {
  origin: string;
  /** Every submission (POST) in arrival order. */
  received: ReceivedApplication[];
  /** What happened in order: `GET /path`, `POST /path`; a test appends its own marks (the hook). */
  events: string[];
  /** Submissions received and not answered yet, with the sender's end of the connection (who is waiting). */
  inFlight: Set<{ path: string; remoteAddress: string; remotePort: number }>;
  close(): Promise<void>;
};

const page = (title: string, body: string, script = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>.step[hidden]{display:none}.listbox{border:1px solid #999;margin:0;padding:0;list-style:none}.listbox li{padding:4px}</style></head><body><h1>${title}</h1>${body}${script ? `<script>${script}</script>` : ''}</body></html>`;

const candidateFields = `
  <label for="first_name">First name *</label><input id="first_name" name="first_name" required autocomplete="given-name">
  <label for="last_name">Last name *</label><input id="last_name" name="last_name" required autocomplete="family-name">
  <label for="email">Email *</label><input id="email" name="email" type="email" required>`;

/** A realistic one-page form: every native kind of control and a résumé upload (also the bench's site). */
const onePageForm = (action: string) => `
<p>We are hiring a Platform Engineer in London. Apply below.</p>
<form method="post" action="${action}" enctype="multipart/form-data">
  ${candidateFields}
  <label for="phone">Phone</label><input id="phone" name="phone" type="tel">
  <label for="country">Country of residence *</label>
  <select id="country" name="country" required><option value="">Select…</option><option value="gb">United Kingdom</option><option value="de">Germany</option><option value="fr">France</option></select>
  <fieldset><legend>Are you authorised to work in the UK? *</legend>
    <label><input type="radio" name="work_auth" value="yes" required> Yes</label>
    <label><input type="radio" name="work_auth" value="no"> No</label>
  </fieldset>
  <fieldset><legend>Languages you write every day</legend>
    <label><input type="checkbox" name="languages[]" value="ts"> TypeScript</label>
    <label><input type="checkbox" name="languages[]" value="go"> Go</label>
    <label><input type="checkbox" name="languages[]" value="rust"> Rust</label>
  </fieldset>
  <label for="start_date">Earliest start date</label><input id="start_date" name="start_date" type="date">
  <label for="motivation">Why this role? *</label><textarea id="motivation" name="motivation" required></textarea>
  <label for="resume">Résumé (PDF) *</label><input id="resume" name="resume" type="file" accept=".pdf" required>
  <label><input type="checkbox" id="privacy" name="privacy" value="accepted" required> I agree to the privacy policy *</label>
  <button type="submit">Submit application</button>
</form>`;

const wizard = page(
  'Data Analyst',
  `
<form id="apply" method="post" action="/wizard/submit">
  <div class="step" id="step-1">${candidateFields}<button type="button" data-next="step-2">Next</button></div>
  <div class="step" id="step-2" hidden>
    <label for="years">Years of experience *</label><select id="years" name="years" required><option value="">Select…</option><option>0-2</option><option>3-5</option><option>6+</option></select>
    <fieldset><legend>Willing to relocate? *</legend><label><input type="radio" name="relocate" value="yes"> Yes</label><label><input type="radio" name="relocate" value="no"> No</label></fieldset>
    <button type="button" data-next="step-3">Next</button>
  </div>
  <div class="step" id="step-3" hidden>
    <label for="sql">Describe a query you are proud of *</label><textarea id="sql" name="sql" required></textarea>
    <button type="submit">Submit</button>
  </div>
</form>`,
  `
for (const button of document.querySelectorAll('[data-next]')) button.addEventListener('click', () => {
  const step = button.closest('.step');
  for (const control of step.querySelectorAll('[required]')) if (!control.value) { control.reportValidity(); return; }
  step.hidden = true;
  document.getElementById(button.dataset.next).hidden = false;
});`,
);

// A react-select style list: the options exist only while the list is open, narrow as one types,
// and the choice lands in a hidden input. The form is sent with fetch and answered in place.
const combobox = page(
  'Support Engineer',
  `
<form id="apply">
  ${candidateFields}
  <label for="office" id="office-label">Preferred office *</label>
  <div class="select"><input id="office" role="combobox" aria-expanded="false" aria-autocomplete="list" aria-labelledby="office-label" autocomplete="off"><input type="hidden" name="office"></div>
  <button type="submit">Apply</button>
</form>
<div id="result" role="status"></div>`,
  `
const offices = ['Amsterdam', 'Berlin', 'Lisbon', 'London', 'New York'];
const input = document.getElementById('office');
const hidden = document.querySelector('input[name="office"]');
let list = null;
const close = () => { if (list) list.remove(); list = null; input.setAttribute('aria-expanded', 'false'); input.removeAttribute('aria-controls'); };
const open = () => {
  close();
  list = document.createElement('ul');
  list.id = 'office-listbox'; list.setAttribute('role', 'listbox'); list.className = 'listbox';
  const typed = input.value.toLowerCase();
  for (const office of offices.filter((name) => name.toLowerCase().includes(typed))) {
    const item = document.createElement('li');
    item.setAttribute('role', 'option'); item.textContent = office;
    item.addEventListener('mousedown', (event) => { event.preventDefault(); input.value = office; hidden.value = office; close(); });
    list.append(item);
  }
  input.parentElement.append(list);
  input.setAttribute('aria-expanded', 'true'); input.setAttribute('aria-controls', 'office-listbox');
};
input.addEventListener('mousedown', () => setTimeout(open, 10));
input.addEventListener('input', () => { hidden.value = ''; setTimeout(open, 10); });
input.addEventListener('keydown', (event) => { if (event.key === 'Escape') close(); if (event.key === 'ArrowDown') open(); });
input.addEventListener('blur', () => setTimeout(close, 50));
document.getElementById('apply').addEventListener('submit', async (event) => {
  event.preventDefault();
  const body = new URLSearchParams(new FormData(event.target));
  const response = await fetch('/combobox/submit', { method: 'POST', body });
  const answer = await response.json();
  event.target.remove();
  document.getElementById('result').textContent = answer.ok ? 'Application submitted. Reference: SUP-' + answer.id : answer.error;
});`,
);

// A repeatable group ("Add another" clones the entry with the next index) and two files.
const repeatUpload = page(
  'Backend Engineer',
  `
<form method="post" action="/repeat-upload/submit" enctype="multipart/form-data">
  ${candidateFields}
  <section id="experience" aria-label="Work experience"><h2>Work experience</h2>
    <div class="entry"><label for="experience-0-company">Company</label><input id="experience-0-company" name="experience[0][company]">
    <label for="experience-0-title">Title</label><input id="experience-0-title" name="experience[0][title]"></div>
    <button type="button" id="add">Add another</button>
  </section>
  <label for="cv">CV *</label><input id="cv" name="cv" type="file" accept=".pdf,.docx" required>
  <label for="cover_letter">Cover letter</label><input id="cover_letter" name="cover_letter" type="file" accept=".pdf,.txt">
  <button type="submit">Submit application</button>
</form>`,
  `
let count = 1;
document.getElementById('add').addEventListener('click', () => {
  const entry = document.querySelector('.entry').cloneNode(true);
  for (const element of entry.querySelectorAll('[id], [for], [name]')) {
    for (const attribute of ['id', 'for', 'name']) {
      const value = element.getAttribute(attribute);
      if (value) element.setAttribute(attribute, value.replace('0', String(count)));
    }
    if (element.matches('input')) element.value = '';
  }
  count += 1;
  document.getElementById('add').before(entry);
});`,
);

const simpleForm = (title: string, action: string, extra = '') =>
  page(
    title,
    `
<form method="post" action="${action}">
  ${candidateFields}
  <label for="phone">Phone</label><input id="phone" name="phone" type="tel">
  ${extra}
  <button type="submit">Submit application</button>
</form>`,
  );

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Parses a POST (urlencoded or multipart) with the platform's own form-data parser. */
async function parseSubmission(path: string, request: IncomingMessage): Promise<ReceivedApplication> {
  const body = await readBody(request);
  const form = await new Request('http://site.test/', {
    method: 'POST',
    headers: { 'content-type': request.headers['content-type'] ?? 'application/x-www-form-urlencoded' },
    body: new Uint8Array(body),
  }).formData();
  const received: ReceivedApplication = { path, fields: {}, files: {} };
  for (const [name, value] of form) {
    if (typeof value === 'string') (received.fields[name] ??= []).push(value);
    else if (value.size > 0 || value.name)
      (received.files[name] ??= []).push({ filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) });
  }
  return received;
}

const html = (response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) =>
  void response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);

/**
 * Local application sites on loopback, one per behaviour the applier must read: a one-page form,
 * a three-step wizard, a react-select style list sent with fetch, a repeatable group with two
 * uploads, a server that rejects a missing answer, a captcha after the submit, a closed posting, a
 * 404, an "already applied" answer, a confirmation with a reference number, and a slow site that
 * records the submission at once and answers `slowAnswerMs` later (the default 16 s). `host` is
 * the address it listens on (loopback 127.0.0.1 unless a test gives one of its own).
 */
export async function startApplicationSites(options: { slowAnswerMs?: number; host?: string } = {}): Promise<ApplicationSites> {
  const received: ReceivedApplication[] = [];
  const events: string[] = [];
  const inFlight: ApplicationSites['inFlight'] = new Set();
  let sequence = 0;
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      events.push(`${request.method} ${path}`);
      if (request.method === 'POST') {
        const waiting = { path, remoteAddress: request.socket.remoteAddress ?? '', remotePort: request.socket.remotePort ?? 0 };
        inFlight.add(waiting);
        response.once('close', () => inFlight.delete(waiting));
        const submission = await parseSubmission(path, request);
        received.push(submission);
        sequence += 1;
        const has = (name: string) => Boolean(submission.fields[name]?.[0]);
        switch (path) {
          case '/one-page/submit':
            return html(
              response,
              200,
              page(
                'Application received',
                `<p>Thank you for applying! Your application has been received and our team will be in touch.</p><p>Your application reference is PE-${40000 + sequence}.</p>`,
              ),
            );
          case '/wizard/submit':
          case '/repeat-upload/submit':
            return html(
              response,
              200,
              page(
                'Application received',
                '<p>Thank you for applying! Your application has been received and our team will be in touch.</p>',
              ),
            );
          case '/combobox/submit':
            return void response
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify(has('office') ? { ok: true, id: 7000 + sequence } : { ok: false, error: 'Please choose an office.' }));
          case '/strict/submit':
            if (!has('phone'))
              return html(
                response,
                422,
                simpleForm(
                  'Site Reliability Engineer',
                  '/strict/submit',
                  '<div class="error" role="alert">Phone number is required.</div>',
                ),
              );
            return html(response, 200, page('Thanks', '<p>Thank you for your application.</p>'));
          case '/captcha/submit':
            return html(
              response,
              200,
              page(
                'One more step',
                '<p>Please verify you are a human before we accept your application.</p><div class="g-recaptcha" style="width:304px;height:78px;border:1px solid #ccc"></div>',
              ),
            );
          case '/duplicate/submit':
            return html(response, 200, page('Product Designer', '<p>You have already applied for this position. We will be in touch.</p>'));
          case '/reference/submit':
            return html(response, 303, '', { location: '/reference/thanks' });
          case '/slow/submit':
            await new Promise((resolve) => setTimeout(resolve, options.slowAnswerMs ?? 16_000));
            return html(response, 200, page('Application received', '<p>Thank you for applying! Your application has been received.</p>'));
          default:
            return html(response, 404, page('Not found', '<p>Not found</p>'));
        }
      }
      switch (path) {
        case '/one-page':
          return html(response, 200, page('Platform Engineer', onePageForm('/one-page/submit')));
        case '/wizard':
          return html(response, 200, wizard);
        case '/combobox':
          return html(response, 200, combobox);
        case '/repeat-upload':
          return html(response, 200, repeatUpload);
        case '/strict':
          return html(response, 200, simpleForm('Site Reliability Engineer', '/strict/submit'));
        case '/captcha':
          return html(response, 200, simpleForm('QA Engineer', '/captcha/submit'));
        case '/closed':
          return html(response, 200, page('Account Manager', '<p>Sorry, this position is no longer accepting applications.</p>'));
        case '/duplicate':
          return html(response, 200, simpleForm('Product Designer', '/duplicate/submit'));
        case '/reference':
          return html(response, 200, simpleForm('Solutions Architect', '/reference/submit'));
        case '/slow':
          return html(response, 200, simpleForm('Technical Writer', '/slow/submit'));
        case '/reference/thanks':
          return html(
            response,
            200,
            page('Application received', `<p>Thank you for your application.</p><p>Your reference number is APP-${20930 + sequence}.</p>`),
          );
        default:
          return html(response, 404, page('Page not found', '<p>The page you are looking for does not exist.</p>'));
      }
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    received,
    events,
    inFlight,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
