import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage, type HostedReply, type HostedVendor } from './hosted-ats.double.ts';

type OpenQuestion = { id: number; body: string; kind: string; required: boolean; open_question_options: Array<{ body: string }> };
type Offer = {
  slug: string;
  title: string;
  options_cv: string;
  options_cover_letter: string;
  options_phone: string;
  open_questions: OpenQuestion[];
};

export const recruiteeOfferSlug = 'backend-engineer';

/**
 * The offer list the careers page and the miner read (`GET /api/offers/`): the miner's
 * hand-written offer (Recruitee has no capture yet), plus open questions in the same shape for the
 * kinds it lacks (a date, a single choice), so their encodings are tested too.
 */
function recruiteeOffers(): { offers: Offer[] } {
  const listing = JSON.parse(
    readFileSync(new URL('../../../miner/fixtures/handwritten/recruitee-offers.json', import.meta.url), 'utf8'),
  ) as { offers: Offer[] };
  return {
    offers: listing.offers.map((offer) => ({
      ...offer,
      open_questions: [
        ...offer.open_questions,
        { id: 505, body: 'Earliest start date', kind: 'date', required: true, open_question_options: [] },
        {
          id: 506,
          body: 'Preferred way of working',
          kind: 'single_choice',
          required: false,
          open_question_options: [{ body: 'Remote' }, { body: 'Hybrid' }, { body: 'Office' }],
        },
      ],
    })),
  };
}

const star = (required: boolean) => (required ? '<span aria-hidden="true"> *</span>' : '');

/** An open question as entry `i` of `candidate[open_question_answers_attributes]`, its id in a hidden part. */
function openQuestion(question: OpenQuestion, index: number): string {
  const prefix = `candidate[open_question_answers_attributes][${index}]`;
  const title = `<span class="title">${escapeHtml(question.body)}${star(question.required)}</span>`;
  const id = `<input type="hidden" name="${prefix}[open_question_id]" value="${question.id}">`;
  // The careers-site API reads a single choice from `content`, several from `multi_content[]` (docs.recruitee.com/reference/offersoffer_idcandidates).
  const choices = (type: string) =>
    question.open_question_options
      .map(
        (option) =>
          `<label><input type="${type}" name="${prefix}${type === 'radio' ? '[content]' : '[multi_content][]'}" value="${escapeHtml(option.body)}"> ${escapeHtml(option.body)}</label>`,
      )
      .join('');
  switch (question.kind) {
    case 'boolean':
    case 'legal':
      return `<fieldset class="field">${id}<legend>${title}</legend><label><input type="radio" name="${prefix}[flag]" value="true"> Yes</label><label><input type="radio" name="${prefix}[flag]" value="false"> No</label></fieldset>`;
    case 'multi_choice':
      return `<fieldset class="field">${id}<legend>${title}</legend>${choices('checkbox')}</fieldset>`;
    case 'single_choice':
      return `<fieldset class="field">${id}<legend>${title}</legend>${choices('radio')}</fieldset>`;
    case 'text':
      return `<div class="field">${id}<label for="oq-${question.id}">${title}</label><textarea id="oq-${question.id}" name="${prefix}[content]"></textarea></div>`;
    case 'date':
      return `<div class="field">${id}<label for="oq-${question.id}">${title}</label><input type="date" id="oq-${question.id}" name="${prefix}[content]"></div>`;
    default:
      return `<div class="field">${id}<label for="oq-${question.id}">${title}</label><input type="text" id="oq-${question.id}" name="${prefix}[content]"></div>`;
  }
}

function applicationForm(offer: Offer): string {
  const shown = (option: string) => option === 'required' || option === 'optional';
  const box = (name: string, title: string, type: string, required: boolean) =>
    `<div class="field"><label for="${name}">${title}${star(required)}</label><input type="${type}" id="${name}" name="candidate[${name}]"></div>`;
  let index = 0;
  const questions = offer.open_questions.map((question) =>
    question.kind === 'infobox' ? `<div class="infobox">${question.body}</div>` : openQuestion(question, (index += 1) - 1),
  );
  return `<form id="apply-form" novalidate>
${box('name', 'Full name', 'text', true)}${box('email', 'Email address', 'email', true)}
${shown(offer.options_phone) ? box('phone', 'Phone number', 'tel', offer.options_phone === 'required') : ''}
${shown(offer.options_cv) ? `<div class="field"><label for="cv">CV or resume${star(offer.options_cv === 'required')}</label><input type="file" id="cv" name="candidate[cv]" accept=".pdf,.doc,.docx,.odt,.rtf"></div>` : ''}
${shown(offer.options_cover_letter) ? `<div class="field"><label for="cover_letter">Cover letter${star(offer.options_cover_letter === 'required')}</label><textarea id="cover_letter" name="candidate[cover_letter]"></textarea></div>` : ''}
${questions.join('\n')}
<button type="submit">Submit application</button></form>`;
}

/**
 * The careers page's behaviour: nothing leaves before Submit, which posts the form as one
 * multipart request to the careers-site API `POST /api/offers/{slug}/candidates` (the payload a
 * working client sends: `candidate[name]`, …, open questions as
 * `candidate[open_question_answers_attributes][i][open_question_id]` and `[content]` (a single choice too), `[flag]`
 * or `[multi_content][]`). 201 shows the thanks; 422 `{error, error_fields}` shows each field's words.
 */
const script = (slug: string) => `
const form = document.getElementById('apply-form');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  form.querySelectorAll('[role=alert]').forEach((alert) => alert.remove());
  const answer = await fetch('/api/offers/${slug}/candidates', { method: 'POST', body: new FormData(form) });
  const reply = await answer.json();
  if (answer.status === 201) { form.outerHTML = '<div class="thanks"><h2>Thank you for applying!</h2><p>Your application has been sent to Acme.</p></div>'; return; }
  for (const [field, messages] of Object.entries(reply.error_fields ?? {})) {
    const alert = document.createElement('div'); alert.setAttribute('role', 'alert'); alert.className = 'error';
    alert.textContent = field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ') + ' ' + messages.join(', ');
    form.prepend(alert);
  }
});`;

/**
 * Recruitee's hosted careers page ({company}.recruitee.com/o/{slug}/c/new) built from the offer
 * list above, which it also serves to the miner. The page's markup was never captured: its boxes
 * carry the careers-site API's part names, its labels the offer's words. Closed: an offer no
 * longer published answers 404 (page wording unmeasured). Refused file and missing answer: the API's
 * 422 `error_fields` (wording unmeasured). The research found no bot check and no duplicate refusal
 * on Recruitee's careers site: the double has neither.
 */
export function recruiteeHostedVendor(): HostedVendor {
  const listing = recruiteeOffers();
  const offer = listing.offers.find((candidate) => candidate.slug === recruiteeOfferSlug) as Offer;
  const applyPath = `/o/${recruiteeOfferSlug}/c/new`;
  const head = `<link rel="canonical" href="https://acme.recruitee.com${applyPath}">`;
  const refusal = (fields: Record<string, string[]>): HostedReply => ({
    status: 422,
    json: { error: Object.entries(fields).map(([field, messages]) => `${field} ${messages.join(', ')}`), error_fields: fields },
  });
  return {
    ats: 'recruitee',
    applyPath,
    variants: ['accept', 'closed', 'invalidFile', 'missingField'],
    page: (variant) =>
      variant === 'closed'
        ? {
            status: 404,
            html: htmlPage(
              'Acme - Careers',
              head,
              '<main><h1>Sorry, this job offer is no longer available.</h1><p>See all open jobs at Acme.</p></main>',
              '',
            ),
          }
        : {
            status: 200,
            html: htmlPage(
              `${offer.title} - Acme`,
              head,
              `<main><h1>${escapeHtml(offer.title)}</h1>${applicationForm(offer)}</main>`,
              script(recruiteeOfferSlug),
            ),
          },
    post: (_request, variant) => {
      if (variant === 'invalidFile')
        return { kind: 'submission', reply: refusal({ cv: ['has an invalid file type (allowed: pdf, doc, docx, odt, rtf)'] }) };
      if (variant === 'missingField') return { kind: 'submission', reply: refusal({ phone: ["can't be blank"] }) };
      return { kind: 'submission', reply: { status: 201, json: { candidate: { id: 9001 } } } };
    },
    extraPages: { '/api/offers/': { status: 200, json: listing } },
  };
}
