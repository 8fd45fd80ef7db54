import type { SubmitOutcome } from '@quarry/hosted-form-apply';
import type { ApplicationErrorCode } from '@quarry/contracts';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import { ashbyValue, type AshbyField } from './ashby-field-values.ts';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint, type VendorAnswer } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, type TransportCoverage, type VendorApplier } from './vendor-transport.ts';

const submitReference = 'https://developers.ashbyhq.com/reference/applicationformsubmit';
const surveyReference = 'https://developers.ashbyhq.com/reference/surveysubmissioncreate';

/**
 * What Ashby's API carries: every field of the posting's application form by its `path`, in the
 * value each type takes (applicationForm.submit's reference), and the posting's surveys (EEOC,
 * data consent…) through surveySubmission.create once the application exists.
 */
export const ashbyApiCoverage: TransportCoverage = {
  vendor: 'ashby',
  endpoint:
    'POST https://api.ashbyhq.com/applicationForm.submit (Basic, the key as user; multipart/form-data), then application.info and surveySubmission.create for survey answers',
  fields: [
    { field: 'jobPostingId', carries: 'the posting', source: submitReference },
    {
      field: 'allowSubmissionForUnpublishedJobPosting',
      carries: 'false: a closed posting answers job_posting_not_published instead of recording',
      source: submitReference,
    },
    {
      field: 'applicationForm',
      carries:
        'fieldSubmissions [{path, value}]: each answer to the application form under its path: String/Phone/Email text, Boolean, Date YYYY-MM-DD, Number integer, RichText {type: PlainText, value}, Score {score}, ValueSelect value, MultiValueSelect values, Location {city, region, country}, EducationHistory [{schoolName, …}]',
      source: submitReference,
    },
    {
      field: '<file part named by its value>',
      carries: 'each File answer, byte for byte, in a multipart part the submission names',
      source: submitReference,
    },
    {
      field: 'surveySubmission.create submittedValues{path: value}',
      carries: 'each answer to a survey form of the posting (EEOC, data consent…), for the application just created',
      source: surveyReference,
    },
  ],
  hostedFormOnly: [
    {
      what: 'a field of a type the reference gives no value for (anything but the types above, LongText and Url)',
      why: 'applicationForm.submit documents no value for it',
    },
  ],
};

const Field = z.looseObject({
  path: z.string(),
  title: z.string().nullish(),
  type: z.string(),
  selectableValues: z.array(z.object({ label: z.string(), value: z.string() })).nullish(),
});
const FormDefinition = z.object({
  sections: z.array(z.object({ fields: z.array(z.object({ field: Field, isRequired: z.boolean().nullish() })) })),
});
const PostingInfo = z.object({
  success: z.literal(true),
  results: z.object({
    applicationFormDefinition: FormDefinition,
    surveyFormDefinitions: z.array(z.object({ id: z.string(), formDefinition: FormDefinition })).nullish(),
  }),
});
const Failure = z.object({
  success: z.literal(false),
  errorInfo: z.object({ code: z.string(), message: z.string().nullish() }).nullish(),
  errors: z.array(z.string()).nullish(),
});
const Submitted = z.object({
  success: z.literal(true),
  results: z.object({
    submittedFormInstance: z.object({ id: z.string() }).nullish(),
    formMessages: z.object({ blocked: z.boolean().nullish(), blockMessageForCandidateHtml: z.string().nullish() }).nullish(),
  }),
});
const ApplicationInfo = z.object({
  success: z.literal(true),
  results: z.object({ id: z.string(), candidate: z.object({ id: z.string() }) }),
});

/** Ashby's error codes the reference names, by what they mean; any other code is read from its message. */
const codes: Record<string, ApplicationErrorCode> = {
  job_posting_not_published: 'JobExpired',
  job_posting_not_found: 'JobNotFound',
  application_blocked: 'AlreadyApplied',
};

const withoutTags = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** An Ashby `success: false` (HTTP 200, "What would be 4XX errors": developers.ashbyhq.com/docs/responses) as an outcome: its code first, its message second. */
function ashbyFailure(answer: VendorAnswer, failure: z.infer<typeof Failure>): SubmitOutcome {
  const code = failure.errorInfo?.code ?? failure.errors?.[0];
  const said = [code, failure.errorInfo?.message].filter(Boolean).join(': ') || vendorMessage(answer.json, answer.text);
  const named = code ? codes[code] : undefined;
  if (named) return { status: 'failed', errorCode: named, message: `Ashby: ${said}`, submitted: false };
  return refusal('Ashby', { ...answer, status: 400 }, said);
}

/**
 * Ashby's API: reads the posting's form with `jobPosting.info`, maps every answer to a field of
 * the application form or of a survey form by path (an answer with no field, or of a type the
 * reference gives no value for, is not carried and goes to the hosted form), then
 * `applicationForm.submit` (multipart: `jobPostingId`, `applicationForm` as JSON, each file a part
 * named by its submission's value). Survey answers follow through `surveySubmission.create` for the
 * application `application.info` finds by the submitted form instance. Success only when every
 * call recorded its answers; after the application exists, a failed survey is a failure that says
 * the application was submitted.
 */
export function ashbyApiApplier(options: {
  formBaseUrl: string;
  apiBaseUrl: string;
  timeoutMs: number;
  rateLimit: VendorRateLimit;
}): VendorApplier {
  const api = (method: string) => `${expandEndpoint(options.apiBaseUrl, {})}/${method}`;
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'ashby' || !credential)
      return { status: 'not-carried', reason: 'not an Ashby posting with a registered key', answers: [] };
    const authorization = `Basic ${Buffer.from(`${credential.key}:`).toString('base64')}`;
    const call = (method: string, json: unknown) =>
      callVendor(api(method), { method: 'POST', headers: { authorization, accept: 'application/json' }, json }, options.timeoutMs, signal);

    const info = await call('jobPosting.info', { jobPostingId: target.postingId });
    if (info.status !== 200) return refusal('Ashby', info, vendorMessage(info.json, info.text));
    const refused = Failure.safeParse(info.json);
    if (refused.success) return ashbyFailure(info, refused.data);
    const posting = PostingInfo.safeParse(info.json);
    if (!posting.success)
      return failedBeforeSending('ApplicationFailed', `Ashby's jobPosting.info answered without a form definition; nothing was submitted`);
    const entries = posting.data.results.applicationFormDefinition.sections.flatMap((section) => section.fields);
    const formFields = new Map(entries.map((entry) => [entry.field.path, entry.field as AshbyField]));
    const surveys = (posting.data.results.surveyFormDefinitions ?? []).map((survey) => ({
      id: survey.id,
      fields: new Map(
        survey.formDefinition.sections.flatMap((section) => section.fields).map((entry) => [entry.field.path, entry.field as AshbyField]),
      ),
    }));

    const { candidate } = application;
    const submissions = new Map<string, unknown>([
      ['_systemfield_name', `${candidate.firstName} ${candidate.lastName}`],
      ['_systemfield_email', candidate.email],
      ...(candidate.phone && formFields.has('_systemfield_phone') ? ([['_systemfield_phone', candidate.phone]] as const) : []),
    ]);
    const surveyValues = new Map<string, Map<string, unknown>>();
    const files: Array<[string, Parameters<MultipartBody['append']>[1]]> = [];
    const problems: string[] = [];
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const formField = formFields.get(id);
      const survey = formField ? undefined : surveys.find((candidateSurvey) => candidateSurvey.fields.has(id));
      const field = formField ?? survey?.fields.get(id);
      if (!field) {
        notCarried.push(id);
        continue;
      }
      if (field.type === 'File') {
        // A survey takes no file part: a file there has no documented value.
        if (survey) notCarried.push(id);
        else if (!isFile(value)) problems.push(`${id}: a file is expected`);
        else {
          files.push([id, value]);
          submissions.set(id, id);
        }
        continue;
      }
      const encoded = ashbyValue(field, value);
      if (encoded.kind === 'undocumented') notCarried.push(id);
      else if (encoded.kind === 'invalid') problems.push(`${id}: ${encoded.reason}`);
      else if (survey) surveyValues.set(survey.id, (surveyValues.get(survey.id) ?? new Map()).set(id, encoded.value));
      else submissions.set(id, encoded.value);
    }
    if (notCarried.length > 0)
      return { status: 'not-carried', reason: `Ashby's API documents no value for ${notCarried.join(', ')}`, answers: notCarried };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `Ashby: ${problems.join('; ')}`);
    const missing = entries
      .filter((entry) => entry.isRequired === true && !submissions.has(entry.field.path))
      .map((entry) => `${entry.field.path} ("${entry.field.title ?? ''}")`);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Ashby requires ${missing.join(', ')}`);

    const body = new MultipartBody();
    body.append('jobPostingId', target.postingId);
    body.append('allowSubmissionForUnpublishedJobPosting', 'false');
    body.append('applicationForm', JSON.stringify({ fieldSubmissions: [...submissions].map(([path, value]) => ({ path, value })) }));
    for (const [name, file] of files) body.append(name, file);
    let instanceId: string | null = null;
    const outcome = await options.rateLimit(
      `ashby:${credential.board}`,
      () =>
        submitOnce(
          'Ashby',
          hooks,
          () =>
            callVendor(
              api('applicationForm.submit'),
              { method: 'POST', headers: { authorization, accept: 'application/json' }, body },
              options.timeoutMs,
              signal,
            ),
          (answer): SubmitOutcome => {
            if (answer.status !== 200) return refusal('Ashby', answer, vendorMessage(answer.json, answer.text));
            const failure = Failure.safeParse(answer.json);
            if (failure.success) return ashbyFailure(answer, failure.data);
            const reply = Submitted.safeParse(answer.json);
            if (!reply.success || !reply.data.results.submittedFormInstance)
              return { status: 'unknown', message: `Ashby answered 200 without a submitted form (${answer.text.slice(0, 200)})` };
            // "the application was blocked by organizational rules and no Application record was created".
            const messages = reply.data.results.formMessages;
            if (messages?.blocked === true) {
              const said = messages.blockMessageForCandidateHtml
                ? withoutTags(messages.blockMessageForCandidateHtml)
                : 'blocked by the application limits the employer set';
              return {
                status: 'failed',
                errorCode: 'AlreadyApplied',
                message: `Ashby blocked the application (application limits): ${said}`,
                submitted: false,
              };
            }
            instanceId = reply.data.results.submittedFormInstance.id;
            return { status: 'success', confirmation: { text: "Submitted through Ashby's applicationForm.submit", reference: instanceId } };
          },
        ),
      signal,
    );
    if (outcome.status !== 'success' || surveyValues.size === 0 || !instanceId) return outcome;
    return submitSurveys(call, instanceId, surveyValues, outcome);
  };
}

/** The survey answers, for the application the submitted form instance created (application.info finds it). */
async function submitSurveys(
  call: (method: string, json: unknown) => Promise<VendorAnswer>,
  instanceId: string,
  surveyValues: Map<string, Map<string, unknown>>,
  recorded: SubmitOutcome,
): Promise<SubmitOutcome> {
  const afterApplication = (what: string): SubmitOutcome => ({
    status: 'failed',
    errorCode: 'ApplicationFailed',
    message: `Ashby recorded the application (form instance ${instanceId}) but not its survey answers: ${what}`,
    submitted: true,
  });
  try {
    const found = await call('application.info', { submittedFormInstanceId: instanceId });
    const application = ApplicationInfo.safeParse(found.json);
    if (!application.success)
      return afterApplication(`application.info answered HTTP ${found.status} ${vendorMessage(found.json, found.text)}`);
    for (const [surveyFormDefinitionId, values] of surveyValues) {
      const answer = await call('surveySubmission.create', {
        candidateId: application.data.results.candidate.id,
        applicationId: application.data.results.id,
        surveyFormDefinitionId,
        submittedValues: Object.fromEntries(values),
      });
      if (answer.status >= 500)
        return {
          status: 'unknown',
          message: `Ashby recorded the application (form instance ${instanceId}); it answered HTTP ${answer.status} to a survey submission`,
        };
      if ((answer.json as { success?: unknown } | undefined)?.success !== true)
        return afterApplication(`surveySubmission.create answered ${vendorMessage(answer.json, answer.text)}`);
    }
  } catch (error) {
    return {
      status: 'unknown',
      message: `Ashby recorded the application (form instance ${instanceId}); a survey submission got no answer (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  return recorded;
}
