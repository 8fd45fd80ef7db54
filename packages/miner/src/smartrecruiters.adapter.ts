import type { Question } from '@quarry/contracts';
import { z } from 'zod';
import { expandBase, MiningFailure, parsePayload, readJson, request, type AtsAdapter } from './adapter-support.ts';
import { buildQuestion } from './question-builder.ts';

const Toggle = z.object({ required: z.boolean().optional(), visible: z.boolean().optional() }).loose();
type Toggle = z.infer<typeof Toggle>;

const SmartPosting = z.object({ uuid: z.string(), name: z.string().optional(), active: z.boolean().optional() });
const SmartConfig = z.object({ fieldSets: z.record(z.string(), Toggle.nullable()) });

/**
 * The Application API's configuration of a posting, served only with the employer's key
 * (https://developers.smartrecruiters.com/docs/partners-get-application-screening-questions-and-privacy-policies):
 * screening and diversity questions, each a set of fields of a type.
 */
const ScreeningConfiguration = z.object({
  questions: z.array(
    z.object({
      id: z.string(),
      label: z.string().optional(),
      repeatable: z.boolean().optional(),
      fields: z.array(
        z.object({
          id: z.string(),
          label: z.string().optional(),
          type: z.string(),
          required: z.boolean().optional(),
          values: z.array(z.object({ id: z.string(), label: z.string() })).optional(),
        }),
      ),
    }),
  ),
});
type ScreeningField = z.infer<typeof ScreeningConfiguration>['questions'][number]['fields'][number];

const fieldKinds: Record<string, Question['inputType']> = {
  INPUT_TEXT: 'Text',
  TEXTAREA: 'TextArea',
  SINGLE_SELECT: 'SelectOne',
  RADIO: 'SelectOne',
  MULTI_SELECT: 'SelectMultiple',
  CHECKBOX: 'SelectMultiple',
  INFORMATION: 'TextLiteral',
};

/**
 * The screening questions under the ids the Application API transport answers them by:
 * `screening.<questionId>` for a question of one field, an entry of parts
 * `screening.<questionId>.<fieldId>` for one of several fields or a repeatable one. A field of a
 * type the configuration documents no answer for is mined as text, which the transport refuses to
 * send (the application then goes through the page).
 */
function mapScreening(configuration: z.infer<typeof ScreeningConfiguration>, label: string): Question[] {
  const questionOf = (id: string, field: ScreeningField, text: string, mandatory: boolean): Question => {
    const inputType = fieldKinds[field.type] ?? 'Text';
    const options =
      inputType === 'SelectOne' || inputType === 'SelectMultiple'
        ? (field.values ?? []).map((value) => ({ answer: value.label, conditionalQuestions: [] }))
        : undefined;
    return buildQuestion({
      id,
      question: text,
      inputType,
      label: 'Screening questions',
      mandatory: inputType === 'TextLiteral' ? false : mandatory,
      category: null,
      ...(options ? { options } : {}),
      ...(inputType === 'TextLiteral' ? { value: text } : {}),
    });
  };
  return configuration.questions.map((question) => {
    const text = question.label ?? question.fields[0]?.label ?? question.id;
    const answerable = question.fields.filter((field) => field.type !== 'INFORMATION');
    const [only] = answerable;
    if (only && answerable.length === 1 && !question.repeatable)
      return questionOf(`screening.${question.id}`, only, text, only.required === true);
    if (answerable.length === 0 && question.fields[0]) return questionOf(`screening.${question.id}`, question.fields[0], text, false);
    return buildQuestion({
      id: `screening.${question.id}`,
      question: text,
      inputType: 'ArrayOfObjects',
      label,
      mandatory: answerable.some((field) => field.required === true),
      category: null,
      options: answerable.map((field) =>
        questionOf(`screening.${question.id}.${field.id}`, field, field.label ?? field.id, field.required === true),
      ),
    });
  });
}

const visible = (toggle: Toggle | null | undefined): toggle is Toggle => toggle?.visible === true;
const required = (toggle: Toggle | null | undefined) => toggle?.required === true;
const part = (toggle: Toggle, key: string) => Toggle.nullish().catch(null).parse(toggle[key]);

/**
 * Page 1 of the hosted one-click form, from its `fieldSets` toggles. Screening questions
 * appear only after a resume upload and Next, so they are not in this configuration.
 */
function mapSmartConfig(config: z.infer<typeof SmartConfig>, label: string): Question[] {
  const sets = config.fieldSets;
  const questions: Question[] = [];
  const add = (spec: Omit<Parameters<typeof buildQuestion>[0], 'label'>) => questions.push(buildQuestion({ ...spec, label }));
  const names = sets.firstAndLastName;
  if (visible(names)) {
    add({ id: 'firstName', question: 'First name', inputType: 'Text', mandatory: required(names), category: 'firstName' });
    add({ id: 'lastName', question: 'Last name', inputType: 'Text', mandatory: required(names), category: 'lastName' });
  }
  const email = sets.email;
  if (visible(email)) {
    add({ id: 'email', question: 'Email', inputType: 'Text', mandatory: required(email), category: 'email' });
    // The hosted form asks for the address twice.
    add({ id: 'confirmEmail', question: 'Confirm email', inputType: 'Text', mandatory: required(email), category: 'email' });
  }
  const residence = sets.placeOfResidence;
  if (visible(residence))
    add({ id: 'placeOfResidence', question: 'City', inputType: 'Text', mandatory: required(residence), category: 'city' });
  const phone = sets.phoneNumber;
  if (visible(phone))
    add({ id: 'phoneNumber', question: 'Phone number', inputType: 'Text', mandatory: required(phone), category: 'phone' });
  const experience = sets.experience;
  if (visible(experience)) {
    // The page's toggles name no part of an entry; the parts are the Application API's Experience
    // attributes (open_api_smart_recruiters_sdk Experience: title, company, current, startDate,
    // endDate, location, description), so each answer has the field it goes to.
    const entry = (key: string, question: string, inputType: 'Text' | 'TextArea' | 'Date' | 'Boolean') =>
      buildQuestion({ id: `experience.${key}`, question, inputType, label: 'Experience', mandatory: false, category: null });
    add({
      id: 'experience',
      question: 'Experience',
      inputType: 'ArrayOfObjects',
      mandatory: required(experience),
      category: 'experience',
      options: [
        entry('title', 'Title', 'Text'),
        entry('company', 'Company', 'Text'),
        entry('current', 'I currently work here', 'Boolean'),
        entry('startDate', 'From', 'Date'),
        entry('endDate', 'To', 'Date'),
        entry('location', 'Office location', 'Text'),
        entry('description', 'Description', 'TextArea'),
      ],
    });
  }
  const education = sets.education;
  if (visible(education)) {
    const institution = part(education, 'institution');
    const dates = part(education, 'educationDates');
    const subs: Question[] = [];
    if (visible(institution))
      subs.push(
        buildQuestion({
          id: 'education.institution',
          question: 'Institution',
          inputType: 'Text',
          label: 'Education',
          mandatory: required(institution),
          category: null,
        }),
      );
    // The Application API's Education requires a degree and takes a major and a description
    // (open_api_smart_recruiters_sdk Education), which the page's toggles do not list.
    subs.push(
      buildQuestion({ id: 'education.degree', question: 'Degree', inputType: 'Text', label: 'Education', mandatory: true, category: null }),
    );
    subs.push(
      buildQuestion({ id: 'education.major', question: 'Major', inputType: 'Text', label: 'Education', mandatory: false, category: null }),
    );
    if (visible(dates)) {
      subs.push(
        buildQuestion({
          id: 'education.startDate',
          question: 'Start date',
          inputType: 'Date',
          label: 'Education',
          mandatory: required(dates),
          category: null,
        }),
      );
      subs.push(
        buildQuestion({
          id: 'education.endDate',
          question: 'End date',
          inputType: 'Date',
          label: 'Education',
          mandatory: required(dates),
          category: null,
        }),
      );
    }
    subs.push(
      buildQuestion({
        id: 'education.description',
        question: 'Description',
        inputType: 'TextArea',
        label: 'Education',
        mandatory: false,
        category: null,
      }),
    );
    add({
      id: 'education',
      question: 'Education',
      inputType: 'ArrayOfObjects',
      mandatory: required(education),
      category: 'education',
      options: subs,
    });
  }
  const social = sets.socialProfiles;
  if (visible(social)) {
    const profiles: Array<[key: string, title: string, category: 'linkedin' | 'website' | null]> = [
      ['linkedIn', 'LinkedIn', 'linkedin'],
      ['website', 'Website', 'website'],
      ['facebook', 'Facebook', null],
      ['x', 'X', null],
    ];
    for (const [key, title, category] of profiles) {
      const toggle = part(social, key);
      if (visible(toggle)) add({ id: `socialProfiles.${key}`, question: title, inputType: 'Text', mandatory: required(toggle), category });
    }
  }
  const resume = sets.resume;
  if (visible(resume)) add({ id: 'resume', question: 'Resume', inputType: 'File', mandatory: required(resume), category: 'resume' });
  const message = sets.messageToHiringManager;
  if (visible(message))
    add({
      id: 'messageToHiringManager',
      question: 'Message to the hiring manager',
      inputType: 'TextArea',
      mandatory: required(message),
      category: 'coverLetter',
    });
  // easyApply is "apply with Indeed/LinkedIn/Seek" buttons, not a question.
  return questions;
}

export const smartRecruitersAdapter =
  (options: { apiBaseUrl: string; jobsBaseUrl: string }): AtsAdapter<{ company: string; postingId: string }> =>
  async (target, context) => {
    const company = encodeURIComponent(target.company);
    const postingResponse = await request(
      context,
      `${expandBase(options.apiBaseUrl, {})}/v1/companies/${company}/postings/${encodeURIComponent(target.postingId)}`,
      {
        headers: { accept: 'application/json' },
      },
    );
    const posting = parsePayload(SmartPosting, await readJson(postingResponse), 'SmartRecruiters posting');
    if (posting.active === false) throw new MiningFailure('JobExpired', 'the SmartRecruiters posting is not active');
    const configResponse = await request(
      context,
      `${expandBase(options.jobsBaseUrl, {})}/oneclick-ui/api/company/${company}/publication/${encodeURIComponent(posting.uuid)}/config`,
      {
        headers: { accept: 'application/json' },
      },
    );
    const config = parsePayload(SmartConfig, await readJson(configResponse), 'SmartRecruiters application configuration');
    const label = posting.name ?? context.jobPost.jobTitle;
    const questions = mapSmartConfig(config, label);
    // Screening questions come after Next on the page and, through the API, only with the employer's key.
    if (!context.credential || context.credential.board.toLowerCase() !== target.company.toLowerCase()) return questions;
    const screeningResponse = await request(
      context,
      `${expandBase(options.apiBaseUrl, {})}/postings/${encodeURIComponent(posting.uuid)}/configuration`,
      {
        headers: { accept: 'application/json', 'x-smarttoken': context.credential.key },
      },
    );
    return [
      ...questions,
      ...mapScreening(
        parsePayload(ScreeningConfiguration, await readJson(screeningResponse), 'SmartRecruiters screening configuration'),
        label,
      ),
    ];
  };
