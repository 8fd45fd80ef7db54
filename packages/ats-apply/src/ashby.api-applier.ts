import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type VendorApplier } from './vendor-transport.ts';

const AshbyField = z.looseObject({ path: z.string(), title: z.string().nullish(), type: z.string(), selectableValues: z.array(z.object({ label: z.string(), value: z.string().nullish() })).nullish() });
const FormRender = z.object({ sections: z.array(z.object({ fieldEntries: z.array(z.object({ field: AshbyField, isRequired: z.boolean().nullish() })) })) });
const PostingAnswer = z.object({ data: z.object({ jobPosting: z.object({ applicationForm: FormRender.nullish() }).nullable() }) });
type AshbyField = z.infer<typeof AshbyField>;

const postingQuery = `query ApiJobPosting($organizationHostedJobsPageName: String!, $jobPostingId: String!) {
  jobPosting(organizationHostedJobsPageName: $organizationHostedJobsPageName, jobPostingId: $jobPostingId) {
    applicationForm { sections { fieldEntries { ... on FormFieldEntry { field isRequired } } } }
  }
}`;

const textTypes = new Set(['String', 'Email', 'Phone', 'Url', 'LongText', 'RichText', 'SocialLink']);

/** An option's value from the label the candidate chose (the mined form keeps labels). */
function optionValue(field: AshbyField, label: unknown): string | null {
  const option = (field.selectableValues ?? []).find((candidate) => candidate.label.trim().toLowerCase() === String(label).trim().toLowerCase());
  return option ? (option.value ?? option.label) : null;
}

const booleanOf = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : /^(yes|true)$/i.test(String(value)) ? true : /^(no|false)$/i.test(String(value)) ? false : null);

const withoutTags = (html: string) => html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();

/**
 * Ashby's `applicationForm.submit` (Basic auth, the key as user; `candidatesWrite`), multipart:
 * `jobPostingId`, `applicationForm` as JSON `{fieldSubmissions: [{path, value}]}` and each file as
 * its own part, named by the value of its submission. Values in Ashby's types: booleans, numbers,
 * dates as YYYY-MM-DD, a select as its option's value, a multi-select as an array of them.
 * `allowSubmissionForUnpublishedJobPosting: false` makes a closed posting fail rather than be
 * recorded. The posting is read first through the public posting query (the one the hosted page
 * uses): it gives the option values and what is required, and a closed posting answers null.
 * Survey forms (EEO, consents) are a separate Ashby call and answers to them are not carried.
 */
export function ashbyApiApplier(options: { formBaseUrl: string; apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'ashby' || !credential) return { status: 'not-carried', reason: 'not an Ashby posting with a registered key', answers: [] };

    const definition = await callVendor(
      `${expandEndpoint(options.formBaseUrl, {})}/api/non-user-graphql?op=ApiJobPosting`,
      { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, json: { operationName: 'ApiJobPosting', variables: { organizationHostedJobsPageName: target.org, jobPostingId: target.postingId }, query: postingQuery } },
      options.timeoutMs,
      signal,
    );
    const parsed = definition.status === 200 ? PostingAnswer.safeParse(definition.json) : null;
    if (!parsed?.success) return failedBeforeSending('ApplicationFailed', `Ashby answered HTTP ${definition.status} to the posting query; nothing was submitted`);
    const form = parsed.data.data.jobPosting?.applicationForm;
    if (!form) return failedBeforeSending('JobExpired', `Ashby: posting ${target.postingId} is no longer published`);
    const entries = form.sections.flatMap((section) => section.fieldEntries);
    const fields = new Map(entries.map((entry) => [entry.field.path, entry.field]));

    const { candidate } = application;
    const submissions = new Map<string, unknown>([
      ['_systemfield_name', `${candidate.firstName} ${candidate.lastName}`],
      ['_systemfield_email', candidate.email],
      ...(candidate.phone && fields.has('_systemfield_phone') ? ([['_systemfield_phone', candidate.phone]] as const) : []),
    ]);
    const body = new MultipartBody();
    const files: Array<[string, Parameters<MultipartBody['append']>[1]]> = [];
    const problems: string[] = [];
    const notCarried: string[] = [];
    for (const { id, value } of answeredValues(application)) {
      const field = fields.get(id);
      if (!field) {
        notCarried.push(id);
        continue;
      }
      const label = field.title || id;
      if (field.type === 'File') {
        if (!isFile(value)) problems.push(`${id}: a file is expected`);
        else {
          files.push([id, value]);
          submissions.set(id, id);
        }
      } else if (field.type === 'Boolean') {
        const flag = booleanOf(value);
        if (flag === null) problems.push(`${id}: "${String(value)}" is not yes or no`);
        else submissions.set(id, flag);
      } else if (field.type === 'Date') submissions.set(id, isoDate(value));
      else if (field.type === 'Number') {
        const number = Number(value);
        if (!Number.isFinite(number)) problems.push(`${id}: "${String(value)}" is not a number`);
        else submissions.set(id, number);
      } else if (field.type === 'ValueSelect') {
        const option = optionValue(field, value);
        if (option === null) problems.push(`${id}: "${String(value)}" is not an option of "${label}"`);
        else submissions.set(id, option);
      } else if (field.type === 'MultiValueSelect') {
        const chosen = (Array.isArray(value) ? value : [value]).map((choice) => [choice, optionValue(field, choice)] as const);
        for (const [choice, option] of chosen) if (option === null) problems.push(`${id}: "${String(choice)}" is not an option of "${label}"`);
        submissions.set(id, chosen.map(([, option]) => option).filter((option) => option !== null));
      } else if (textTypes.has(field.type) && (typeof value === 'string' || typeof value === 'number')) submissions.set(id, String(value));
      else notCarried.push(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Ashby's applicationForm.submit carries no answer to ${notCarried.join(', ')}`, answers: notCarried };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `Ashby: ${problems.join('; ')}`);
    const missing = entries.filter((entry) => entry.isRequired === true && !submissions.has(entry.field.path)).map((entry) => `${entry.field.path} ("${entry.field.title ?? ''}")`);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Ashby requires ${missing.join(', ')}`);

    body.append('jobPostingId', target.postingId);
    body.append('allowSubmissionForUnpublishedJobPosting', 'false');
    body.append('applicationForm', JSON.stringify({ fieldSubmissions: [...submissions].map(([path, value]) => ({ path, value })) }));
    for (const [name, file] of files) body.append(name, file);
    const authorization = `Basic ${Buffer.from(`${credential.key}:`).toString('base64')}`;
    return options.rateLimit(
      `ashby:${credential.board}`,
      () =>
        submitOnce(
          'Ashby',
          hooks,
          () => callVendor(`${expandEndpoint(options.apiBaseUrl, {})}/applicationForm.submit`, { method: 'POST', headers: { authorization, accept: 'application/json' }, body }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            const reply = answer.json as { success?: unknown; results?: { submittedFormInstance?: { id?: unknown }; formMessages?: { blocked?: unknown; blockMessageForCandidateHtml?: unknown } }; errors?: unknown } | undefined;
            if (answer.status !== 200) return refusal('Ashby', answer, vendorMessage(answer.json, answer.text));
            // A rule of the employer refused it: nothing was recorded (e.g. one application per role).
            if (reply?.success === true && reply.results?.formMessages?.blocked === true) {
              const said = typeof reply.results.formMessages.blockMessageForCandidateHtml === 'string' ? withoutTags(reply.results.formMessages.blockMessageForCandidateHtml) : 'blocked by the employer';
              return refusal('Ashby', answer, said);
            }
            if (reply?.success === true && reply.results?.submittedFormInstance) {
              const id = reply.results.submittedFormInstance.id;
              return { status: 'success', confirmation: { text: "Submitted through Ashby's applicationForm.submit", ...(id !== undefined ? { reference: String(id) } : {}) } };
            }
            // Ashby answers its validation failures with HTTP 200 and success: false.
            if (reply?.success === false) return refusal('Ashby', answer, vendorMessage(reply.errors, answer.text));
            return { status: 'unknown', message: `Ashby answered 200 without a submitted form (${answer.text.slice(0, 200)})` };
          },
        ),
      signal,
    );
  };
}
