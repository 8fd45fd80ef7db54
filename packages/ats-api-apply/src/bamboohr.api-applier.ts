import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const StandardField = z.object({
  isRequired: z.boolean().optional(),
  options: z.array(z.object({ id: z.union([z.string(), z.number()]), text: z.string() })).optional(),
});
const Detail = z.object({
  result: z.object({
    jobOpening: z.object({ jobOpeningStatus: z.string().optional() }).optional(),
    formFields: z.record(z.string(), z.unknown()),
  }),
});

const addNewCandidate = 'https://documentation.bamboohr.com/reference/add-new-candidate-1';

/**
 * The careers page's standard fields (the miner's ids) and the Add New Candidate parameter each
 * goes to. Selects go as the chosen option's text (the API takes state and country by name or
 * abbreviation); the date as YYYY-MM-DD; the two files as file parts.
 */
const apiNames: Record<string, string> = {
  firstName: 'firstName',
  lastName: 'lastName',
  email: 'email',
  phone: 'phoneNumber',
  streetAddress: 'address',
  city: 'city',
  state: 'state',
  zip: 'zip',
  countryId: 'country',
  linkedinUrl: 'linkedinUrl',
  websiteUrl: 'websiteUrl',
  dateAvailable: 'dateAvailable',
  desiredPay: 'desiredSalary',
  referredBy: 'referredBy',
  references: 'references',
  educationLevelId: 'highestEducation',
  educationInstitutionName: 'collegeName',
  resumeFileId: 'resumeFile',
  coverLetterFileId: 'coverLetterFile',
};

/** What the transport fills (every parameter of Add New Candidate an answer can give) and what the careers page takes instead. */
export const bambooApiCoverage: TransportCoverage = {
  vendor: 'bamboohr',
  endpoint:
    'POST https://api.bamboohr.com/api/gateway.php/{companyDomain}/v1/applicant_tracking/application (multipart, HTTP Basic with the API key)',
  fields: [
    { field: 'firstName', carries: 'first name', source: addNewCandidate },
    { field: 'lastName', carries: 'last name', source: addNewCandidate },
    { field: 'email', carries: 'email', source: addNewCandidate },
    { field: 'phoneNumber', carries: 'phone', source: addNewCandidate },
    { field: 'jobId', carries: 'the job opening (from the posting URL)', source: addNewCandidate },
    { field: 'address', carries: 'street address', source: addNewCandidate },
    { field: 'city', carries: 'city', source: addNewCandidate },
    { field: 'state', carries: 'state or province (the option text)', source: addNewCandidate },
    { field: 'zip', carries: 'zip or postal code', source: addNewCandidate },
    { field: 'country', carries: 'country (the option text)', source: addNewCandidate },
    { field: 'linkedinUrl', carries: 'LinkedIn profile URL', source: addNewCandidate },
    { field: 'dateAvailable', carries: 'date available, YYYY-MM-DD', source: addNewCandidate },
    { field: 'desiredSalary', carries: 'desired pay', source: addNewCandidate },
    { field: 'referredBy', carries: 'who referred the candidate', source: addNewCandidate },
    { field: 'websiteUrl', carries: 'website, blog or portfolio', source: addNewCandidate },
    { field: 'highestEducation', carries: 'highest education obtained (the option text)', source: addNewCandidate },
    { field: 'collegeName', carries: 'college or university', source: addNewCandidate },
    { field: 'references', carries: 'references', source: addNewCandidate },
    { field: 'resumeFile', carries: 'résumé file', source: addNewCandidate },
    { field: 'coverLetterFile', carries: 'cover letter file', source: addNewCandidate },
  ],
  hostedFormOnly: [
    {
      what: "the employer's custom questions (customQuestionAnswers.*: short, long, yes_no, multi, file)",
      why: 'Add New Candidate documents no parameter for them',
    },
    {
      what: 'EEO answers (genderId, ethnicityId, veteranStatusId, disabilityId)',
      why: 'Add New Candidate documents no parameter for them',
    },
  ],
};

/**
 * BambooHR's refusals: the reference documents the statuses (400 bad parameters, 401, 403, 404 a
 * request URL naming nothing) but no error body or codes, so the message is read for what it names:
 * an unknown job opening, a parameter in the wrong format; the rest as every vendor's.
 */
function bambooRefusal(answer: VendorAnswer): SubmitOutcome {
  const message = vendorMessage(answer.json, answer.text);
  if (answer.status === 404)
    return {
      status: 'failed',
      errorCode: 'JobNotFound',
      message: `BambooHR: ${message || 'HTTP 404'} (the request names no company or job opening this key reaches)`,
      submitted: false,
    };
  if (answer.status === 400 && /job ?(opening|id)[^.]*not found|not found[^.]*job/i.test(message))
    return { status: 'failed', errorCode: 'JobNotFound', message: `BambooHR: ${message}`, submitted: false };
  if (answer.status === 400 && /must (have|be in) the format|invalid format|format YYYY-MM-DD/i.test(message))
    return { status: 'failed', errorCode: 'ApplicantDetailsInvalid', message: `BambooHR: ${message}`, submitted: false };
  return refusal('BambooHR', answer, message);
}

/**
 * BambooHR's applicant-tracking API: `POST /api/gateway.php/{company}/v1/applicant_tracking/application`
 * (Basic, the key as user), multipart with the candidate's standard fields under the API's names and
 * `jobId`. It has no field for the employer's custom questions or the EEO answers: an application
 * answering one is not carried (the hosted form takes it). The careers page's job detail is read
 * first: it says whether the opening is still open and which fields are required.
 */
export function bambooApiApplier(options: {
  careersBaseUrl: string;
  apiBaseUrl: string;
  timeoutMs: number;
  rateLimit: VendorRateLimit;
}): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'bamboohr' || !credential)
      return { status: 'not-carried', reason: 'not a BambooHR posting with a registered key', answers: [] };

    const detail = await callVendor(
      `${expandEndpoint(options.careersBaseUrl, { company: target.company })}/careers/${encodeURIComponent(target.jobId)}/detail`,
      { method: 'GET', headers: { accept: 'application/json' } },
      options.timeoutMs,
      signal,
    );
    if (detail.status === 404 || detail.status === 410)
      return failedBeforeSending('JobExpired', `BambooHR: job opening ${target.jobId} is no longer published`);
    const parsed = detail.status === 200 ? Detail.safeParse(detail.json) : null;
    if (!parsed?.success)
      return failedBeforeSending('ApplicationFailed', `BambooHR answered HTTP ${detail.status} to the job's detail; nothing was submitted`);
    const status = parsed.data.result.jobOpening?.jobOpeningStatus;
    if (status && !/^open$/i.test(status)) return failedBeforeSending('JobExpired', `BambooHR: job opening ${target.jobId} is "${status}"`);
    const fields = new Map(
      Object.entries(parsed.data.result.formFields).flatMap(([key, value]) => {
        const field = StandardField.safeParse(value);
        return apiNames[key] && field.success && !Array.isArray(value) ? [[key, field.data] as const] : [];
      }),
    );

    const { candidate } = application;
    const values = new Map<string, string | Parameters<MultipartBody['append']>[1]>([
      ['firstName', candidate.firstName],
      ['lastName', candidate.lastName],
      ['email', candidate.email],
      ...(candidate.phone ? ([['phone', candidate.phone]] as const) : []),
    ]);
    const problems: string[] = [];
    const notCarried: string[] = [];
    for (const { id, value, question } of answeredValues(application)) {
      const field = fields.get(id);
      if (!field) {
        notCarried.push(id);
        continue;
      }
      if (id.endsWith('FileId')) {
        if (isFile(value)) values.set(id, value);
        else problems.push(`${id}: a file is expected`);
      } else if (field.options) {
        const option = field.options.find(
          (candidateOption) => candidateOption.text.trim().toLowerCase() === String(value).trim().toLowerCase(),
        );
        if (!option) problems.push(`${id}: "${String(value)}" is not an option`);
        else values.set(id, option.text);
      } else if (question?.inputType === 'Date') values.set(id, isoDate(value));
      else if (typeof value === 'string' || typeof value === 'number') values.set(id, String(value));
      else notCarried.push(id);
    }
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `BambooHR's applicant-tracking API has no field for ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `BambooHR: ${problems.join('; ')}`);
    const missing = [...fields].filter(([key, field]) => field.isRequired === true && !values.has(key)).map(([key]) => key);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `BambooHR requires ${missing.join(', ')}`);

    const body = new MultipartBody();
    for (const [key, value] of values) body.append(apiNames[key] ?? key, value);
    body.append('jobId', target.jobId);
    const url = `${expandEndpoint(options.apiBaseUrl, {})}/api/gateway.php/${encodeURIComponent(target.company)}/v1/applicant_tracking/application`;
    const authorization = `Basic ${Buffer.from(`${credential.key}:x`).toString('base64')}`;
    return options.rateLimit(
      `bamboohr:${credential.board}`,
      () =>
        submitOnce(
          'BambooHR',
          hooks,
          () =>
            callVendor(url, { method: 'POST', headers: { authorization, accept: 'application/json' }, body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              // The reference shows no success body: the candidate's id is read where it is, if anywhere.
              const body = answer.json as { candidateId?: unknown; result?: { candidateId?: unknown } } | undefined;
              const id = body?.candidateId ?? body?.result?.candidateId;
              return {
                status: 'success',
                confirmation: {
                  text: "Submitted through BambooHR's applicant-tracking API",
                  ...(id !== undefined ? { reference: String(id) } : {}),
                },
              };
            }
            return bambooRefusal(answer);
          },
        ),
      signal,
    );
  };
}
