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
const GhQuestion = z.object({ label: z.string(), required: z.boolean().nullish(), description: z.string().nullish(), fields: z.array(GhField) });
const GhDemographic = z.object({
  header: z.string().nullish(),
  description: z.string().nullish(),
  questions: z.array(
    z.object({
      id: z.union([z.number(), z.string()]),
      label: z.string(),
      required: z.boolean().nullish(),
      type: z.string(),
      answer_options: z.array(z.object({ id: z.union([z.number(), z.string()]), label: z.string(), free_form: z.boolean().nullish() })).nullish(),
    }),
  ),
});
const GhJob = z.object({
  title: z.string().nullish(),
  questions: z.array(GhQuestion).nullish(),
  location_questions: z.array(GhQuestion).nullish(),
  compliance: z.array(z.object({ type: z.string().nullish(), description: z.string().nullish(), questions: z.array(GhQuestion).nullish() })).nullish(),
  demographic_questions: GhDemographic.nullish(),
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
  hispanic_ethnicity: 'ethnicity',
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

function fieldQuestion(field: z.infer<typeof GhField>, text: string, label: string, mandatory: boolean): Question {
  const inputType = fieldTypes[field.type] ?? 'Text';
  return buildQuestion({
    id: fieldId(field.name),
    question: text,
    inputType,
    label,
    mandatory,
    category: nameCategories[fieldId(field.name)],
    options: inputType === 'SelectOne' || inputType === 'SelectMultiple' ? choices((field.values ?? []).map((value) => value.label)) : undefined,
  });
}

function mapQuestion(entry: z.infer<typeof GhQuestion>, label: string): Question | null {
  const fields = entry.fields.filter((field) => field.type !== 'input_hidden');
  const mandatory = entry.required === true;
  const [first] = fields;
  if (!first) return null;
  // "Resume/CV" is a file with a paste-text alternative: one File question (ADR 0018).
  const file = fields.find((field) => field.type === 'input_file');
  if (fields.length === 1 || (file && fields.every((field) => field === file || field.type === 'textarea'))) {
    return fieldQuestion(file ?? first, entry.label, label, mandatory);
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

/** Entity-escaped HTML in compliance descriptions ("&lt;p&gt;…") back to HTML. */
function unescapeHtml(html: string): string {
  return /&lt;/.test(html) ? load(`<div>${html}</div>`)('div').first().text() : html;
}

const hispanicOptions = ['Yes', 'No', 'Decline To Self Identify'];

/** EEOC block: Race shows on the page only once Hispanic/Latino = No, a question the API omits. */
function complianceQuestions(questions: Question[], label: string): Question[] {
  const race = questions.find((question) => question.id === 'race');
  if (!race) return questions;
  const hispanic = buildQuestion({
    id: 'hispanic_ethnicity',
    question: 'Are you Hispanic/Latino?',
    inputType: 'SelectOne',
    label,
    mandatory: race.mandatory,
    category: 'ethnicity',
    options: hispanicOptions.map((answer) => ({ answer, conditionalQuestions: answer === 'No' ? [race] : [] })),
  });
  return questions.flatMap((question) => (question === race ? [hispanic] : [question]));
}

function mapGreenhouseJob(job: z.infer<typeof GhJob>, fallbackLabel: string): Question[] {
  const label = job.title?.trim() || fallbackLabel;
  const questions: Question[] = [];
  for (const entry of [...(job.questions ?? []), ...(job.location_questions ?? [])]) {
    const question = mapQuestion(entry, label);
    if (question) questions.push(question);
  }
  if (job.education === 'education_required' || job.education === 'education_optional') {
    const mandatory = job.education === 'education_required';
    const part = (id: string, text: string, inputType: Question['inputType']) => buildQuestion({ id: `education.${id}`, question: text, inputType, label: 'Education', mandatory, category: null });
    questions.push(buildQuestion({
      id: 'education', question: 'Education', inputType: 'ArrayOfObjects', label, mandatory, category: 'education',
      options: [part('school_name', 'School', 'Text'), part('degree', 'Degree', 'Text'), part('discipline', 'Discipline', 'Text'), part('start_date', 'Start date', 'Date'), part('end_date', 'End date', 'Date')],
    }));
  }
  (job.compliance ?? []).forEach((block, index) => {
    const blockLabel = 'U.S. Equal Employment Opportunity';
    const description = unescapeHtml(block.description ?? '').trim();
    if (description && htmlToText(description)) {
      questions.push(buildQuestion({ id: `compliance_${index}_${block.type ?? 'text'}`, question: htmlToText(description), inputType: 'TextLiteral', label: blockLabel, mandatory: false, category: null, value: description }));
    }
    const mapped = (block.questions ?? []).flatMap((entry) => mapQuestion(entry, blockLabel) ?? []);
    questions.push(...complianceQuestions(mapped, blockLabel));
  });
  const demographic = job.demographic_questions;
  if (demographic && demographic.questions.length > 0) {
    const blockLabel = demographic.header?.trim() || 'Voluntary Self-Identification';
    const description = demographic.description?.trim() ?? '';
    if (description && htmlToText(description)) {
      questions.push(buildQuestion({ id: 'demographic_description', question: htmlToText(description), inputType: 'TextLiteral', label: blockLabel, mandatory: false, category: null, value: description }));
    }
    for (const entry of demographic.questions) {
      const id = `demographic_${entry.id}`;
      questions.push(buildQuestion({
        id,
        question: entry.label,
        inputType: entry.type === 'multi_value_multi_select' ? 'SelectMultiple' : 'SelectOne',
        label: blockLabel,
        mandatory: entry.required === true,
        // A free_form option opens a "self-describe" box: that option's conditional question.
        options: (entry.answer_options ?? []).map((option) => ({
          answer: option.label.trim(),
          conditionalQuestions: option.free_form === true
            ? [buildQuestion({ id: `${id}_${option.id}_text`, question: `${option.label.trim()} (please describe)`, inputType: 'Text', label: blockLabel, mandatory: false, category: null })]
            : [],
        })),
      }));
    }
  }
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
    return mapGreenhouseJob(parsePayload(GhJob, await readJson(response), 'Greenhouse job'), context.jobPost.jobTitle);
  };
