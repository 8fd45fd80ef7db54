import type { SubmitOutcome } from '@quarry/applier';
import { detectAts } from '@quarry/miner';
import { z } from 'zod';
import type { VendorRateLimit } from './lever.api-applier.ts';
import { callVendor, expandEndpoint } from './vendor-request.ts';
import { refusal, submitOnce, vendorMessage } from './vendor-outcomes.ts';
import { answeredValues, failedBeforeSending, isFile, isoDate, type VendorApplier } from './vendor-transport.ts';

type WorkableField = { id: string; required?: boolean | undefined; type: string; options?: Array<{ name?: string | undefined; value?: string | undefined }> | undefined; fields?: WorkableField[] | undefined };
const WorkableField: z.ZodType<WorkableField> = z.lazy(() =>
  z.object({
    id: z.string(),
    required: z.boolean().optional(),
    type: z.string(),
    options: z.array(z.object({ name: z.string().optional(), value: z.string().optional() })).optional(),
    fields: z.array(WorkableField).optional(),
  }),
);
const WorkableForm = z.array(z.object({ fields: z.array(WorkableField) }));

/** The candidate's own text fields, sent under the form's id. */
const profileFields = new Set(['firstname', 'lastname', 'email', 'phone', 'headline', 'summary', 'address', 'cover_letter']);
/** The repeatable groups and the candidate attribute each is sent as. */
const groups: Record<string, string> = { education: 'education_entries', experience: 'experience_entries' };

const booleanOf = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : /^(yes|true)$/i.test(String(value)) ? true : /^(no|false)$/i.test(String(value)) ? false : null);

/** A choice's id (Workable's option `name`) from the label the candidate chose. */
const choiceId = (field: WorkableField, label: unknown): string | null =>
  (field.options ?? []).find((option) => option.value?.trim().toLowerCase() === String(label).trim().toLowerCase())?.name ?? null;

/**
 * Workable's SPI: `POST /spi/v3/jobs/{shortcode}/candidates` on the account's subdomain (the board
 * its token was registered for), Bearer token with `w_candidates`, JSON `{sourced: false,
 * candidate}` (`sourced: false` makes it an application, with Workable's thank-you email). The
 * profile fields go under the form's ids, education and experience as `*_entries` with dates as
 * YYYY-MM-DD, the résumé as `{name, data}` in base64, and each employer question as an answer by
 * its `question_key`: `checked` (yes/no), `choices` (option ids), `date`, `value` (numbers) or
 * `body` (text). The public form is read first: it proves the job open, names the choice ids and
 * says what is required (checked here before anything is sent).
 */
export function workableApiApplier(options: { formBaseUrl: string; apiBaseUrl: string; timeoutMs: number; rateLimit: VendorRateLimit }): VendorApplier {
  return async (application, hooks, signal) => {
    const target = detectAts(application.url);
    const credential = application.credential;
    if (target?.ats !== 'workable' || !credential) return { status: 'not-carried', reason: 'not a Workable posting with a registered key', answers: [] };

    const definition = await callVendor(`${expandEndpoint(options.formBaseUrl, {})}/api/v1/jobs/${encodeURIComponent(target.shortcode)}/form`, { method: 'GET', headers: { accept: 'application/json' } }, options.timeoutMs, signal);
    if (definition.status === 404 || definition.status === 410) return failedBeforeSending('JobExpired', `Workable: job ${target.shortcode} is no longer open`);
    const parsed = definition.status === 200 ? WorkableForm.safeParse(definition.json) : null;
    if (!parsed?.success) return failedBeforeSending('ApplicationFailed', `Workable answered HTTP ${definition.status} to the job's form; nothing was submitted`);
    const fields = new Map(parsed.data.flatMap((section) => section.fields).map((field) => [field.id, field]));

    const { candidate } = application;
    const profile: Record<string, unknown> = { firstname: candidate.firstName, lastname: candidate.lastName, email: candidate.email, ...(candidate.phone ? { phone: candidate.phone } : {}) };
    const answers: Array<Record<string, unknown>> = [];
    const problems: string[] = [];
    const notCarried: string[] = [];
    const given = new Set<string>(Object.keys(profile));
    for (const { id, value } of answeredValues(application)) {
      const field = fields.get(id);
      if (!field) {
        notCarried.push(id);
        continue;
      }
      given.add(id);
      if (profileFields.has(id) && typeof value === 'string') profile[id] = value;
      else if (id === 'resume' && isFile(value)) profile.resume = { name: value.filename, data: value.bytes.toString('base64') };
      else if (groups[id] && Array.isArray(value)) {
        profile[groups[id]] = value.map((entry) =>
          Object.fromEntries(
            (Array.isArray(entry) ? (entry as Array<{ id: string; value: unknown }>) : []).map((part) => {
              const key = part.id.slice(id.length + 1);
              const sub = field.fields?.find((candidateField) => candidateField.id === key);
              return [key, sub?.type === 'date' ? isoDate(part.value) : sub?.type === 'boolean' ? booleanOf(part.value) : part.value];
            }),
          ),
        );
      } else if (/^(QA|CA)_/.test(id)) {
        if (field.type === 'boolean') {
          const checked = booleanOf(value);
          if (checked === null) problems.push(`${id}: "${String(value)}" is not yes or no`);
          else answers.push({ question_key: id, checked });
        } else if (field.type === 'multiple' || field.type === 'dropdown') {
          const chosen = (Array.isArray(value) ? value : [value]).map((label) => [label, choiceId(field, label)] as const);
          for (const [label, choice] of chosen) if (choice === null) problems.push(`${id}: "${String(label)}" is not an option`);
          answers.push({ question_key: id, choices: chosen.map(([, choice]) => choice).filter((choice) => choice !== null) });
        } else if (field.type === 'date') answers.push({ question_key: id, date: isoDate(value) });
        else if (field.type === 'number') {
          const number = Number(value);
          if (!Number.isFinite(number)) problems.push(`${id}: "${String(value)}" is not a number`);
          else answers.push({ question_key: id, value: number });
        } else if (field.type === 'file' || typeof value === 'object') notCarried.push(id);
        else answers.push({ question_key: id, body: String(value) });
      } else notCarried.push(id);
    }
    if (notCarried.length > 0) return { status: 'not-carried', reason: `Workable's candidate API carries no answer to ${notCarried.join(', ')}`, answers: notCarried };
    if (problems.length > 0) return failedBeforeSending('ApplicationFailed', `Workable: ${problems.join('; ')}`);
    const missing = [...fields.values()].filter((field) => field.required === true && field.type !== 'group' && !given.has(field.id)).map((field) => field.id);
    if (missing.length > 0) return failedBeforeSending('MandatoryQuestionsNotAnswered', `Workable requires ${missing.join(', ')}`);
    if (answers.length > 0) profile.answers = answers;

    const url = `${expandEndpoint(options.apiBaseUrl, { company: credential.board })}/spi/v3/jobs/${encodeURIComponent(target.shortcode)}/candidates`;
    return options.rateLimit(
      `workable:${credential.board}`,
      () =>
        submitOnce(
          'Workable',
          hooks,
          () => callVendor(url, { method: 'POST', headers: { authorization: `Bearer ${credential.key}`, accept: 'application/json' }, json: { sourced: false, candidate: profile } }, options.timeoutMs, signal),
          (answer): SubmitOutcome => {
            if (answer.status === 200 || answer.status === 201) {
              const id = (answer.json as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
              return { status: 'success', confirmation: { text: "Submitted through Workable's candidate API", ...(id !== undefined ? { reference: String(id) } : {}) } };
            }
            return refusal('Workable', answer, vendorMessage(answer.json, answer.text));
          },
        ),
      signal,
    );
  };
}
