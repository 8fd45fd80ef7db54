import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type VendorApplier } from './vendor-transport.ts';

const Posting = z.object({ uuid: z.string(), active: z.boolean().optional() });
const ApplyConfiguration = z.object({ questions: z.array(z.object({ id: z.string(), label: z.string().optional(), required: z.boolean().optional() })).optional() });

/** The one-click page's fields (the miner's ids) that are the request's own attributes. */
const plain: Record<string, string> = { firstName: 'firstName', lastName: 'lastName', email: 'email', phoneNumber: 'phoneNumber', messageToHiringManager: 'messageToHiringManager' };
const webProfiles: Record<string, string> = { 'socialProfiles.linkedIn': 'linkedin', 'socialProfiles.website': 'website', 'socialProfiles.facebook': 'facebook', 'socialProfiles.x': 'twitter' };

/**
 * SmartRecruiters' Application API, on behalf of the candidate: `POST /postings/{uuid}/candidates`
 * with the key in `X-SmartToken`, JSON: names, email, phone, `location.city`, `web` profiles,
 * `education` entries (dates YYYY-MM-DD), the résumé as `{fileName, mimeType, fileContent}` in
 * base64 and the message to the hiring manager. The public posting is read first (its uuid, and
 * `active`), then the API's configuration: its screening questions are not on the page the miner
 * reads, so a required one stops the application before anything is sent.
 */
export function smartRecruitersApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'smartrecruiters' || !credential) return { status: 'not-carried', reason: 'not a SmartRecruiters posting with a registered key', answers: [] };
    const base = expandEndpoint(options.apiBaseUrl, {});
    const headers = { accept: 'application/json', 'x-smarttoken': credential.key };

    const postingAnswer = await callVendor(`${base}/v1/companies/${encodeURIComponent(target.company)}/postings/${encodeURIComponent(target.postingId)}`, { method: 'GET', headers: { accept: 'application/json' } }, options.timeoutMs, signal);
    if (postingAnswer.status === 404 || postingAnswer.status === 410) return failedBeforeSending('JobExpired', `SmartRecruiters: posting ${target.postingId} is no longer published`);
    const posting = postingAnswer.status === 200 ? Posting.safeParse(postingAnswer.json) : null;
    if (!posting?.success) return failedBeforeSending('ApplicationFailed', `SmartRecruiters answered HTTP ${postingAnswer.status} to the posting; nothing was submitted`);
    if (posting.data.active === false) return failedBeforeSending('JobExpired', `SmartRecruiters: posting ${target.postingId} is no longer active`);
    const uuid = encodeURIComponent(posting.data.uuid);

    const configurationAnswer = await callVendor(`${base}/postings/${uuid}/configuration`, { method: 'GET', headers }, options.timeoutMs, signal);
    if (configurationAnswer.status !== 200) return refusal('SmartRecruiters', configurationAnswer, vendorMessage(configurationAnswer.json, configurationAnswer.text));
    const configuration = ApplyConfiguration.safeParse(configurationAnswer.json);
    if (!configuration.success) return failedBeforeSending('ApplicationFailed', "SmartRecruiters' application configuration has an unknown shape; nothing was submitted");
    const screening = (configuration.data.questions ?? []).filter((question) => question.required === true);
    if (screening.length > 0) {
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `SmartRecruiters requires screening answers the posting's form does not show: ${screening.map((question) => `${question.id} ("${question.label ?? ''}")`).join(', ')}`);
    }

    const { candidate } = application;
    const body: Record<string, unknown> = { firstName: candidate.firstName, lastName: candidate.lastName, email: candidate.email, ...(candidate.phone ? { phoneNumber: candidate.phone } : {}) };
    const web: Record<string, string> = {};
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      if (plain[id] && typeof value === 'string') body[plain[id]] = value;
      else if (id === 'confirmEmail') continue; // the page's second copy of the email
      else if (id === 'placeOfResidence' && typeof value === 'string') body.location = { city: value };
      else if (webProfiles[id] && typeof value === 'string') web[webProfiles[id]] = value;
      else if (id === 'resume' && isFile(value)) body.resume = { fileName: value.filename, mimeType: value.contentType, fileContent: value.bytes.toString('base64') };
      else if (id === 'education' && Array.isArray(value)) {
        body.education = value.map((entry) =>
          Object.fromEntries((Array.isArray(entry) ? (entry as Array<{ id: string; value: unknown }>) : []).map((part) => {
            const key = part.id.slice('education.'.length);
            return [key, key.endsWith('Date') ? isoDate(part.value) : part.value];
          })),
        );
      } else notCarried.push(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `SmartRecruiters' Application API request has no field for ${notCarried.join(', ')}`, answers: notCarried };
    if (Object.keys(web).length > 0) body.web = web;

    return options.rateLimit(
      `smartrecruiters:${credential.board}`,
      () =>
        submitOnce(
          'SmartRecruiters',
          hooks,
          () => callVendor(`${base}/postings/${uuid}/candidates`, { method: 'POST', headers, json: body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              const id = (answer.json as { id?: unknown } | undefined)?.id;
              return { status: 'success', confirmation: { text: "Submitted through SmartRecruiters' Application API", ...(id !== undefined ? { reference: String(id) } : {}) } };
            }
            return refusal('SmartRecruiters', answer, vendorMessage((answer.json as { errors?: unknown } | undefined)?.errors ?? answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
