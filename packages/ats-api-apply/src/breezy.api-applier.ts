import type { FileToUpload, SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint, VendorUnreachable, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const Companies = z.array(z.object({ _id: z.string(), friendly_id: z.string().nullish() }));
const Positions = z.array(z.object({ _id: z.string(), friendly_id: z.string().nullish(), state: z.string().nullish() }));

const addDocs = 'https://developer.breezy.hr/docs/company-position-candidates-add';
// The add page's body is documented by example on the update page (the same candidate names).
const bodyDocs = 'https://developer.breezy.hr/docs/company-position-candidate-update';
const resumeDocs = 'https://developer.breezy.hr/docs/company-position-candidate-resume-add';

/** The apply page's boxes (the miner's ids) and the documented candidate field each is sent as. */
const attributes: Record<string, [field: string, carries: string]> = {
  cName: ['name', 'full name'],
  cEmail: ['email_address', 'email address'],
  cPhoneNumber: ['phone_number', 'phone number'],
  cAddress: ['address', 'address (free text)'],
  cSummary: ['summary', 'experience summary'],
  cCoverLetter: ['cover_letter', 'cover letter text'],
};

/** What Breezy's v3 API carries, and what only its apply page takes. */
export const breezyApiCoverage: TransportCoverage = {
  vendor: 'Breezy HR',
  endpoint: `POST https://api.breezy.hr/v3/company/{company_id}/position/{position_id}/candidates (JSON, token in Authorization; ${addDocs}), then POST …/candidate/{candidate_id}/resume (multipart)`,
  fields: [
    ...Object.values(attributes).map(([field, carries]) => ({ field, carries, source: bodyDocs })),
    { field: 'file', carries: 'the résumé file (multipart, second request)', source: resumeDocs },
  ],
  hostedFormOnly: [
    { what: 'questionnaire answers (every question type)', why: 'the v3 API documents no write of questionnaire answers' },
    {
      what: 'desired salary and preferred location',
      why: "no documented candidate field carries them (a custom attribute is the employer's own data, not the form's field)",
    },
    { what: 'EEOC self-identification and CCPA consent', why: 'no documented candidate field carries them' },
    {
      what: 'work history and education entries',
      why: 'documented as arrays of objects, but the apply page mines them as entries without parts, so no answer has a documented shape to send',
    },
  ],
};

/** The documented token errors (400 missingAccessToken, 401 invalidAccessToken) are a refused key, whatever their status. */
function breezyRefusal(answer: VendorAnswer): SubmitOutcome {
  const type = (answer.json as { error?: { type?: unknown } } | undefined)?.error?.type;
  const message = vendorMessage(answer.json, answer.text);
  if (type === 'missingAccessToken' || type === 'invalidAccessToken')
    return refusal('Breezy', { ...answer, status: 401 }, `${message} (HTTP ${answer.status})`);
  return refusal('Breezy', answer, message);
}

/**
 * Breezy HR's v3 API, the token in `Authorization`: the account's companies give the id of the
 * page's company (by its friendly id), its positions the id and state of the page's position;
 * then `POST /v3/company/{cid}/position/{pid}/candidates` (JSON: name, email, phone, address,
 * summary, cover letter) and, when there is one, the résumé as multipart `file` to
 * `…/candidate/{id}/resume`. The first POST is the irreversible one: a résumé that then fails to
 * attach leaves a candidate without it, reported as FileFailedToUpload with `submitted: true`.
 * Questionnaire, salary, location, EEO and consent answers have no field here: the hosted form
 * takes such an application.
 */
export function breezyApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'breezy' || !credential)
      return { status: 'not-carried', reason: 'not a Breezy posting with a registered key', answers: [] };

    const { candidate } = application;
    const body: Record<string, unknown> = {
      name: `${candidate.firstName} ${candidate.lastName}`,
      email_address: candidate.email,
      ...(candidate.phone ? { phone_number: candidate.phone } : {}),
    };
    let resume: FileToUpload | null = null;
    const given = new Set<string>(['cName', 'cEmail', ...(candidate.phone ? ['cPhoneNumber'] : [])]);
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const attribute = attributes[id]?.[0];
      if (attribute && typeof value === 'string') body[attribute] = value;
      else if (id === 'cResume' && isFile(value)) resume = value;
      else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0)
      return { status: 'not-carried', reason: `Breezy's candidate API has no field for ${notCarried.join(', ')}`, answers: notCarried };
    const missing = application.questions
      .filter((question) => question.mandatory && !given.has(question.id))
      .map((question) => question.id);
    if (missing.length > 0)
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `Breezy's apply page requires ${missing.join(', ')}`);

    const base = expandEndpoint(options.apiBaseUrl, {});
    const headers = { authorization: credential.key, accept: 'application/json' };
    const companies = await callVendor(`${base}/v3/companies`, { method: 'GET', headers }, options.timeoutMs, signal);
    if (companies.status !== 200) return breezyRefusal(companies);
    const company = Companies.safeParse(companies.json);
    const companyId = company.success
      ? company.data.find((entry) => entry.friendly_id?.toLowerCase() === target.company.toLowerCase())?._id
      : undefined;
    if (!companyId)
      return failedBeforeSending(
        'ApplicationFailed',
        `Breezy: the registered token does not open company ${target.company}; nothing was submitted`,
      );
    const listing = await callVendor(
      `${base}/v3/company/${encodeURIComponent(companyId)}/positions`,
      { method: 'GET', headers },
      options.timeoutMs,
      signal,
    );
    if (listing.status !== 200) return breezyRefusal(listing);
    const positions = Positions.safeParse(listing.json);
    const position = positions.success ? positions.data.find((entry) => entry.friendly_id === target.posting) : undefined;
    if (!position) return failedBeforeSending('JobNotFound', `Breezy: position ${target.posting} is not among the company's positions`);
    if (position.state && position.state !== 'published')
      return failedBeforeSending('JobExpired', `Breezy: position ${target.posting} is ${position.state}`);
    const positionUrl = `${base}/v3/company/${encodeURIComponent(companyId)}/position/${encodeURIComponent(position._id)}`;

    return options.rateLimit(
      `breezy:${credential.board}`,
      async () => {
        let candidateId: string | null = null;
        const created = await submitOnce(
          'Breezy',
          hooks,
          () => callVendor(`${positionUrl}/candidates`, { method: 'POST', headers, json: body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            // BREEZY-ADD: 200 with the Candidate object, its `_id` the candidate's id.
            const id = (answer.json as { _id?: unknown } | undefined)?._id;
            if ((answer.status === 200 || answer.status === 201) && id !== undefined) {
              candidateId = String(id);
              return { status: 'success', confirmation: { text: "Submitted through Breezy's candidate API", reference: candidateId } };
            }
            if (answer.status >= 200 && answer.status < 300)
              return {
                status: 'unknown',
                message: `Breezy answered HTTP ${answer.status} to the candidate without its _id (${answer.text.slice(0, 200)})`,
              };
            return breezyRefusal(answer);
          },
        );
        if (created.status !== 'success' || !resume || !candidateId) return created;
        const form = new MultipartBody();
        form.append('file', resume);
        try {
          const attached = await callVendor(
            `${positionUrl}/candidate/${encodeURIComponent(candidateId)}/resume`,
            { method: 'POST', headers, body: form },
            options.timeoutMs,
            signal,
          );
          if (attached.status >= 200 && attached.status < 300) return created;
          return {
            status: 'failed',
            errorCode: 'FileFailedToUpload',
            message: `Breezy recorded the candidate (${candidateId}) but refused the résumé (HTTP ${attached.status}: ${vendorMessage(attached.json, attached.text)})`,
            submitted: true,
          };
        } catch (error) {
          const reason = error instanceof VendorUnreachable ? error.message : 'no answer';
          return {
            status: 'failed',
            errorCode: 'FileFailedToUpload',
            message: `Breezy recorded the candidate (${candidateId}); whether the résumé was attached is not known (${reason})`,
            submitted: true,
          };
        }
      },
      signal,
    );
  };
}
