import type { Question } from '@quarry/contracts';
import { load } from 'cheerio/slim';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readText, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const Setting = z.string().nullish();
const BreezyPosition = z.object({
  name: z.string().optional(),
  application_form: z.record(z.string(), z.unknown()).optional(),
  locations: z.array(z.object({ name: z.string().optional() })).optional(),
});
const BreezyQuestion = z.object({
  _id: z.union([z.string(), z.number()]),
  text: z.string(),
  type: z.object({ id: z.string() }).optional(),
  required: z.boolean().optional(),
  options: z.array(z.object({ text: z.string().optional() })).optional(),
});
const BreezyDefinition = z.object({
  position: BreezyPosition,
  questions: z
    .array(z.object({ _id: z.union([z.string(), z.number()]), title: z.string().optional(), questions: z.array(BreezyQuestion) }))
    .default([]),
  eeocEnabled: z.boolean().optional(),
  ccpaEnabled: z.boolean().optional(),
});
type Definition = z.infer<typeof BreezyDefinition>;

// Standard boxes by application_form key, with the page's English headings and box names
// (cezkid/jobs breezy.py, measured on 9 live forms).
const standard: Array<[key: string, id: string, title: string, inputType: Question['inputType'], category: Category | null]> = [
  ['resume', 'cResume', 'Resume', 'File', 'resume'],
  ['name', 'cName', 'Full Name', 'Text', 'fullName'],
  ['email_address', 'cEmail', 'Email Address', 'Text', 'email'],
  ['phone_number', 'cPhoneNumber', 'Phone Number', 'Text', 'phone'],
  ['address', 'cAddress', 'Address', 'Text', 'address'],
];
const longText: Array<[key: string, id: string, title: string, category: Category | null]> = [
  ['summary', 'cSummary', 'Experience Summary', null],
  ['cover_letter', 'cCoverLetter', 'Cover Letter', 'coverLetter'],
];
const repeaters: Array<[key: string, title: string, category: Category]> = [
  ['work_history', 'Work History', 'experience'],
  ['education', 'Education', 'education'],
];
const salaryPeriods = ['Hourly', 'Weekly', 'Monthly', 'Yearly'];
// Voluntary self-identification, drawn when EEOC is on; words from Breezy's English translation file.
const eeo: Array<[id: string, title: string, category: Category, options: string[]]> = [
  [
    'race_ethnicity',
    'Race or Ethnicity',
    'race',
    [
      'White (not Hispanic or Latino)',
      'Black or African-American (not Hispanic or Latino)',
      'Asian (not Hispanic or Latino)',
      'American Indian or Alaskan Native (not Hispanic or Latino)',
      'Native Hawaiian or other Pacific islander (not Hispanic or Latino)',
      'Two or more races/ethnicities (not Hispanic or Latino)',
      'Hispanic or Latino (including Black individuals whose origins are Hispanic)',
      "I don't wish to answer",
    ],
  ],
  ['gender', 'Gender', 'gender', ['Male', 'Female', "I don't wish to answer"]],
  [
    'eeoc.veteran_status',
    'Veteran status',
    'veteran',
    [
      'I IDENTIFY AS ONE OR MORE OF THE CLASSIFICATIONS OF PROTECTED VETERAN LISTED ABOVE',
      'I AM NOT A PROTECTED VETERAN',
      'I CHOOSE NOT TO SELF-IDENTIFY MY PROTECTED VETERAN STATUS',
    ],
  ],
];
const ccpaText = "I've read the Privacy Notice below and consent the processing of my data as part of my job application.";

function employerQuestion(entry: z.infer<typeof BreezyQuestion>, label: string): Question {
  const base = { id: String(entry._id), question: entry.text, label, mandatory: entry.required === true };
  const options = choices((entry.options ?? []).map((option) => option.text));
  switch (entry.type?.id ?? 'text') {
    case 'multiplechoice':
    case 'dropdown':
      return buildQuestion({ ...base, inputType: 'SelectOne', options });
    case 'checkboxes':
      return buildQuestion({ ...base, inputType: 'SelectMultiple', options });
    case 'paragraph':
      return buildQuestion({ ...base, inputType: 'TextArea' });
    case 'date':
      return buildQuestion({ ...base, inputType: 'Date' });
    case 'file':
      return buildQuestion({ ...base, inputType: 'File' });
    default:
      return buildQuestion({ ...base, inputType: 'Text' });
  }
}

function mapBreezyDefinition(definition: Definition, fallbackLabel: string): Question[] {
  const form = definition.position.application_form ?? {};
  const setting = (key: string) => Setting.catch(null).parse(form[key]);
  const shown = (key: string) => setting(key) === 'required' || setting(key) === 'optional';
  const required = (key: string) => setting(key) === 'required';
  const label = definition.position.name ?? fallbackLabel;
  const questions: Question[] = [];
  for (const [key, id, title, inputType, category] of standard) {
    if (shown(key)) questions.push(buildQuestion({ id, question: title, inputType, label, mandatory: required(key), category }));
  }
  if (shown('salary')) {
    questions.push(
      buildQuestion({
        id: 'cSalary',
        question: 'Desired Salary',
        inputType: 'FragmentedQuestion',
        label,
        mandatory: required('salary'),
        category: 'salary',
        options: [
          buildQuestion({
            id: 'cSalary',
            question: 'Desired Salary',
            inputType: 'Text',
            label,
            mandatory: required('salary'),
            category: null,
          }),
          buildQuestion({
            id: 'cSalary:per',
            question: 'Desired Salary - per',
            inputType: 'SelectOne',
            label,
            mandatory: required('salary'),
            category: null,
            options: choices(salaryPeriods),
          }),
        ],
      }),
    );
  }
  if (shown('preferred_location')) {
    questions.push(
      buildQuestion({
        id: 'cLocation',
        question: 'Which location are you applying for',
        inputType: 'SelectOne',
        label,
        mandatory: required('preferred_location'),
        category: null,
        options: choices((definition.position.locations ?? []).map((location) => location.name)),
      }),
    );
  }
  for (const [key, id, title, category] of longText) {
    if (shown(key))
      questions.push(buildQuestion({ id, question: title, inputType: 'TextArea', label, mandatory: required(key), category }));
  }
  // Entries are added one by one on the page; the definition does not list their boxes.
  for (const [key, title, category] of repeaters) {
    if (shown(key))
      questions.push(
        buildQuestion({ id: key, question: title, inputType: 'ArrayOfObjects', label, mandatory: required(key), category, options: [] }),
      );
  }
  for (const section of definition.questions) {
    for (const entry of section.questions) questions.push(employerQuestion(entry, section.title || 'Questionnaire'));
  }
  if (shown('eeoc') || definition.eeocEnabled === true) {
    for (const [id, title, category, options] of eeo) {
      questions.push(
        buildQuestion({
          id,
          question: title,
          inputType: 'SelectOne',
          label: 'Voluntary Self-Identification',
          mandatory: false,
          category,
          options: choices(options),
        }),
      );
    }
  }
  if (shown('ccpa') || definition.ccpaEnabled === true) {
    questions.push(
      buildQuestion({
        id: 'ccpaAgreement',
        question: ccpaText,
        inputType: 'Boolean',
        label,
        mandatory: setting('ccpa') !== 'optional',
        category: 'consent',
      }),
    );
  }
  return questions;
}

/** The position JSON the apply page carries: React build in a script, Angular build in attributes. */
function readBreezyPage(html: string): unknown {
  const $ = load(html);
  const react = $('script#portal-data').first().text();
  if (react.trim()) {
    const data = (JSON.parse(react) as { data?: Record<string, unknown> }).data ?? {};
    return data;
  }
  const angular = $('[data-position]').first().attr('data-position');
  if (angular)
    return { position: JSON.parse(angular) as unknown, questions: JSON.parse($('input#questions').attr('value') || '[]') as unknown };
  if (/Position Closed/i.test($('body').text())) throw new MiningFailure('JobExpired', 'Breezy says "Position Closed"');
  throw new MiningFailure('FormNotFound', 'no Breezy position definition on the apply page');
}

export const breezyAdapter =
  (baseUrl: string): AtsAdapter<{ company: string; posting: string }> =>
  async (target, context) => {
    const response = await request(
      context,
      `${expandBase(baseUrl, { company: target.company })}/p/${encodeURIComponent(target.posting)}/apply`,
    );
    let data: unknown;
    try {
      data = readBreezyPage(await readText(response));
    } catch (error) {
      if (error instanceof MiningFailure) throw error;
      throw new MiningFailure('GenericWebsiteError', 'the Breezy position JSON does not parse');
    }
    return mapBreezyDefinition(parsePayload(BreezyDefinition, data, 'Breezy position'), context.jobPost.jobTitle);
  };
