import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const StandardField = z.object({
  isRequired: z.boolean().optional(),
  label: z.string().optional(),
  options: z.array(z.object({ id: z.union([z.string(), z.number()]), text: z.string() })).optional(),
});
const CustomQuestion = z.object({
  id: z.union([z.string(), z.number()]),
  isRequired: z.boolean().optional(),
  question: z.string(),
  type: z.string(),
  options: z.array(z.object({ option: z.string().optional(), text: z.string().optional() })).optional(),
  hasOther: z.union([z.string(), z.boolean()]).optional(),
});

const BambooDetail = z.object({
  result: z.object({
    jobOpening: z.object({ jobOpeningName: z.string().optional(), jobOpeningStatus: z.string().optional() }).optional(),
    // A field the employer turned off is `[]` instead of an object.
    formFields: z.record(z.string(), z.unknown()),
  }),
});

// BambooHR's fixed field keys → our categories; a key not listed is read by its label.
const categories: Record<string, Category | null> = {
  firstName: 'firstName',
  lastName: 'lastName',
  email: 'email',
  phone: 'phone',
  streetAddress: 'address',
  city: 'city',
  state: null,
  zip: 'zip',
  countryId: 'country',
  linkedinUrl: 'linkedin',
  websiteUrl: 'website',
  dateAvailable: 'startDate',
  desiredPay: 'salary',
  resumeFileId: 'resume',
  coverLetterFileId: 'coverLetter',
  educationLevelId: 'education',
  educationInstitutionName: 'education',
  referredBy: 'referral',
  references: null,
  genderId: 'gender',
  ethnicityId: 'ethnicity',
  veteranStatusId: 'veteran',
  disabilityId: 'disability',
};
const longTextKeys = new Set(['references']);

function standardQuestion(key: string, field: z.infer<typeof StandardField>, label: string): Question {
  const base = { id: key, question: field.label ?? key, label, mandatory: field.isRequired === true, category: categories[key] };
  if (key.endsWith('FileId')) return buildQuestion({ ...base, inputType: 'File' });
  if (key === 'dateAvailable') return buildQuestion({ ...base, inputType: 'Date' });
  if (field.options)
    return buildQuestion({ ...base, inputType: 'SelectOne', options: choices(field.options.map((option) => option.text)) });
  return buildQuestion({ ...base, inputType: longTextKeys.has(key) ? 'TextArea' : 'Text' });
}

function customQuestion(entry: z.infer<typeof CustomQuestion>, label: string): Question {
  // The page names each answer box customQuestionAnswers.<type>_<id>; that is the stable id.
  const base = {
    id: `customQuestionAnswers.${entry.type}_${entry.id}`,
    question: entry.question,
    label,
    mandatory: entry.isRequired === true,
  };
  const answers = (entry.options ?? []).map((option) => option.option ?? option.text);
  if (entry.hasOther === 'yes' || entry.hasOther === true) answers.push('Other');
  switch (entry.type) {
    case 'yes_no':
      return buildQuestion({ ...base, inputType: 'Boolean' });
    case 'long':
      return buildQuestion({ ...base, inputType: 'TextArea' });
    case 'file':
      return buildQuestion({ ...base, inputType: 'File' });
    case 'multi':
      return buildQuestion({ ...base, inputType: 'SelectMultiple', options: choices(answers) });
    case 'single':
    case 'dropdown':
    case 'radio':
      return buildQuestion({ ...base, inputType: 'SelectOne', options: choices(answers) });
    default:
      return buildQuestion({ ...base, inputType: 'Text' });
  }
}

/** `formFields` in payload order (the order the page draws them); custom questions where they sit. */
function mapBambooDetail(detail: z.infer<typeof BambooDetail>, fallbackLabel: string): Question[] {
  const status = detail.result.jobOpening?.jobOpeningStatus;
  if (status && !/^open$/i.test(status)) throw new MiningFailure('JobExpired', `BambooHR opening status "${status}"`);
  const label = detail.result.jobOpening?.jobOpeningName ?? fallbackLabel;
  const questions: Question[] = [];
  for (const [key, value] of Object.entries(detail.result.formFields)) {
    if (key === 'customQuestions') {
      for (const entry of parsePayload(z.array(CustomQuestion), value, 'BambooHR custom questions'))
        questions.push(customQuestion(entry, label));
      continue;
    }
    if (Array.isArray(value)) continue; // turned off by the employer
    questions.push(standardQuestion(key, parsePayload(StandardField, value, `BambooHR field ${key}`), label));
  }
  return questions;
}

export const bambooAdapter =
  (baseUrl: string): AtsAdapter<{ company: string; jobId: string }> =>
  async (target, context) => {
    const base = expandBase(baseUrl, { company: target.company });
    const response = await request(context, `${base}/careers/${encodeURIComponent(target.jobId)}/detail`, {
      headers: { accept: 'application/json' },
    });
    return mapBambooDetail(parsePayload(BambooDetail, await readJson(response), 'BambooHR detail'), context.jobPost.jobTitle);
  };
