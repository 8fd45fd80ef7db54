import { candidate } from '@quarry/testing/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { jazzDoubleJobs, startJazzApiDouble } from '@quarry/testing';
import { apiCase, cv, type DeliveredAnswer } from './api-case.ts';

/**
 * The apply page's boxes and the applicant parameter each must arrive as (resumatorapi.com/v1
 * applicants POST, as transcribed in Riminder/hrflow-connectors@d9304cf8 jazzhr/schemas.py), with
 * the candidate's answer. The posting shows every box kind the API carries: text, long text, a
 * date, the address block and the résumé.
 */
const boxes = (email: string): Record<string, [parameter: string, value: string]> => ({
  'resumator-firstname-value': ['first_name', 'Ada'],
  'resumator-lastname-value': ['last_name', 'Lovelace'],
  'resumator-email-value': ['email', email],
  'resumator-phone-value': ['phone', candidate.phone],
  'resumator-address-value': ['address', '12 St James’s Square'],
  'resumator-city-value': ['city', 'London'],
  'resumator-state-value': ['state', 'Greater London'],
  'resumator-postal-value': ['postal', 'SW1Y 4JH'],
  'resumator-coverletter-value': ['coverletter', 'Dear Acme,\nI write programs.'],
  'resumator-salary-value': ['salary', '£85,000'],
  'resumator-linkedin-value': ['linkedin', 'https://www.linkedin.com/in/ada-lovelace'],
  'resumator-website-value': ['website', 'https://ada.example.com'],
  'resumator-twitter-value': ['twitter', '@ada'],
  'resumator-languages-value': ['languages', 'English, French, Italian'],
  'resumator-referral-value': ['referral', 'Charles Babbage'],
  'resumator-college-value': ['college', 'Home tutoring'],
  'resumator-gpa-value': ['gpa', '4.0'],
  'resumator-references-value': ['references', 'Mary Somerville\nAugustus De Morgan'],
  'resumator-wmyu-value': ['wmyu', 'I wrote the first published program.'],
  'resumator-felonyexplain-value': ['felonyexplain', 'Not applicable.'],
});

export const jazzApiCase = apiCase('jazzhr', startJazzApiDouble, () => ({
  url: `https://acme.applytojob.com/apply/${jazzDoubleJobs.carried}/Platform-Engineer`,
  delivered: (email: string, questions: Question[]): DeliveredAnswer[] =>
    questions
      .flatMap((question) =>
        question.inputType === 'FragmentedQuestion'
          ? (question.options ?? []).filter((part): part is Question => 'id' in part)
          : [question],
      )
      .map((question): DeliveredAnswer => {
        if (question.id === 'resumator-resume-value')
          return { id: question.id, value: cv, fields: [{ name: 'base64-resume', value: cv.bytes.toString('base64') }] };
        // A Date box: the interface's ISO instant in, the calendar date out.
        if (question.id === 'resumator-start-value')
          return { id: question.id, value: '2027-01-04T00:00:00.000Z', fields: [{ name: 'start', value: '2027-01-04' }] };
        const box = boxes(email)[question.id];
        return box
          ? { id: question.id, value: box[1], fields: [{ name: box[0], value: box[1] }] }
          : { id: question.id, value: 'an answer with no documented parameter', fields: [] };
      }),
  fixed: () => [
    { name: 'apikey', value: 'bench-jazzhr-key' },
    { name: 'job', value: 'job_20261101090000_PLATFORMENG' },
  ],
  refusals: [
    [[{ status: 400, body: { error: 'email is required' } }], 'MandatoryQuestionsNotAnswered'],
    [[{ status: 400, body: { error: 'base64-resume: invalid file format' } }], 'FileTypeNotSupported'],
    [[{ status: 409, body: { error: 'Applicant already exists for this job' } }], 'AlreadyApplied'],
    [[{ status: 401, body: { error: 'Invalid API key' } }], 'ApiKeyRejected'],
  ],
}));
