import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const Jobs = z.array(z.object({ id: z.string(), board_code: z.string().nullish(), status: z.string().nullish() }));
const PageSize = 100;

const docs = 'https://www.resumatorapi.com/v1/#!/applicants/applicants_post_post_0';
// The applicant POST's parameter list as JazzHR documents it, transcribed in this public connector.
const schema =
  'https://github.com/Riminder/hrflow-connectors/blob/d9304cf89167fc6cb939a8fbe3d08c35371945c5/src/hrflow_connectors/v2/connectors/jazzhr/schemas.py';
const jobsDocs = 'https://www.resumatorapi.com/v1/#!/jobs/jobs_get_get_0';

/**
 * The apply page's text boxes (`resumator-<box>-value`, the miner's ids) and the applicant parameter
 * each is sent as: the page names its boxes after the parameters (cezkid/jobs jazzhr.md), except the
 * two name boxes. A Date box is sent as its calendar date.
 */
const textParameters: Record<string, [parameter: string, carries: string]> = {
  'resumator-firstname-value': ['first_name', 'first name'],
  'resumator-lastname-value': ['last_name', 'last name'],
  'resumator-email-value': ['email', 'email address'],
  'resumator-phone-value': ['phone', 'phone'],
  'resumator-address-value': ['address', 'street address'],
  'resumator-city-value': ['city', 'city'],
  'resumator-state-value': ['state', 'state or province'],
  'resumator-postal-value': ['postal', 'postal code'],
  'resumator-coverletter-value': ['coverletter', 'cover letter text'],
  'resumator-start-value': ['start', 'date available (YYYY-MM-DD)'],
  'resumator-salary-value': ['salary', 'desired salary'],
  'resumator-linkedin-value': ['linkedin', 'LinkedIn profile URL'],
  'resumator-website-value': ['website', 'website, blog or portfolio'],
  'resumator-twitter-value': ['twitter', 'Twitter username'],
  'resumator-languages-value': ['languages', 'languages spoken'],
  'resumator-referral-value': ['referral', 'who referred the candidate'],
  'resumator-college-value': ['college', 'college or university'],
  'resumator-gpa-value': ['gpa', 'college GPA'],
  'resumator-flighthours-value': ['flighthours', 'flight hours'],
  'resumator-flightgrade-value': ['flightgrade', 'flight grade'],
  'resumator-references-value': ['references', 'references'],
  'resumator-wmyu-value': ['wmyu', '"what makes you unique" answer'],
  'resumator-felonyexplain-value': ['felonyexplain', 'felony explanation'],
  'resumator-resumetext-value': ['resumetext', 'résumé pasted as text'],
};
const resumeBox = 'resumator-resume-value';

/** What JazzHR's applicants API carries, and what only its apply page takes. */
export const jazzApiCoverage: TransportCoverage = {
  vendor: 'JazzHR',
  endpoint: 'POST https://api.resumatorapi.com/v1/applicants (JSON, key as `apikey`)',
  fields: [
    { field: 'apikey', carries: "the employer's API key", source: docs },
    { field: 'job', carries: "the job's API id (from GET /v1/jobs by the apply page's board code)", source: jobsDocs },
    ...Object.values(textParameters).map(([field, carries]) => ({ field, carries, source: schema })),
    { field: 'base64-resume', carries: 'the résumé file, base64', source: docs },
  ],
  hostedFormOnly: [
    {
      what: 'questionnaire answers (`resumator-questionnaire[n]`)',
      why: 'the applicant POST has no questionnaire parameter; JazzHR documents questionnaire answers only as read (GET /v1/questionnaire_answers)',
    },
    {
      what: 'EEO answers (eeo_gender, eeo_race, eeoc_veteran, eeoc_disability and its signature/date)',
      why: 'the parameters exist but their values are not documented; the page sends numeric codes the mined question (option words) does not carry, so an answer could arrive as a value JazzHR does not read',
    },
    {
      what: 'canned yes/no questions (over18, relocate, citizen, license, cdl, weekends, evenings, overtime, felony)',
      why: 'the parameters exist but their accepted values are not documented (the page sends coded values)',
    },
    { what: 'highest education level (`resumator-education-value`)', why: 'no applicant parameter carries it' },
  ],
};

/**
 * JazzHR's API: `POST /v1/applicants`, JSON with the key as `apikey`, each answered apply-page box
 * under its documented parameter (`jazzApiCoverage`), `job` (the API's job id) and the résumé as
 * `base64-resume`. The apply page names the job by its board code: the API's job list gives its id
 * and status, so a job no longer Open is JobExpired before anything is sent. An answer no parameter
 * documents is `not-carried` before anything is sent (the hosted form takes the application).
 */
export function jazzApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'jazzhr' || !credential)
      return { status: 'not-carried', reason: 'not a JazzHR posting with a registered key', answers: [] };
    const boardCode = target.jobPath.split('/')[1] ?? '';

    const { candidate } = application;
    const body: Record<string, unknown> = {
      apikey: credential.key,
      first_name: candidate.firstName,
      last_name: candidate.lastName,
      email: candidate.email,
      ...(candidate.phone ? { phone: candidate.phone } : {}),
    };
    const given = new Set<string>(Object.keys(textParameters).filter((id) => body[textParameters[id]?.[0] ?? ''] !== undefined));
    const notCarried: string[] = [];
    for (const { id, value, question } of answeredValues(application)) {
      const parameter = textParameters[id]?.[0];
      if (parameter && (typeof value === 'string' || question?.inputType === 'Date'))
        body[parameter] = question?.inputType === 'Date' ? isoDate(value) : String(value);
      else if (id === resumeBox && isFile(value)) body['base64-resume'] = value.bytes.toString('base64');
      else {
        notCarried.push(id);
        continue;
      }
      given.add(id);
    }
    if (notCarried.length > 0)
      return {
        status: 'not-carried',
        reason: `JazzHR's applicants API documents no parameter for ${notCarried.join(', ')}`,
        answers: notCarried,
      };
    // JazzHR's own check is the name and email only: the page's other required boxes are checked here.
    const missing = application.questions
      .flatMap((question) => (question.inputType === 'FragmentedQuestion' ? (question.options ?? []) : [question]))
      .filter((question) => 'id' in question && question.mandatory && !given.has(question.id))
      .map((question) => ('id' in question ? question.id : ''));
    if (missing.length > 0)
      return failedBeforeSending('MandatoryQuestionsNotAnswered', `JazzHR's apply page requires ${missing.join(', ')}`);

    const base = expandEndpoint(options.apiBaseUrl, {});
    let job: z.infer<typeof Jobs>[number] | undefined;
    for (let page = 1; !job && page <= 20; page += 1) {
      const listing = await callVendor(
        `${base}/v1/jobs${page > 1 ? `/page/${page}` : ''}?apikey=${encodeURIComponent(credential.key)}`,
        { method: 'GET', headers: { accept: 'application/json' } },
        options.timeoutMs,
        signal,
      );
      if (listing.status !== 200) return refusal('JazzHR', listing, vendorMessage(listing.json, listing.text));
      const jobs = Jobs.safeParse(Array.isArray(listing.json) ? listing.json : [listing.json]);
      if (!jobs.success) return failedBeforeSending('ApplicationFailed', "JazzHR's job list has an unknown shape; nothing was submitted");
      job = jobs.data.find((candidateJob) => candidateJob.board_code === boardCode);
      if (jobs.data.length < PageSize) break;
    }
    if (!job) return failedBeforeSending('JobNotFound', `JazzHR: no job of this account has the board code ${boardCode}`);
    if (job.status && !/^open$/i.test(job.status)) return failedBeforeSending('JobExpired', `JazzHR: job ${boardCode} is ${job.status}`);
    body.job = job.id;

    return options.rateLimit(
      `jazzhr:${credential.board}`,
      () =>
        submitOnce(
          'JazzHR',
          hooks,
          () =>
            callVendor(
              `${base}/v1/applicants`,
              { method: 'POST', headers: { accept: 'application/json' }, json: body },
              options.timeoutMs,
              signal,
            ),
          (answer): SubmitOutcome => {
            const id = (answer.json as { prospect_id?: unknown } | undefined)?.prospect_id;
            // 201 with the new applicant's `prospect_id` is the documented success; a 2xx without it recorded something unnamed.
            if ((answer.status === 200 || answer.status === 201) && id !== undefined)
              return { status: 'success', confirmation: { text: "Submitted through JazzHR's applicants API", reference: String(id) } };
            if (answer.status >= 200 && answer.status < 300)
              return {
                status: 'unknown',
                message: `JazzHR answered HTTP ${answer.status} without a prospect_id (${answer.text.slice(0, 200)})`,
              };
            return refusal('JazzHR', answer, vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
