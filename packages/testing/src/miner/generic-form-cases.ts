import type { Question } from '@quarry/contracts';

/** A question as the generic-miner tests compare it: what a client reads, conditional questions left out. */
export type QuestionSummary = {
  id: string;
  inputType: Question['inputType'];
  question: string;
  label: string;
  mandatory: boolean;
  options?: string[];
};

export function summarize(questions: Question[]): QuestionSummary[] {
  return questions.map((question) => ({
    id: question.id,
    inputType: question.inputType,
    question: question.question,
    label: question.label,
    mandatory: question.mandatory,
    ...(question.options ? { options: question.options.map((option) => ('answer' in option ? option.answer : option.id)) } : {}),
  }));
}

const text = (id: string, question: string, label: string, mandatory: boolean): QuestionSummary => ({
  id,
  inputType: 'Text',
  question,
  label,
  mandatory,
});

/**
 * What both generic miners (server-rendered HTML and the browser) must read from
 * `fixtureForms.sections`: a question's label is the section it sits in (the heading just above the
 * form, a legend titling several questions, a heading in the form), never the page's job title or a
 * heading of the job description; a group without a label is named by the text before it;
 * placeholders are not options; the parts of a required address block are required; a slider's
 * number box and a custom dropdown's hidden value box are not questions.
 */
export const sectionsFormQuestions: QuestionSummary[] = [
  text('name', 'Full name', 'Your details', true),
  text('street', 'Street', 'Home address', true),
  text('town', 'Town', 'Home address', true),
  text('postcode', 'Postcode', 'Home address', true),
  text('phone', 'Phone', 'Your details', false),
  text('mail_street', 'Mailing address', 'Your details', true),
  text('mail_town', 'Town', 'Your details', true),
  text('mail_postcode', 'Postcode', 'Your details', true),
  {
    id: 'q_auth',
    inputType: 'SelectOne',
    question: 'Are you authorized to work in the UK?',
    label: 'Eligibility',
    mandatory: true,
    options: ['Yes', 'No'],
  },
  { id: 'shift', inputType: 'SelectOne', question: 'Preferred shift', label: 'Eligibility', mandatory: false, options: ['Day', 'Night'] },
  {
    id: 'q_days_answer',
    inputType: 'SelectMultiple',
    question: 'Which days can you work?',
    label: 'Eligibility',
    mandatory: true,
    options: ['Weekdays', 'Weekends'],
  },
  {
    id: 'tools',
    inputType: 'SelectMultiple',
    question: 'Tools you use',
    label: 'Eligibility',
    mandatory: true,
    options: ['Zendesk', 'Jira'],
  },
  {
    id: 'notice',
    inputType: 'SelectOne',
    question: 'Notice period',
    label: 'Eligibility',
    mandatory: false,
    options: ['None', 'One month'],
  },
  {
    id: 'relocate',
    inputType: 'SelectOne',
    question: 'Willing to relocate?',
    label: 'Eligibility',
    mandatory: false,
    options: ['Yes', 'No'],
  },
  {
    id: 'gender',
    inputType: 'SelectOne',
    question: 'Gender',
    label: 'Eligibility',
    mandatory: false,
    options: ['Decline to answer', 'Female', 'Male'],
  },
  text('years', 'Years of experience', 'Eligibility', true),
  {
    id: 'degree_list',
    inputType: 'SelectOne',
    question: 'Highest degree',
    label: 'Eligibility',
    mandatory: false,
    options: ["Bachelor's", "Master's"],
  },
  {
    id: 'veteran',
    inputType: 'SelectOne',
    question: 'Veteran status',
    label: 'Voluntary self-identification',
    mandatory: false,
    options: ['I am a veteran', 'I am not a veteran'],
  },
  text('pronouns', 'Pronouns', 'Voluntary self-identification', false),
  { id: 'notes', inputType: 'TextArea', question: 'Anything else?', label: 'Eligibility', mandatory: false },
];
