import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, isFile, type VendorApplier } from './vendor-transport.ts';

/** Starts one vendor request within the vendor's cluster-wide rate (Lever: 2 POST/s per key). */
export type VendorRateLimit = <T>(key: string, work: () => Promise<T>, signal: AbortSignal) => Promise<T>;

/** The hosted form's fields the Postings API takes under the same name; custom cards, EEO and surveys it does not. */
const carried = new Set(['name', 'email', 'phone', 'org', 'resume', 'comments', 'consent[marketing]']);
const isCarried = (id: string) => carried.has(id) || /^urls\[[^\]]+\]$/.test(id);

/**
 * Lever Postings API: `POST /v0/postings/{site}/{postingId}?key=`, multipart (the résumé is
 * accepted only so). The API takes no answers to custom questions: an application answering one is
 * not carried, and goes to the hosted form. Lever refuses more than 2 application POSTs a second,
 * across every worker of the deployment: `rateLimit` spaces them through Redis.
 */
export function leverApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'lever' || !credential) return { status: 'not-carried', reason: 'not a Lever posting with a registered key', answers: [] };
    const answers = answeredValues(application);
    const notCarried = answers.filter((answer) => !isCarried(answer.id)).map((answer) => answer.id);
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Lever's Postings API takes no answer to ${notCarried.join(', ')}`, answers: notCarried };

    const form = new MultipartBody();
    const { candidate } = application;
    const byId = new Map(answers.map((answer) => [answer.id, answer.value]));
    form.append('name', typeof byId.get('name') === 'string' ? (byId.get('name') as string) : `${candidate.firstName} ${candidate.lastName}`);
    form.append('email', candidate.email);
    const phone = candidate.phone ?? byId.get('phone');
    if (typeof phone === 'string') form.append('phone', phone);
    for (const { id, value } of answers) {
      if (id === 'name' || id === 'email' || id === 'phone') continue;
      if (isFile(value)) form.append(id, value);
      else form.append(id, String(value));
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
              return { status: 'success', confirmation: { text: "Submitted through Lever's Postings API", ...(body.applicationId !== undefined ? { reference: String(body.applicationId) } : {}) } };
            }
            if (answer.status === 200) return { status: 'unknown', message: `Lever answered 200 without ok: true (${answer.text.slice(0, 200)})` };
            return refusal('Lever', answer, typeof body?.error === 'string' ? body.error : vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
