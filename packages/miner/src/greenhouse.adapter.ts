import type { Question } from '@quarry/contracts';
import { load } from 'cheerio/slim';
import { z } from 'zod';
import { expandBase, NotThisAdapter, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices, htmlToText } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const GhField = z.object({
  name: z.string(),
  type: z.string(),
  values: z.array(z.object({ label: z.string(), value: z.unknown().optional() })).nullish(),
});
const GhQuestion = z.object({
  label: z.string(),
  required: z.boolean().nullish(),
  description: z.string().nullish(),
  fields: z.array(GhField),
});
const GhDemographic = z.object({
  header: z.string().nullish(),
  description: z.string().nullish(),
  questions: z.array(
    z.object({
      id: z.union([z.number(), z.string()]),
      label: z.string(),
      required: z.boolean().nullish(),
      type: z.string(),
      answer_options: z
        .array(z.object({ id: z.union([z.number(), z.string()]), label: z.string(), free_form: z.boolean().nullish() }))
        .nullish(),
    }),
  ),
});
const GhJob = z.object({
  title: z.string().nullish(),
  questions: z.array(GhQuestion).nullish(),
  location_questions: z.array(GhQuestion).nullish(),
  compliance: z
    .array(z.object({ type: z.string().nullish(), description: z.string().nullish(), questions: z.array(GhQuestion).nullish() }))
    .nullish(),
  demographic_questions: GhDemographic.nullish(),
  data_compliance: z
    .array(
      z.object({
        type: z.string().nullish(),
        requires_consent: z.boolean().nullish(),
        requires_processing_consent: z.boolean().nullish(),
        requires_retention_consent: z.boolean().nullish(),
      }),
    )
    .nullish(),
  // Not in the Job Board documentation: the boards' own key saying whether the form asks education.
  education: z.string().nullish(),
});

const nameCategories: Record<string, Category> = {
  first_name: 'firstName',
  last_name: 'lastName',
  email: 'email',
  phone: 'phone',
  resume: 'resume',
  cover_letter: 'coverLetter',
  location: 'city',
  gender: 'gender',
  race: 'race',
  veteran_status: 'veteran',
  disability_status: 'disability',
};
const fieldTypes: Record<string, Question['inputType']> = {
  input_text: 'Text',
  short_text: 'Text',
  textarea: 'TextArea',
  input_file: 'File',
  attachment: 'File',
  multi_value_single_select: 'SelectOne',
  multi_value_multi_select: 'SelectMultiple',
  boolean: 'Boolean',
};

const fieldId = (name: string) => name.replace(/\[\]$/, '');

/** Greenhouse's attachment types (Job Board API, "Validations on POST Requests": pdf, doc, docx, txt, rtf). */
const attachmentTypes = ['.pdf', '.doc', '.docx', '.txt', '.rtf'];

function fieldQuestion(
  field: z.infer<typeof GhField>,
  text: string,
  label: string,
  mandatory: boolean,
  category?: Category | null,
): Question {
  const inputType = fieldTypes[field.type] ?? 'Text';
  return buildQuestion({
    id: fieldId(field.name),
    question: text,
    inputType,
    label,
    mandatory,
    category: category === undefined ? nameCategories[fieldId(field.name)] : category,
    options:
      inputType === 'SelectOne' || inputType === 'SelectMultiple' ? choices((field.values ?? []).map((value) => value.label)) : undefined,
    accept: inputType === 'File' ? attachmentTypes : undefined,
  });
}

/** The id a client answers a file-or-text question by: its parts keep the field names the page and the API use. */
const fileOrTextId = (fileField: string): string => `${fileField}_or_text`;

function mapQuestion(entry: z.infer<typeof GhQuestion>, label: string): Question | null {
  const fields = entry.fields.filter((field) => field.type !== 'input_hidden');
  const mandatory = entry.required === true;
  const [first] = fields;
  if (!first) return null;
  if (fields.length === 1) return fieldQuestion(first, entry.label, label, mandatory);
  // "Resume/CV", "Cover Letter": a file or its text (the API's `resume` / `resume_text`). One
  // question whose parts are the two fields, so a client gives either; a required one is
  // answered by either (the parts themselves are optional).
  const file = fields.find((field) => field.type === 'input_file');
  const text = fields.find((field) => field.type === 'textarea');
  if (file && text && fields.length === 2) {
    return buildQuestion({
      id: fileOrTextId(fieldId(file.name)),
      question: entry.label,
      inputType: 'FragmentedQuestion',
      label,
      mandatory,
      category: nameCategories[fieldId(file.name)] ?? null,
      options: [
        fieldQuestion(file, `${entry.label} (file)`, label, false, null),
        fieldQuestion(text, `${entry.label} (text)`, label, false, null),
      ],
    });
  }
  return buildQuestion({
    id: fieldId(first.name),
    question: entry.label,
    inputType: 'FragmentedQuestion',
    label,
    mandatory,
    options: fields.map((field) => fieldQuestion(field, field.name, label, mandatory)),
  });
}

/**
 * The location: the `location` text and, when the post has them, its hidden `latitude` and
 * `longitude` (one question of three fields, or three questions as the Job Board docs show).
 * Greenhouse ignores a location sent without both, and nothing documented turns a place name into
 * coordinates offline, so they are questions of their own: the client may give them (the API
 * then carries the location), or leave them and the hosted form's own place search fills them.
 */
function locationQuestions(entries: Array<z.infer<typeof GhQuestion>>, label: string): Question[] {
  const fields = entries.flatMap((entry) => entry.fields.map((field) => ({ field, entry })));
  const location = fields.find(({ field }) => field.name === 'location');
  if (!location) return entries.flatMap((entry) => mapQuestion(entry, label) ?? []);
  const questions = [fieldQuestion(location.field, location.entry.label, label, location.entry.required === true)];
  for (const name of ['latitude', 'longitude']) {
    if (!fields.some(({ field }) => field.name === name)) continue;
    questions.push(
      buildQuestion({
        id: name,
        question: `${name === 'latitude' ? 'Latitude' : 'Longitude'} of the location (decimal degrees)`,
        inputType: 'Text',
        label,
        mandatory: false,
        category: null,
      }),
    );
  }
  return questions;
}

/** Entity-escaped HTML in compliance descriptions ("&lt;p&gt;…") back to HTML. */
function unescapeHtml(html: string): string {
  return /&lt;/.test(html) ? load(`<div>${html}</div>`)('div').first().text() : html;
}

/**
 * GDPR consents (Job Board docs, "Data Compliance" and the POST's `data_compliance`): the job says
 * which it requires. `requires_consent` is the one general consent, "to be deprecated" for
 * organisations with single-purpose consent, which ask processing and retention separately; a
 * post asks the ones it sets. The demographic-data consent has no flag on the job: it is offered
 * (optional) beside demographic questions on a post with a GDPR block.
 */
function consentQuestions(job: z.infer<typeof GhJob>, employer: string): Question[] {
  const blocks = (job.data_compliance ?? []).filter((block) => !block.type || block.type === 'gdpr');
  if (blocks.length === 0) return [];
  const consent = (key: string, text: string, mandatory: boolean) =>
    buildQuestion({
      id: `data_compliance[${key}]`,
      question: text,
      inputType: 'Boolean',
      label: 'Data privacy',
      mandatory,
      category: 'consent',
    });
  const any = (flag: 'requires_consent' | 'requires_processing_consent' | 'requires_retention_consent') =>
    blocks.some((block) => block[flag] === true);
  const questions: Question[] = [];
  if (any('requires_processing_consent') || any('requires_retention_consent')) {
    if (any('requires_processing_consent'))
      questions.push(
        consent('gdpr_processing_consent_given', `I consent to ${employer} processing my data to consider me for employment.`, true),
      );
    if (any('requires_retention_consent'))
      questions.push(consent('gdpr_retention_consent_given', `I consent to ${employer} keeping my data for future opportunities.`, true));
  } else if (any('requires_consent')) {
    questions.push(
      consent(
        'gdpr_consent_given',
        `I consent to ${employer} collecting, storing and processing my data to consider me for employment.`,
        true,
      ),
    );
  }
  if ((job.demographic_questions?.questions.length ?? 0) > 0) {
    questions.push(
      consent(
        'gdpr_demographic_data_consent_given',
        `I consent to ${employer} collecting, storing and processing my answers to the demographic questions.`,
        false,
      ),
    );
  }
  return questions;
}

function mapGreenhouseJob(job: z.infer<typeof GhJob>, fallbackLabel: string, employer: string): Question[] {
  const label = job.title?.trim() || fallbackLabel;
  const questions: Question[] = [];
  for (const entry of job.questions ?? []) {
    const question = mapQuestion(entry, label);
    if (question) questions.push(question);
  }
  questions.push(...locationQuestions(job.location_questions ?? [], label));
  if (job.education === 'education_required' || job.education === 'education_optional') {
    const mandatory = job.education === 'education_required';
    const part = (id: string, text: string, inputType: Question['inputType']) =>
      buildQuestion({ id: `education.${id}`, question: text, inputType, label: 'Education', mandatory, category: null });
    questions.push(
      buildQuestion({
        id: 'education',
        question: 'Education',
        inputType: 'ArrayOfObjects',
        label,
        mandatory,
        category: 'education',
        options: [
          part('school_name', 'School', 'Text'),
          part('degree', 'Degree', 'Text'),
          part('discipline', 'Discipline', 'Text'),
          part('start_date', 'Start date', 'Date'),
          part('end_date', 'End date', 'Date'),
        ],
      }),
    );
  }
  (job.compliance ?? []).forEach((block, index) => {
    const blockLabel = 'U.S. Equal Employment Opportunity';
    const description = unescapeHtml(block.description ?? '').trim();
    if (description && htmlToText(description)) {
      questions.push(
        buildQuestion({
          id: `compliance_${index}_${block.type ?? 'text'}`,
          question: htmlToText(description),
          inputType: 'TextLiteral',
          label: blockLabel,
          mandatory: false,
          category: null,
          value: description,
        }),
      );
    }
    // The API's EEOC fields are the block's own (`gender`, `race`, …): nothing more is asked of it.
    questions.push(...(block.questions ?? []).flatMap((entry) => mapQuestion(entry, blockLabel) ?? []));
  });
  const demographic = job.demographic_questions;
  if (demographic && demographic.questions.length > 0) {
    const blockLabel = demographic.header?.trim() || 'Voluntary Self-Identification';
    const description = demographic.description?.trim() ?? '';
    if (description && htmlToText(description)) {
      questions.push(
        buildQuestion({
          id: 'demographic_description',
          question: htmlToText(description),
          inputType: 'TextLiteral',
          label: blockLabel,
          mandatory: false,
          category: null,
          value: description,
        }),
      );
    }
    for (const entry of demographic.questions) {
      const id = `demographic_${entry.id}`;
      questions.push(
        buildQuestion({
          id,
          question: entry.label,
          inputType: entry.type === 'multi_value_multi_select' ? 'SelectMultiple' : 'SelectOne',
          label: blockLabel,
          mandatory: entry.required === true,
          // A free_form option opens a "self-describe" box: that option's conditional question.
          options: (entry.answer_options ?? []).map((option) => ({
            answer: option.label.trim(),
            conditionalQuestions:
              option.free_form === true
                ? [
                    buildQuestion({
                      id: `${id}_${option.id}_text`,
                      question: `${option.label.trim()} (please describe)`,
                      inputType: 'Text',
                      label: blockLabel,
                      mandatory: false,
                      category: null,
                    }),
                  ]
                : [],
          })),
        }),
      );
    }
  }
  questions.push(...consentQuestions(job, employer));
  return questions;
}

/** A `?gh_jid=` page names no board: the embed URL redirects to one that does (`for=`). */
async function resolveBoard(boardsBaseUrl: string, jobId: string, context: Parameters<AtsAdapter<unknown>>[1]): Promise<string> {
  const response = await request(context, `${expandBase(boardsBaseUrl, {})}/embed/job_app?token=${encodeURIComponent(jobId)}`, {
    redirect: 'manual',
    allowStatus: [301, 302, 303, 307, 308, 404],
  });
  response.body.resume();
  const location = response.headers.get('location');
  const board = location ? new URL(location, 'https://boards.greenhouse.io').searchParams.get('for') : null;
  if (!board) throw new NotThisAdapter(`Greenhouse did not resolve the board of job ${jobId}`);
  return board;
}

export const greenhouseAdapter =
  (options: { apiBaseUrl: string; boardsBaseUrl: string }): AtsAdapter<{ board: string | null; jobId: string }> =>
  async (target, context) => {
    const board = target.board ?? (await resolveBoard(options.boardsBaseUrl, target.jobId, context));
    const url = `${expandBase(options.apiBaseUrl, {})}/v1/boards/${encodeURIComponent(board)}/jobs/${encodeURIComponent(target.jobId)}?questions=true`;
    const response = await request(context, url, { headers: { accept: 'application/json' } });
    return mapGreenhouseJob(
      parsePayload(GhJob, await readJson(response), 'Greenhouse job'),
      context.jobPost.jobTitle,
      context.jobPost.employer,
    );
  };
