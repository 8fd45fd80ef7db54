import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type VendorApplier } from './vendor-transport.ts';

const Offers = z.object({
  offers: z.array(z.object({ slug: z.string(), open_questions: z.array(z.object({ id: z.union([z.number(), z.string()]), kind: z.string(), required: z.boolean().nullish(), open_question_options: z.array(z.object({ body: z.string() })).nullish() })).nullish() })),
});

/** The candidate's own fields (the miner's ids `candidate.<name>`), sent as `candidate[<name>]`. */
const candidateFields = new Set(['name', 'email', 'phone', 'cv', 'cover_letter', 'photo']);

/**
 * Recruitee's careers-site API, which needs no key: `POST /api/offers/{slug}/candidates`,
 * multipart. Each open question is one `open_question_answers_attributes[i]` entry: its id, then
 * `content` (text, numbers, dates as YYYY-MM-DD), `flag` (yes/no, consent) or `multi_content[]`
 * (choices, by their text). The offer list is read first: an offer no longer listed is closed.
 */
export function recruiteeApiApplier(options: { baseUrl: string; timeoutMs: number }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    if (target?.ats !== 'recruitee') return { status: 'not-carried', reason: 'not a Recruitee posting', answers: [] };
    const base = expandEndpoint(options.baseUrl, { company: target.company });
    const listing = await callVendor(`${base}/api/offers/`, { method: 'GET', headers: { accept: 'application/json' } }, options.timeoutMs, signal);
    const parsed = listing.status === 200 ? Offers.safeParse(listing.json) : null;
    if (!parsed?.success) return failedBeforeSending('ApplicationFailed', `Recruitee answered HTTP ${listing.status} to the offer list; nothing was submitted`);
    const offer = parsed.data.offers.find((candidate) => candidate.slug === target.slug);
    if (!offer) return failedBeforeSending('JobExpired', `Recruitee: offer "${target.slug}" is no longer published`);
    const kinds = new Map((offer.open_questions ?? []).map((question) => [`open_question_${question.id}`, question]));

    const form = new MultipartBody();
    const { candidate } = application;
    const answers = answeredValues(application);
    const given = new Map(answers.map((answer) => [answer.id, answer.value]));
    form.append('candidate[name]', typeof given.get('candidate.name') === 'string' ? (given.get('candidate.name') as string) : `${candidate.firstName} ${candidate.lastName}`);
    form.append('candidate[email]', candidate.email);
    const phone = candidate.phone ?? given.get('candidate.phone');
    if (typeof phone === 'string') form.append('candidate[phone]', phone);
    const notCarried: string[] = [];
    const answered = new Set<string>();
    let index = 0;
    for (const { id, value } of answers) {
      const own = /^candidate\.(.+)$/.exec(id)?.[1];
      if (own && candidateFields.has(own)) {
        if (own === 'name' || own === 'email' || own === 'phone') continue;
        if (isFile(value)) form.append(`candidate[${own}]`, value);
        else form.append(`candidate[${own}]`, String(value));
        continue;
      }
      const question = kinds.get(id);
      if (!question) {
        notCarried.push(id);
        continue;
      }
      const prefix = `candidate[open_question_answers_attributes][${index}]`;
      const entry: Array<[string, string]> = [];
      entry.push([`${prefix}[open_question_id]`, String(question.id)]);
      if (question.kind === 'boolean' || question.kind === 'legal') entry.push([`${prefix}[flag]`, String(value === true || value === 'Yes' || value === 'true')]);
      else if (question.kind === 'single_choice' || question.kind === 'multi_choice') for (const choice of Array.isArray(value) ? value : [value]) entry.push([`${prefix}[multi_content][]`, String(choice)]);
      else if (question.kind === 'date') entry.push([`${prefix}[content]`, isoDate(value)]);
      else if (typeof value === 'string' || typeof value === 'number') entry.push([`${prefix}[content]`, String(value)]);
      else {
        notCarried.push(id);
        continue;
      }
      for (const [name, part] of entry) form.append(name, part);
      answered.add(id);
      index += 1;
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Recruitee's careers-site API takes no answer to ${notCarried.join(', ')}`, answers: notCarried };
    const missing = [...kinds].filter(([id, question]) => question.required === true && question.kind !== 'infobox' && !answered.has(id)).map(([id]) => id);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Recruitee requires ${missing.join(', ')}`);

    return submitOnce(
      'Recruitee',
      hooks,
      () => callVendor(`${base}/api/offers/${encodeURIComponent(target.slug)}/candidates`, { method: 'POST', headers: { accept: 'application/json' }, body: form }, options.timeoutMs, signal),
      (answer): SubmitOutcome => {
        if (answer.status === 201 || answer.status === 200) {
          const id = (answer.json as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
          return { status: 'success', confirmation: { text: `Submitted through Recruitee's careers-site API (HTTP ${answer.status})`, ...(id !== undefined ? { reference: String(id) } : {}) } };
        }
        return refusal('Recruitee', answer, vendorMessage(answer.json, answer.text));
      },
    );
  };
}
