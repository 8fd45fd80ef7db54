import { candidate } from '@quarry/testing/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import type { ReceivedRequest } from '@quarry/testing';
import { startTeamtailorApiDouble, teamtailorDoubleJobs } from '@quarry/testing';
import { apiCase, listedFields, type DeliveredAnswer } from './api-case.ts';

/**
 * The form's boxes and where each must arrive: the candidate's attributes, the job application's
 * cover letter, and each screening answer as an `answers` resource under its question
 * (`answer <question id>` names that answer's typed value), per docs.teamtailor.com.
 */
const boxes = (email: string): Record<string, [field: string, sent: unknown, value: unknown]> => ({
  'candidate[first_name]': ['data.attributes.first-name', 'Ada', 'Ada'],
  'candidate[last_name]': ['data.attributes.last-name', 'Lovelace', 'Lovelace'],
  'candidate[email]': ['data.attributes.email', email, email],
  'candidate[phone]': ['data.attributes.phone', candidate.phone, candidate.phone],
  'candidate[job_applications_attributes][0][cover_letter]': [
    'data.attributes.cover-letter',
    'Dear Acme,\nI write programs.',
    'Dear Acme,\nI write programs.',
  ],
  'candidate[answers_attributes][0][boolean]': ['answer 100626', true, { boolean: true }],
  'candidate[answers_attributes][1][text]': ['answer 100638', 'Toronto, Ontario', { text: 'Toronto, Ontario' }],
  'candidate[answers_attributes][2][text]': [
    'answer 100966',
    'https://www.linkedin.com/in/ada',
    { text: 'https://www.linkedin.com/in/ada' },
  ],
  'candidate[answers_attributes][3][number]': ['answer 100762', '95000', { number: 95000 }],
  'candidate[answers_attributes][4][text]': ['answer 100633', 'Charles Babbage', { text: 'Charles Babbage' }],
});

const answersSent = (sent: ReceivedRequest[]) =>
  sent.filter((request) => request.path === '/api/v1/answers').map((request) => (request.json as { data: Record<string, unknown> }).data);

export const teamtailorApiCase = apiCase(
  'teamtailor',
  startTeamtailorApiDouble,
  () => ({
    url: `https://acme.teamtailor.com/${teamtailorDoubleJobs.carried}`,
    // The candidate, the job application, then one answer per screening question: every write after the intent.
    delivered: (email: string, questions: Question[]): DeliveredAnswer[] =>
      questions.map((question): DeliveredAnswer => {
        const box = boxes(email)[question.id];
        if (!box) return { id: question.id, value: 'an answer with no documented field', fields: [] };
        return { id: question.id, value: box[1] as DeliveredAnswer['value'], fields: [{ name: box[0], value: box[2] }] };
      }),
    fixed: () => [
      { name: 'data.relationships.job.data', value: { type: 'jobs', id: '4959370' } },
      { name: 'data.attributes.merge', value: true },
      { name: 'data.attributes.sourced', value: false },
    ],
    refusals: [
      [
        [
          {
            status: 422,
            body: {
              errors: [
                {
                  status: '422',
                  title: 'Unprocessable Entity',
                  detail: "email can't be blank",
                  source: { pointer: '/data/attributes/email' },
                },
              ],
            },
          },
        ],
        'MandatoryQuestionsNotAnswered',
      ],
      [[{ status: 401, body: { errors: [{ status: '401', title: 'Unauthorized', detail: 'Invalid API key' }] } }], 'ApiKeyRejected'],
    ],
  }),
  {
    received: listedFields(
      'answer',
      answersSent,
      (entry) => (entry.relationships as { question?: { data?: { id?: unknown } } } | undefined)?.question?.data?.id,
      (entry) => entry.attributes,
    ),
  },
);
