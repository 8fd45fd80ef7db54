import { candidate } from '@quarry/applier/hosted-cases';
import { startRecruiteeApiDouble } from '@quarry/testing';
import { apiCase, cv } from './api-case.ts';

export const recruiteeApiCase = apiCase(
  'recruitee',
  startRecruiteeApiDouble,
  () => {
    const url = 'https://acme.recruitee.com/o/backend-engineer';
    const attribute = (index: number, field: string) => `candidate[open_question_answers_attributes][${index}][${field}]`;
    return {
      url,
      unchanged: (email) => [
        ['candidate.name', 'candidate[name]', 'Ada Lovelace'],
        ['candidate.email', 'candidate[email]', email],
        ['candidate.phone', 'candidate[phone]', candidate.phone],
        ['candidate.cover_letter', 'candidate[cover_letter]', 'Dear Acme,\nI write programs.'],
      ],
      answers: () => [
        { id: 'candidate.cv', value: cv },
        { id: 'open_question_501', value: true },
        { id: 'open_question_502', value: ['Elixir', 'Ruby'] },
        { id: 'open_question_504', value: 'One month' },
      ],
      fields: () => [
        { name: 'candidate[cv]', value: { bytes: cv.bytes } },
        { name: attribute(0, 'open_question_id'), value: '501' },
        { name: attribute(0, 'flag'), value: 'true' },
        { name: attribute(1, 'open_question_id'), value: '502' },
        { name: 'candidate[open_question_answers_attributes][1][multi_content][]', value: ['Elixir', 'Ruby'] },
        { name: attribute(2, 'open_question_id'), value: '504' },
        { name: attribute(2, 'content'), value: 'One month' },
      ],
      refusals: [
        [[{ status: 422, body: { error: ["Phone can't be blank"], error_fields: { phone: ["can't be blank"] } } }], 'MandatoryQuestionsNotAnswered'],
        [[{ status: 422, body: { error: ['Cv has an invalid file type'], error_fields: { cv: ['has an invalid file type'] } } }], 'FileTypeNotSupported'],
        [[{ status: 422, body: { error: ['You have already applied for this job'], error_fields: {} } }], 'AlreadyApplied'],
      ],
    };
  },
  { keyless: true },
);
