import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices, extensions } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

type WorkableField = {
  id: string;
  label: string;
  type: string;
  required?: boolean | undefined;
  singleOption?: boolean | undefined;
  options?: Array<{ name?: string | undefined; value?: string | undefined }> | undefined;
  supportedFileTypes?: string[] | undefined;
  fields?: WorkableField[] | undefined;
};

const WorkableFieldSchema: z.ZodType<WorkableField> = z.lazy(() =>
  z.object({
    id: z.string(),
    label: z.string(),
    type: z.string(),
    required: z.boolean().optional(),
    singleOption: z.boolean().optional(),
    options: z.array(z.object({ name: z.string().optional(), value: z.string().optional() })).optional(),
    supportedFileTypes: z.array(z.string()).optional(),
    fields: z.array(WorkableFieldSchema).optional(),
  }),
);

const WorkableForm = z.array(z.object({ name: z.string(), fields: z.array(WorkableFieldSchema) }));

// Workable's standard field ids; employer questions are QA_n / CA_n and are read by their words.
const standardCategories: Record<string, Category | null> = {
  firstname: 'firstName',
  lastname: 'lastName',
  email: 'email',
  phone: 'phone',
  address: 'address',
  resume: 'resume',
  cover_letter: 'coverLetter',
  education: 'education',
  experience: 'experience',
  headline: null,
  summary: null,
  avatar: null,
};

function mapField(field: WorkableField, label: string, idPrefix: string, categorizeIt: boolean): Question {
  const base = {
    id: `${idPrefix}${field.id}`,
    question: field.label,
    label,
    mandatory: field.required === true,
    category: categorizeIt ? standardCategories[field.id] : null,
  };
  switch (field.type) {
    case 'paragraph':
      return buildQuestion({ ...base, inputType: 'TextArea' });
    case 'boolean':
      return buildQuestion({ ...base, inputType: 'Boolean' });
    case 'date':
      return buildQuestion({ ...base, inputType: 'Date' });
    case 'file':
      return buildQuestion({ ...base, inputType: 'File', accept: extensions(field.supportedFileTypes ?? []) });
    case 'dropdown':
    case 'multiple':
      return buildQuestion({
        ...base,
        // A dropdown is always single; "multiple" is checkboxes unless singleOption turns it into radios.
        inputType: field.type === 'dropdown' || field.singleOption === true ? 'SelectOne' : 'SelectMultiple',
        options: choices((field.options ?? []).map((option) => option.value)),
      });
    case 'group':
      return buildQuestion({
        ...base,
        inputType: 'ArrayOfObjects',
        // Sub-fields are required only once an entry exists; ids are prefixed because
        // education and experience both have start_date/end_date.
        options: (field.fields ?? []).map((sub) => mapField(sub, field.label, `${field.id}.`, false)),
      });
    default:
      // text, email, phone, number: one line of text.
      return buildQuestion({ ...base, inputType: 'Text' });
  }
}

/** Sections → questions. The prefilled `address` value comes from our IP and is not an answer. */
function mapWorkableForm(form: z.infer<typeof WorkableForm>): Question[] {
  return form.flatMap((section) => section.fields.map((field) => mapField(field, section.name, '', true)));
}

export const workableAdapter =
  (baseUrl: string): AtsAdapter<{ shortcode: string }> =>
  async (target, context) => {
    const response = await request(context, `${expandBase(baseUrl, {})}/api/v1/jobs/${encodeURIComponent(target.shortcode)}/form`, {
      headers: { accept: 'application/json' },
    });
    return mapWorkableForm(parsePayload(WorkableForm, await readJson(response), 'Workable form'));
  };
