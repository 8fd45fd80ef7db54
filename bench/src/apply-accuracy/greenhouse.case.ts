import { candidate } from '@quarry/applier/hosted-cases';
import { greenhouseDoubleJob, startGreenhouseApiDouble } from '@quarry/testing';
import { apiCase, cv, underOwnName } from './api-case.ts';

export const greenhouseApiCase = apiCase('greenhouse', startGreenhouseApiDouble, () => {
  const url = `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`;
  return {
    url,
    unchanged: (email) =>
      underOwnName([
        ['first_name', 'Ada'],
        ['last_name', 'Lovelace'],
        ['email', email],
        ['question_30000001', 'https://www.linkedin.com/in/ada'],
        ['question_30000004', 'Engines.\nAnd analysis.'],
        ['location', 'London'],
      ]),
    answers: () => [
      { id: 'resume', value: cv },
      { id: 'question_30000002', value: 'No' },
      { id: 'question_30000003', value: ['English', 'Spanish'] },
      { id: 'gender', value: 'Female' },
    ],
    // Single selects carry the option's value id, multi-selects the ids of each choice; the candidate's phone is added.
    fields: () => [
      { name: 'phone', value: candidate.phone },
      { name: 'question_30000002', value: '0' },
      { name: 'question_30000003[]', value: ['101', '102'] },
      { name: 'gender', value: '2' },
      { name: 'resume', value: { bytes: cv.bytes } },
    ],
    refusals: [
      [[{ status: 400, body: { error: 'Invalid attachment: resume must be a pdf, doc, docx, txt or rtf file and > 0 bytes' } }], 'FileTypeNotSupported'],
      [[{ status: 400, body: { error: 'This job is not live and published' } }], 'JobExpired'],
      [[{ status: 400, body: { errors: [{ field: 'question_30000002', message: 'is required' }] } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'Candidate has already applied to this job' } }], 'AlreadyApplied'],
    ],
  };
});
