import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readJson, readText, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const ManatalForm = z.array(
  z.object({
    id: z.union([z.number(), z.string()]),
    label: z.string(),
    is_required: z.boolean().optional(),
    client_field_slug: z.string().nullish(),
    client_field_field_type: z.string().nullish(),
    client_field_answer_choices: z.array(z.string()).nullish(),
    social_media: z.number().nullish(),
    response_type: z.string().nullish(),
    field_type: z.string().nullish(),
  }),
);

// Manatal's own candidate fields, by slug (cezkid/jobs manatal.md: 47 of 47 forms).
const slugCategories: Record<string, Category> = {
  full_name: 'fullName',
  email: 'email',
  phone_number: 'phone',
  description: 'coverLetter',
};
const socialCategories: Record<number, Category> = { 3: 'linkedin' };
const listTypes: Record<string, 'SelectOne' | 'SelectMultiple'> = {
  dropdown: 'SelectOne',
  multiple_choice: 'SelectOne',
  multiple_select_dropdown: 'SelectMultiple',
  checkbox: 'SelectMultiple',
};
const responseTypes: Record<string, Question['inputType']> = {
  char: 'Text',
  longtext: 'TextArea',
  integer: 'Text',
  boolean: 'Boolean',
  datetime: 'Date',
};

function mapManatalForm(fields: z.infer<typeof ManatalForm>, label: string): Question[] {
  return fields.map((field) => {
    const slug = field.client_field_slug ?? '';
    const base = {
      id: String(field.id),
      question: field.label,
      label,
      mandatory: field.is_required === true,
      category: slugCategories[slug] ?? (field.social_media ? socialCategories[field.social_media] : undefined),
    };
    if (field.field_type === 'resume') return buildQuestion({ ...base, inputType: 'File', category: 'resume' });
    if (field.field_type === 'attachment') return buildQuestion({ ...base, inputType: 'File' });
    if (field.field_type === 'social_media') return buildQuestion({ ...base, inputType: 'Text' });
    const listType = listTypes[field.client_field_field_type ?? ''];
    if (field.field_type === 'candidate_field' && listType) {
      return buildQuestion({ ...base, inputType: listType, options: choices(field.client_field_answer_choices ?? []) });
    }
    // Otherwise the box is typed by what it holds; yes/no questions often arrive as plain char boxes.
    return buildQuestion({ ...base, inputType: responseTypes[field.response_type ?? ''] ?? 'Text' });
  });
}

const jobIdPattern = /\bselectedJobId\s*=\s*["'](\d+)["']/;

export const manatalAdapter =
  (baseUrl: string): AtsAdapter<{ org: string; jobHash: string }> =>
  async (target, context) => {
    const base = expandBase(baseUrl, {});
    // The posting is addressed by a hash; the form definition by the numeric id its apply page names.
    const page = await request(context, `${base}/${encodeURIComponent(target.org)}/job/${encodeURIComponent(target.jobHash)}/apply`);
    const jobId = jobIdPattern.exec(await readText(page))?.[1];
    if (!jobId) throw new MiningFailure('FormNotFound', 'the Manatal apply page names no job: the posting may have closed');
    const response = await request(context, `${base}/api/v1.0/jobs/${jobId}/application-form/`, {
      headers: { accept: 'application/json' },
    });
    if (response.headers.get('x-amzn-waf-action') === 'challenge')
      throw new MiningFailure('BotDetection', 'Manatal asked for a browser check');
    const fields = parsePayload(ManatalForm, await readJson(response), 'Manatal application form');
    if (fields.length === 0) throw new MiningFailure('FormNotFound', 'the Manatal form has no fields');
    return mapManatalForm(fields, context.jobPost.jobTitle);
  };
