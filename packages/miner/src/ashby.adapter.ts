import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion, choices, htmlToText } from './question-builder.ts';

type Category = NonNullable<Question['category']>;

const AshbyField = z.looseObject({
  path: z.string(),
  title: z.string().nullish(),
  type: z.string(),
  selectableValues: z.array(z.object({ label: z.string(), isArchived: z.boolean().nullish() })).nullish(),
});
const FieldEntry = z.object({
  field: AshbyField,
  isRequired: z.boolean().nullish(),
  isHidden: z.boolean().nullish(),
  descriptionHtml: z.string().nullish(),
});
const FormRender = z.object({
  sections: z.array(
    z.object({
      title: z.string().nullish(),
      descriptionHtml: z.string().nullish(),
      isHidden: z.boolean().nullish(),
      fieldEntries: z.array(FieldEntry),
    }),
  ),
});
const AshbyPosting = z.object({
  title: z.string().nullish(),
  applicationForm: FormRender.nullish(),
  surveyForms: z.array(FormRender).nullish(),
});
const AshbyResponse = z.object({
  data: z.object({ jobPosting: AshbyPosting.nullable() }).nullish(),
  errors: z.array(z.unknown()).nullish(),
});

const systemCategories: Record<string, Category> = {
  _systemfield_name: 'fullName',
  _systemfield_email: 'email',
  _systemfield_phone: 'phone',
  _systemfield_resume: 'resume',
  _systemfield_cover_letter: 'coverLetter',
  _systemfield_linkedin: 'linkedin',
  _systemfield_eeoc_gender: 'gender',
  _systemfield_eeoc_race: 'race',
  _systemfield_eeoc_veteran_status: 'veteran',
  _systemfield_eeoc_disability_status: 'disability',
  _systemfield_education_history: 'education',
  _systemfield_data_consent_ack: 'consent',
};
const typeCategories: Record<string, Category> = { Email: 'email', Phone: 'phone' };
const textTypes = new Set(['String', 'Email', 'Phone', 'Url', 'Number', 'Location', 'SocialLink', 'Currency']);
const educationParts: Array<[key: string, title: string, inputType: Question['inputType']]> = [
  ['schoolName', 'School', 'Text'],
  ['degree', 'Degree', 'Text'],
  ['major', 'Major', 'Text'],
  ['startDate', 'Start Date', 'Date'],
  ['endDate', 'End Date', 'Date'],
];

function entryQuestion(entry: z.infer<typeof FieldEntry>, label: string): Question {
  const { field } = entry;
  // A consent box may have no title: its words are only in the entry's description.
  const title = field.title?.trim() || htmlToText(entry.descriptionHtml ?? '');
  const base = {
    id: field.path,
    question: title,
    label,
    mandatory: entry.isRequired === true,
    category: systemCategories[field.path] ?? typeCategories[field.type],
  };
  const options = () => choices((field.selectableValues ?? []).filter((value) => value.isArchived !== true).map((value) => value.label));
  if (textTypes.has(field.type)) return buildQuestion({ ...base, inputType: 'Text' });
  switch (field.type) {
    case 'LongText':
    case 'RichText':
      return buildQuestion({ ...base, inputType: 'TextArea' });
    case 'Boolean':
      return buildQuestion({ ...base, inputType: 'Boolean' });
    case 'Date':
      return buildQuestion({ ...base, inputType: 'Date' });
    case 'File':
      return buildQuestion({ ...base, inputType: 'File' });
    case 'ValueSelect':
      return buildQuestion({ ...base, inputType: 'SelectOne', options: options() });
    case 'MultiValueSelect':
      return buildQuestion({ ...base, inputType: 'SelectMultiple', options: options() });
    case 'EducationHistory':
      return buildQuestion({
        ...base,
        inputType: 'ArrayOfObjects',
        // Each part is "required", "optional" or "hidden" on the field itself.
        options: educationParts
          .filter(([key]) => field[key] === 'required' || field[key] === 'optional')
          .map(([key, partTitle, inputType]) =>
            buildQuestion({
              id: `${field.path}.${key}`,
              question: partTitle,
              inputType,
              label: title,
              mandatory: field[key] === 'required',
              category: null,
            }),
          ),
      });
    default:
      // Types seen only in client bundles (Score, DateRange, …) are answered as text until measured.
      return buildQuestion({ ...base, inputType: 'Text' });
  }
}

function formQuestions(form: z.infer<typeof FormRender>, defaultLabel: string): Question[] {
  return form.sections.flatMap((section, index) => {
    if (section.isHidden === true) return [];
    const label = section.title?.trim() || defaultLabel;
    const questions: Question[] = [];
    const description = section.descriptionHtml?.trim() ?? '';
    if (description && htmlToText(description)) {
      questions.push(
        buildQuestion({
          id: `${defaultLabel.toLowerCase().replace(/\W+/g, '_')}_section_${index}_text`,
          question: htmlToText(description),
          inputType: 'TextLiteral',
          label,
          mandatory: false,
          category: null,
          value: description,
        }),
      );
    }
    for (const entry of section.fieldEntries)
      if (entry.isHidden !== true && entry.field.isDeactivated !== true) questions.push(entryQuestion(entry, label));
    return questions;
  });
}

function mapAshbyPosting(posting: z.infer<typeof AshbyPosting>, fallbackLabel: string): Question[] {
  const label = posting.title?.trim() || fallbackLabel;
  const questions = posting.applicationForm ? formQuestions(posting.applicationForm, label) : [];
  // The voluntary EEO block lives in surveyForms (37 of 111 forms), in the same shape.
  for (const survey of posting.surveyForms ?? []) questions.push(...formQuestions(survey, 'Survey'));
  return questions;
}

const query = `query ApiJobPosting($organizationHostedJobsPageName: String!, $jobPostingId: String!) {
  jobPosting(organizationHostedJobsPageName: $organizationHostedJobsPageName, jobPostingId: $jobPostingId) {
    title
    applicationForm { ...FormRenderParts }
    surveyForms { ...FormRenderParts }
  }
}
fragment FormRenderParts on FormRender {
  sections { title descriptionHtml isHidden fieldEntries { ... on FormFieldEntry { id field fieldValue isRequired descriptionHtml isHidden } } }
}`;

export const ashbyAdapter =
  (baseUrl: string): AtsAdapter<{ org: string; postingId: string }> =>
  async (target, context) => {
    const response = await request(context, `${expandBase(baseUrl, {})}/api/non-user-graphql?op=ApiJobPosting`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        operationName: 'ApiJobPosting',
        variables: { organizationHostedJobsPageName: target.org, jobPostingId: target.postingId },
        query,
      }),
    });
    const body = parsePayload(AshbyResponse, await readJson(response), 'Ashby job posting');
    if (!body.data) throw new MiningFailure('GenericWebsiteError', 'Ashby answered the posting query with errors only');
    // A closed (or withdrawn) posting answers HTTP 200 with jobPosting: null.
    if (!body.data.jobPosting) throw new MiningFailure('JobExpired', 'Ashby returned no posting (closed or removed)');
    if (!body.data.jobPosting.applicationForm) throw new MiningFailure('FormNotFound', 'the Ashby posting has no application form');
    return mapAshbyPosting(body.data.jobPosting, context.jobPost.jobTitle);
  };
