import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { MultipartBody } from './multipart-body.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type VendorApplier } from './vendor-transport.ts';

const GhField = z.object({ name: z.string(), type: z.string(), values: z.array(z.object({ label: z.string(), value: z.unknown().optional() })).nullish() });
const GhQuestion = z.object({ label: z.string(), required: z.boolean().nullish(), fields: z.array(GhField) });
const GhJob = z.object({
  questions: z.array(GhQuestion).nullish(),
  location_questions: z.array(GhQuestion).nullish(),
  compliance: z.array(z.object({ questions: z.array(GhQuestion).nullish() })).nullish(),
});
type GhField = z.infer<typeof GhField>;

/** Greenhouse's own fields, sent from the candidate's details rather than from answers. */
const candidateFields = new Set(['first_name', 'last_name', 'email', 'phone']);

/**
 * The posting's fields by name (`question_123[]` as `question_123`, the miner's id), and its
 * required questions: one is answered when any of its fields is (a résumé file or its text).
 */
function fieldsOf(job: z.infer<typeof GhJob>): { fields: Map<string, { field: GhField; label: string }>; required: Array<{ label: string; names: string[] }> } {
  const fields = new Map<string, { field: GhField; label: string }>();
  const required: Array<{ label: string; names: string[] }> = [];
  const entries = [...(job.questions ?? []), ...(job.location_questions ?? []), ...(job.compliance ?? []).flatMap((block) => block.questions ?? [])];
  for (const entry of entries) {
    const names = entry.fields.filter((field) => field.type !== 'input_hidden').map((field) => {
      const name = field.name.replace(/\[\]$/, '');
      fields.set(name, { field, label: entry.label });
      return name;
    });
    if (entry.required === true && names.length > 0) required.push({ label: entry.label, names });
  }
  return { fields, required };
}

/** An option's value id from the label the candidate chose (a boolean picks Yes/No). */
function optionValue(field: GhField, answer: unknown): string | null {
  const label = typeof answer === 'boolean' ? (answer ? 'Yes' : 'No') : String(answer);
  const option = (field.values ?? []).find((candidate) => candidate.label.trim().toLowerCase() === label.trim().toLowerCase());
  return option && option.value !== undefined && option.value !== null ? String(option.value) : null;
}

/**
 * Greenhouse Job Board API: `POST /v1/boards/{board}/jobs/{id}` with the board's key as the Basic
 * user, multipart (files byte for byte). The posting's definition is read again first: it names
 * each option's value id (the mined form keeps labels), proves the job is still on the board, and
 * says what is required, which Greenhouse itself does not enforce.
 */
export function greenhouseApiApplier(options: { apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'greenhouse' || !credential) return { status: 'not-carried', reason: 'not a Greenhouse posting with a registered key', answers: [] };
    const jobUrl = `${expandEndpoint(options.apiBaseUrl, {})}/v1/boards/${encodeURIComponent(credential.board)}/jobs/${encodeURIComponent(target.jobId)}`;

    const definition = await callVendor(`${jobUrl}?questions=true`, { method: 'GET', headers: { accept: 'application/json' } }, options.timeoutMs, signal);
    if (definition.status === 404 || definition.status === 410) return failedBeforeSending('JobExpired', `Greenhouse: job ${target.jobId} is no longer on board ${credential.board}`);
    if (definition.status !== 200) return failedBeforeSending('ApplicationFailed', `Greenhouse answered HTTP ${definition.status} to the job's definition; nothing was submitted`);
    const job = GhJob.safeParse(definition.json);
    if (!job.success) return failedBeforeSending('ApplicationFailed', "Greenhouse's job definition has an unknown shape; nothing was submitted");
    const { fields, required } = fieldsOf(job.data);

    const form = new MultipartBody();
    const { candidate } = application;
    form.append('first_name', candidate.firstName);
    form.append('last_name', candidate.lastName);
    form.append('email', candidate.email);
    if (candidate.phone) form.append('phone', candidate.phone);
    const sent = new Set<string>(candidate.phone ? candidateFields : ['first_name', 'last_name', 'email']);
    const problems: string[] = [];
    const notCarried: string[] = [];
    for (const { id, value, question } of answeredValues(application)) {
      if (candidateFields.has(id) && sent.has(id)) continue;
      const entry = fields.get(id);
      if (!entry) {
        notCarried.push(id);
        continue;
      }
      const { field } = entry;
      if (field.type === 'input_file') {
        if (!isFile(value)) problems.push(`${id}: a file is expected`);
        else form.append(field.name, value);
      } else if (field.type === 'multi_value_single_select') {
        const option = optionValue(field, value);
        if (option === null) problems.push(`${id}: "${String(value)}" is not an option of "${entry.label}"`);
        else form.append(field.name, option);
      } else if (field.type === 'multi_value_multi_select') {
        for (const choice of Array.isArray(value) ? value : [value]) {
          const option = optionValue(field, choice);
          if (option === null) problems.push(`${id}: "${String(choice)}" is not an option of "${entry.label}"`);
          else form.append(`${id}[]`, option);
        }
      } else if (question?.inputType === 'Date') form.append(field.name, isoDate(value));
      else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') form.append(field.name, String(value));
      else notCarried.push(id);
      sent.add(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Greenhouse's Job Board API has no field for ${notCarried.join(', ')}`, answers: notCarried };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `Greenhouse: ${problems.join('; ')}`);
    // Greenhouse accepts an application that leaves required questions empty: refuse it here.
    const missing = required.filter((entry) => !entry.names.some((name) => sent.has(name))).map((entry) => `${entry.names[0] ?? ''} ("${entry.label}")`);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Greenhouse requires ${missing.join(', ')}`);

    const authorization = `Basic ${Buffer.from(`${credential.key}:`).toString('base64')}`;
    return options.rateLimit(
      `greenhouse:${credential.board}`,
      () =>
        submitOnce(
          'Greenhouse',
          hooks,
          () => callVendor(jobUrl, { method: 'POST', headers: { authorization, accept: 'application/json' }, body: form }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status >= 200 && answer.status < 300) {
              const reference = (answer.json as { id?: unknown; application_id?: unknown } | undefined)?.application_id ?? (answer.json as { id?: unknown } | undefined)?.id;
              return { status: 'success', confirmation: { text: `Submitted through Greenhouse's Job Board API (HTTP ${answer.status})`, ...(reference !== undefined ? { reference: String(reference) } : {}) } };
            }
            return refusal('Greenhouse', answer, vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
