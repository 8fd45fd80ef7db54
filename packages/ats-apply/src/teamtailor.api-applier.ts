import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint, VendorUnreachable } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, type VendorApplier } from './vendor-transport.ts';

const Job = z.object({ data: z.object({ attributes: z.object({ status: z.string().nullish() }).loose() }) });
const ApiVersion = '20240404';

/** The career site's fields (the miner's ids) and the candidate attribute each is sent as. */
const attributes: Record<string, string> = {
  'candidate[first_name]': 'first-name',
  'candidate[last_name]': 'last-name',
  'candidate[email]': 'email',
  'candidate[phone]': 'phone',
};
const coverLetter = 'candidate[job_applications_attributes][0][cover_letter]';

/**
 * Teamtailor's JSON:API (`Authorization: Token token=…`, `X-Api-Version`): the job read first
 * (`GET /v1/jobs/{id}`: not open → JobExpired), then `POST /v1/candidates` (`merge: true`, so a
 * returning candidate is the same record) and `POST /v1/job-applications` linking the candidate to
 * the job, with the cover letter. It takes a résumé only as a URL and screening answers through
 * other calls, so an application with files, answers or consents goes to the hosted form. The
 * candidate is the first write: `beforeSubmit` runs before it, and a job application refused after
 * it is reported `submitted: true`.
 */
export function teamtailorApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'teamtailor' || !credential) return { status: 'not-carried', reason: 'not a Teamtailor posting with a registered key', answers: [] };
    const jobId = /(?:^|\/)jobs\/(\d+)/.exec(target.jobPath)?.[1];
    if (!jobId) return { status: 'not-carried', reason: 'the Teamtailor job id is not in the posting URL', answers: [] };

    const { candidate } = application;
    const candidateAttributes: Record<string, unknown> = { 'first-name': candidate.firstName, 'last-name': candidate.lastName, email: candidate.email, ...(candidate.phone ? { phone: candidate.phone } : {}), sourced: false, merge: true };
    const applicationAttributes: Record<string, unknown> = {};
    const given = new Set<string>(['candidate[first_name]', 'candidate[last_name]', 'candidate[email]', ...(candidate.phone ? ['candidate[phone]'] : [])]);
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const attribute = attributes[id];
      if (attribute && typeof value === 'string') candidateAttributes[attribute] = value;
      else if (id === coverLetter && typeof value === 'string') applicationAttributes['cover-letter'] = value;
      else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Teamtailor's API carries no ${notCarried.join(', ')} with the application`, answers: notCarried };
    const missing = application.questions.filter((question) => question.mandatory && !given.has(question.id)).map((question) => question.id);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Teamtailor's application form requires ${missing.join(', ')}`);

    const base = expandEndpoint(options.apiBaseUrl, {});
    const headers = { authorization: `Token token=${credential.key}`, 'x-api-version': ApiVersion, accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' };
    const jobAnswer = await callVendor(`${base}/v1/jobs/${jobId}`, { method: 'GET', headers }, options.timeoutMs, signal);
    if (jobAnswer.status !== 200) return refusal('Teamtailor', jobAnswer, vendorMessage(jobAnswer.json, jobAnswer.text));
    const job = Job.safeParse(jobAnswer.json);
    if (!job.success) return failedBeforeSending('ApplicationFailed', "Teamtailor's job has an unknown shape; nothing was submitted");
    const status = job.data.data.attributes.status;
    if (status && status !== 'open') return failedBeforeSending('JobExpired', `Teamtailor: job ${jobId} is ${status}`);

    return options.rateLimit(
      `teamtailor:${credential.board}`,
      async () => {
        let candidateId: string | null = null;
        const created = await submitOnce(
          'Teamtailor',
          hooks,
          () => callVendor(`${base}/v1/candidates`, { method: 'POST', headers, json: { data: { type: 'candidates', attributes: candidateAttributes } } }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            const id = (answer.json as { data?: { id?: unknown } } | undefined)?.data?.id;
            if ((answer.status === 200 || answer.status === 201) && id !== undefined) {
              candidateId = String(id);
              return { status: 'success', confirmation: { text: 'candidate recorded' } };
            }
            if (answer.status === 200 || answer.status === 201) return { status: 'unknown', message: `Teamtailor recorded a candidate without naming it (${answer.text.slice(0, 200)})` };
            return refusal('Teamtailor', answer, vendorMessage(answer.json, answer.text));
          },
        );
        if (created.status !== 'success' || !candidateId) return created;
        const linked = { type: 'job-applications', attributes: applicationAttributes, relationships: { candidate: { data: { type: 'candidates', id: candidateId } }, job: { data: { type: 'jobs', id: jobId } } } };
        let answer;
        try {
          answer = await callVendor(`${base}/v1/job-applications`, { method: 'POST', headers, json: { data: linked } }, options.timeoutMs, signal);
        } catch (error) {
          const reason = error instanceof VendorUnreachable ? error.message : error instanceof Error ? error.message : String(error);
          return { status: 'unknown', message: `Teamtailor recorded the candidate (${candidateId}); whether the job application was recorded is not known (${reason})` };
        }
        if (answer.status === 200 || answer.status === 201) {
          const id = (answer.json as { data?: { id?: unknown } } | undefined)?.data?.id;
          return { status: 'success', confirmation: { text: "Submitted through Teamtailor's API", reference: id !== undefined ? String(id) : candidateId } };
        }
        if (answer.status >= 500) return { status: 'unknown', message: `Teamtailor recorded the candidate (${candidateId}) and answered HTTP ${answer.status} to the job application` };
        const refused = refusal('Teamtailor', answer, vendorMessage(answer.json, answer.text));
        return refused.status === 'failed' ? { ...refused, message: `${refused.message} (the candidate ${candidateId} was recorded)`, submitted: true } : refused;
      },
      signal,
    );
  };
}
