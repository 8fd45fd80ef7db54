import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, type VendorApplier } from './vendor-transport.ts';

const Jobs = z.array(z.object({ id: z.string(), board_code: z.string().nullish(), status: z.string().nullish() }));
const PageSize = 100;

/** The apply page's fields (the miner's ids) and the applicant attribute each is sent as. */
const attributes: Record<string, string> = {
  'resumator-firstname-value': 'first_name',
  'resumator-lastname-value': 'last_name',
  'resumator-email-value': 'email',
  'resumator-phone-value': 'phone',
  'resumator-address-value': 'address',
  'resumator-city-value': 'city',
  'resumator-state-value': 'state',
  'resumator-postal-value': 'postal',
};

/**
 * JazzHR's API: `POST /v1/applicants`, JSON with the key as `apikey`, the applicant's name, email,
 * phone and address, `job` (the API's job id) and the résumé as `base64-resume`. The apply page
 * names the job by its board code: the API's job list (`GET /v1/jobs`, 100 a page) gives its id
 * and status, so a job no longer Open is JobExpired before anything is sent. Questionnaire and EEO
 * answers have no field in this API: such an application goes to the hosted form.
 */
export function jazzApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'jazzhr' || !credential) return { status: 'not-carried', reason: 'not a JazzHR posting with a registered key', answers: [] };
    const boardCode = target.jobPath.split('/')[1] ?? '';

    const { candidate } = application;
    const body: Record<string, unknown> = { apikey: credential.key, first_name: candidate.firstName, last_name: candidate.lastName, email: candidate.email, ...(candidate.phone ? { phone: candidate.phone } : {}) };
    const notCarried: string[] = [];
    const given = new Set<string>(Object.keys(attributes).filter((id) => body[attributes[id] ?? ''] !== undefined));
    for (const { id, value } of answeredValues(application)) {
      const attribute = attributes[id];
      if (attribute && typeof value === 'string') body[attribute] = value;
      else if (id === 'resumator-resume-value' && isFile(value)) body['base64-resume'] = value.bytes.toString('base64');
      else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `JazzHR's applicants API has no field for ${notCarried.join(', ')}`, answers: notCarried };
    // JazzHR's own check is the name and email only: the page's other required fields are checked here.
    const missing = application.questions.flatMap((question) => (question.inputType === 'FragmentedQuestion' ? (question.options ?? []) : [question]))
      .filter((question) => 'id' in question && question.mandatory && !given.has(question.id))
      .map((question) => ('id' in question ? question.id : ''));
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `JazzHR's apply page requires ${missing.join(', ')}`);

    const base = expandEndpoint(options.apiBaseUrl, {});
    let job: z.infer<typeof Jobs>[number] | undefined;
    for (let page = 1; !job && page <= 20; page += 1) {
      const listing = await callVendor(`${base}/v1/jobs${page > 1 ? `/page/${page}` : ''}?apikey=${encodeURIComponent(credential.key)}`, { method: 'GET', headers: { accept: 'application/json' } }, options.timeoutMs, signal);
      if (listing.status !== 200) return refusal('JazzHR', listing, vendorMessage(listing.json, listing.text));
      const jobs = Jobs.safeParse(Array.isArray(listing.json) ? listing.json : [listing.json]);
      if (!jobs.success) return failedBeforeSending('ApplicationFailed', "JazzHR's job list has an unknown shape; nothing was submitted");
      job = jobs.data.find((candidateJob) => candidateJob.board_code === boardCode);
      if (jobs.data.length < PageSize) break;
    }
    if (!job) return failedBeforeSending('JobExpired', `JazzHR: no job of this account has the board code ${boardCode}`);
    if (job.status && !/^open$/i.test(job.status)) return failedBeforeSending('JobExpired', `JazzHR: job ${boardCode} is ${job.status}`);
    body.job = job.id;

    return options.rateLimit(
      `jazzhr:${credential.board}`,
      () =>
        submitOnce(
          'JazzHR',
          hooks,
          () => callVendor(`${base}/v1/applicants`, { method: 'POST', headers: { accept: 'application/json' }, json: body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              const id = (answer.json as { prospect_id?: unknown } | undefined)?.prospect_id;
              return { status: 'success', confirmation: { text: "Submitted through JazzHR's applicants API", ...(id !== undefined ? { reference: String(id) } : {}) } };
            }
            return refusal('JazzHR', answer, vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
