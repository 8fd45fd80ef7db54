import { readFileSync } from 'node:fs';
import { startVendorDouble, type DoubleReply, type ReceivedPart, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * Recruitee's Careers Site API, rebuilt from its published material:
 *
 * - DOCS  https://docs.recruitee.com/reference/offersoffer_idcandidates — `POST /offers/:offer_slug/candidates`
 *   ("Apply for the job offer (create candidate)"): name, phone, email and cv are required by default, and an
 *   offer's settings can turn off all but name and email; screening questions come from `GET /offers`
 *   (`open_questions[{id, kind, required, position, body, open_question_options}]`) and each answer is
 *   `candidate[open_question_answers_attributes][i][open_question_id]` plus one value field chosen by kind:
 *   `content` for string, text, single_choice, date, salary and number; `multi_content` for multi_choice;
 *   `file` for file; `flag` for boolean and legal.
 * - INTRO https://docs.recruitee.com/reference/intro-to-careers-site-api — no key; applying through it is the
 *   candidate applying (confirmation email included).
 * - CHEDDAR Ches-ctrl/Cheddar@b08713b333767b5cb7560865013b0ae7bddb119e:
 *   app/models/concerns/ats/recruitee/submit_application.rb:10-28,44-66 (multipart `candidate[name|email|phone|cv|
 *   cover_letter]`, `[multi_content][]` with brackets, success `201 Created`, refusal `422` with `error` (a list)
 *   and `error_fields` ({field: [messages]})); application_fields.rb:96-146 (candidate fields name, email,
 *   phone, photo (file), cover_letter, cv (file); the offer's `options_phone|photo|cover_letter|cv` say
 *   required/optional/off); spec/fixtures/cassettes/*recruitee*.yml (captured `GET /api/offers/` bodies: the
 *   offer keys, `open_questions[].options.length`, option ids, `locations_question*`).
 *
 * Where the sources are silent, and what the double does then:
 * - Whether a required open question left empty is refused: not documented; the double refuses it with the
 *   422 shape above (the hosted form will not submit without it either).
 * - A value sent in another field than its kind's (e.g. a single choice as `multi_content[]`) is not an
 *   answer: the API reads only the documented field, so the question is blank (the refusal the issue saw).
 * - Kind `video` (seen in Cheddar's mapping only, not in the docs) and `infobox` (text, no answer): the
 *   double accepts no answer to either.
 * - The wording of 422 messages is not documented: Rails' "can't be blank" (what Cheddar logged).
 * - `GET /offers/:slug` answers `{offer}`; an unknown or unpublished slug 404 `{error: "Not found"}` (not
 *   documented; only published offers are listed).
 * - Duplicate applications: no source documents a refusal; the double accepts them.
 * - `?async=true` (Cheddar's URL) is ignored.
 */

type OpenQuestion = {
  id: number;
  kind: string;
  required: boolean;
  body: string;
  open_question_options: Array<{ id: number; body: string }>;
};
type Offer = {
  slug: string;
  title: string;
  options_cv: string;
  options_cover_letter: string;
  options_phone: string;
  options_photo: string;
  open_questions: OpenQuestion[];
};

/** The offers of company `acme` on the Recruitee double, by slug. */
export const recruiteeDoubleOffers = {
  /** Every documented open-question kind (and an infobox), cv and phone required, photo optional. */
  everyKind: 'backend-engineer',
  /** A `video` question (no documented answer field), phone, cover letter and photo turned off. */
  video: 'product-designer',
  /** Not published: not listed, and its candidates endpoint answers 404. */
  closed: 'closed-role',
} as const;

const recruiteeDoubleListing = (): { offers: Offer[] } =>
  JSON.parse(readFileSync(new URL('../../fixtures/vendor-apis/recruitee/offers.json', import.meta.url), 'utf8')) as { offers: Offer[] };

/** DOCS: the value field of each kind's answer. */
const answerFieldOf: Record<string, 'content' | 'multi_content][' | 'file' | 'flag'> = {
  string: 'content',
  text: 'content',
  single_choice: 'content',
  date: 'content',
  salary: 'content',
  number: 'content',
  multi_choice: 'multi_content][',
  file: 'file',
  boolean: 'flag',
  legal: 'flag',
};

const present = (value: ReceivedPart | undefined): boolean =>
  typeof value === 'string' ? value.trim() !== '' : value !== undefined && value.bytes.length > 0;

/** CHEDDAR: 422 `{error: [...], error_fields: {field: [...]}}`. */
const refused = (fields: Record<string, string[]>): DoubleReply => ({
  status: 422,
  body: {
    error: Object.entries(fields).map(
      ([field, messages]) => `${field.charAt(0).toUpperCase()}${field.slice(1).replaceAll('_', ' ')} ${messages.join(', ')}`,
    ),
    error_fields: fields,
  },
});

/** The answers an application carries, by open question id: what arrived in the field its kind documents. */
function answersOf(request: ReceivedRequest, offer: Offer): Map<number, ReceivedPart[]> {
  const entries = new Map<string, Map<string, ReceivedPart[]>>();
  for (const [name, value] of request.parts) {
    const part = /^candidate\[open_question_answers_attributes\]\[(\d+)\]\[(.+)\]$/.exec(name);
    if (!part) continue;
    const [, index = '', field = ''] = part;
    const entry = entries.get(index) ?? new Map<string, ReceivedPart[]>();
    entry.set(field, [...(entry.get(field) ?? []), value]);
    entries.set(index, entry);
  }
  const byQuestion = new Map<number, ReceivedPart[]>();
  for (const entry of entries.values()) {
    const id = Number(entry.get('open_question_id')?.[0]);
    const question = offer.open_questions.find((candidate) => candidate.id === id);
    const field = question ? answerFieldOf[question.kind] : undefined;
    if (question && field) byQuestion.set(id, (entry.get(field) ?? []).filter(present));
  }
  return byQuestion;
}

/** DOCS: name and email always; phone and cv unless the offer turned them off; CHEDDAR: the same toggles for photo and cover letter. */
function blanks(request: ReceivedRequest, offer: Offer): Record<string, string[]> {
  const part = (name: string) => request.parts.find(([key]) => key === `candidate[${name}]`)?.[1];
  const required = [
    'name',
    'email',
    ...(['phone', 'cv', 'cover_letter', 'photo'] as const).filter((name) => offer[`options_${name}`] === 'required'),
  ];
  const fields: Record<string, string[]> = {};
  for (const name of required) if (!present(part(name))) fields[name] = ["can't be blank"];
  const answers = answersOf(request, offer);
  for (const question of offer.open_questions) {
    if (question.required && answerFieldOf[question.kind] && (answers.get(question.id) ?? []).length === 0)
      fields[`open_question_answers.${question.id}`] = ["can't be blank"];
  }
  return fields;
}

/**
 * Recruitee's careers-site API on loopback, company `acme` under `/company/acme` (the router's
 * `{company}.recruitee.com` base): the offer list and one offer (what the miner and the transport
 * read), and the candidate creation, which needs no key.
 */
export async function startRecruiteeApiDouble(): Promise<VendorApiDouble> {
  const listing = recruiteeDoubleListing();
  let sequence = 0;
  return startVendorDouble(
    (request) => {
      const base = '/company/acme/api/offers/';
      if (request.method === 'GET' && request.path === base) return { reply: { status: 200, body: listing } };
      const single = /^\/company\/acme\/api\/offers\/([^/]+)\/?$/.exec(request.path);
      if (request.method === 'GET' && single) {
        const offer = listing.offers.find((candidate) => candidate.slug === single[1]);
        return { reply: offer ? { status: 200, body: { offer } } : { status: 404, body: { error: 'Not found' } } };
      }
      const apply = /^\/company\/acme\/api\/offers\/([^/]+)\/candidates$/.exec(request.path);
      if (request.method !== 'POST' || !apply) return null;
      const offer = listing.offers.find((candidate) => candidate.slug === apply[1]);
      if (!offer) return { reply: { status: 404, body: { error: 'Not found' } } };
      return {
        accept: () => {
          const missing = blanks(request, offer);
          if (Object.keys(missing).length > 0) return refused(missing);
          sequence += 1;
          return { status: 201, body: { candidate: { id: 9_000 + sequence } } };
        },
      };
    },
    (url) => ({ recruitee: `${url}/company/{company}` }),
  );
}
