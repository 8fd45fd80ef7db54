import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

/** Starts one vendor request within the vendor's cluster-wide rate (Lever: 2 POST/s per key). */
export type VendorRateLimit = <T>(key: string, work: () => Promise<T>, signal: AbortSignal) => Promise<T>;

const readme = 'https://github.com/lever/postings-api/blob/f61aac5831a193bc66e1183c3ad102739dfd9f56/README.md#apply-to-a-job-posting';

/**
 * What Lever's Postings API carries: the fields its README lists for "Apply to a job posting",
 * each under the hosted form's name for the same box (the miner's question id), which is also
 * the README's multipart name. The rest of the hosted form has no API field.
 */
export const leverApiCoverage: TransportCoverage = {
  vendor: 'lever',
  endpoint: 'POST https://api.lever.co/v0/postings/{site}/{postingId}?key= (api.eu.lever.co for jobs.eu.lever.co), multipart/form-data',
  fields: [
    { field: 'name', carries: "the candidate's name (required)", source: readme },
    { field: 'email', carries: "the candidate's email (required, must contain @)", source: readme },
    { field: 'resume', carries: 'the résumé file (multipart only)', source: readme },
    { field: 'phone', carries: 'the phone number', source: readme },
    { field: 'org', carries: 'the current company', source: readme },
    {
      field: 'urls[<name>]',
      carries: 'each link the form asks for (LinkedIn, GitHub, Twitter, Portfolio, Other…), under its name',
      source: readme,
    },
    { field: 'comments', carries: "the candidate's additional information", source: readme },
    { field: 'consent[marketing]', carries: 'consent to be contacted about future opportunities (true/false)', source: readme },
    { field: 'consent[store]', carries: 'consent to store and process their data (true/false)', source: readme },
  ],
  hostedFormOnly: [
    {
      what: 'custom questions (cards[…])',
      why: 'the README says the API does not "Expose custom questions built into your job postings"; it has no field for their answers',
    },
    { what: 'surveys (surveysResponses[…]) and EEO answers (eeo[…])', why: 'the README lists no field for them' },
    {
      what: 'current location (location) and pronouns',
      why: "the README lists no field for them (opportunityLocation is the posting's location, not the candidate's)",
    },
  ],
};

/** The hosted form's ids the API takes, by the README's field (name, email and phone come from the candidate when not answered). */
const carried = new Set(['name', 'email', 'phone', 'org', 'resume', 'comments', 'consent[marketing]', 'consent[store]']);
const isCarried = (id: string) => carried.has(id) || /^urls\[[^\]]+\]$/.test(id);
const isConsent = (id: string) => id.startsWith('consent[');

const booleanOf = (value: unknown): boolean | null =>
  typeof value === 'boolean' ? value : /^(yes|true)$/i.test(String(value)) ? true : /^(no|false)$/i.test(String(value)) ? false : null;

/**
 * Lever Postings API: `POST /v0/postings/{site}/{postingId}?key=`, multipart (the résumé is
 * accepted only so). An application answering anything the README lists no field for (custom
 * cards, surveys, EEO, current location) is not carried, and goes to the hosted form. Lever
 * refuses more than 2 application POSTs a second, across every worker of the deployment:
 * `rateLimit` spaces them through Redis. Lever merges a repeated email into one candidate, so it
 * never answers "already applied".
 */
export function leverApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'lever' || !credential)
      return { status: 'not-carried', reason: 'not a Lever posting with a registered key', answers: [] };
    const answers = answeredValues(application);
    const notCarried = answers.filter((answer) => !isCarried(answer.id)).map((answer) => answer.id);
    if (notCarried.length > 0)
      return { status: 'not-carried', reason: `Lever's Postings API has no field for ${notCarried.join(', ')}`, answers: notCarried };

    const { candidate } = application;
    const byId = new Map(answers.map((answer) => [answer.id, answer.value]));
    const text = (id: string, fallback?: string) => (typeof byId.get(id) === 'string' ? (byId.get(id) as string) : fallback);
    const form = new MultipartBody();
    form.append('name', text('name', `${candidate.firstName} ${candidate.lastName}`) ?? '');
    form.append('email', text('email', candidate.email) ?? '');
    const phone = text('phone', candidate.phone ?? undefined);
    if (phone) form.append('phone', phone);
    for (const { id, value } of answers) {
      if (id === 'name' || id === 'email' || id === 'phone') continue;
      if (id === 'resume') {
        if (!isFile(value)) return failedBeforeSending('ApplicationFailed', 'Lever: the résumé answer is not a file');
        form.append('resume', value);
      } else if (isConsent(id)) {
        const flag = booleanOf(value);
        if (flag === null) return failedBeforeSending('ApplicationFailed', `Lever: "${String(value)}" is not yes or no for ${id}`);
        form.append(id, String(flag));
      } else if (typeof value === 'string') form.append(id, value);
      else return failedBeforeSending('ApplicationFailed', `Lever: ${id} takes text`);
    }
    // The key rides in the query string, as Lever documents it: this URL is never logged.
    const host = target.host === 'jobs.eu.lever.co' ? 'api.eu.lever.co' : 'api.lever.co';
    const url = `${expandEndpoint(options.apiBaseUrl, { host })}/v0/postings/${encodeURIComponent(target.site)}/${encodeURIComponent(target.postingId)}?key=${encodeURIComponent(credential.key)}`;
    return options.rateLimit(
      `lever:${credential.board}`,
      () =>
        submitOnce(
          'Lever',
          hooks,
          () => callVendor(url, { method: 'POST', headers: { accept: 'application/json' }, body: form }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            const body = answer.json as { ok?: unknown; applicationId?: unknown; error?: unknown } | undefined;
            if (answer.status === 200 && body?.ok === true) {
              return {
                status: 'success',
                confirmation: {
                  text: "Submitted through Lever's Postings API",
                  ...(body.applicationId !== undefined ? { reference: String(body.applicationId) } : {}),
                },
              };
            }
            if (answer.status === 200)
              return { status: 'unknown', message: `Lever answered 200 without ok: true (${answer.text.slice(0, 200)})` };
            // Lever's errors are `{ok: false, error: <string>}` with no code: the text is all there is to read.
            return refusal('Lever', answer, typeof body?.error === 'string' ? body.error : vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
