import type { ResolvedAnswer } from '@quarry/hosted-form-apply';
import { candidate } from '@quarry/testing/hosted-form-apply';
import { recruiteeDoubleOffers, startRecruiteeApiDouble } from '@quarry/testing';
import { apiCase, cv, type DeliveredAnswer } from './api-case.ts';

const photo = { ...cv, filename: 'Ada.jpg', contentType: 'image/jpeg' };
const sample = { ...cv, filename: 'Analytical Engine notes.pdf' };

/**
 * The offer with every open-question kind Recruitee documents: each answer with the multipart
 * parts it must arrive as (docs.recruitee.com/reference/offersoffer_idcandidates: `content` for
 * string, text, single_choice, date, salary and number, `multi_content[]` for multi_choice, `file`
 * for file, `flag` for boolean and legal), entries numbered in the order the answers are given.
 */
export const recruiteeApiCase = apiCase(
  'recruitee',
  startRecruiteeApiDouble,
  () => {
    const entry = (index: number, field: string) => `candidate[open_question_answers_attributes][${index}][${field}]`;
    const openQuestions: Array<[id: number, value: ResolvedAnswer['value'], field: string, sent: unknown]> = [
      [2553702, true, 'flag', 'true'],
      [2553703, 'One month', 'content', 'One month'],
      [2553704, 'Because of the engines.\nAnd the people.', 'content', 'Because of the engines.\nAnd the people.'],
      [2553705, 'Advanced', 'content', 'Advanced'],
      [2553706, ['Elixir', 'TypeScript'], 'multi_content][', ['Elixir', 'TypeScript']],
      [2553707, '2027-01-04T00:00:00.000Z', 'content', '2027-01-04'],
      [2553708, '7', 'content', '7'],
      [2553709, '85000', 'content', '85000'],
      [2553710, sample, 'file', { bytes: sample.bytes }],
      [2553711, true, 'flag', 'true'],
    ];
    return {
      url: `https://acme.recruitee.com/o/${recruiteeDoubleOffers.everyKind}`,
      delivered: (email): DeliveredAnswer[] => [
        { id: 'candidate.name', value: 'Ada Lovelace', fields: [{ name: 'candidate[name]', value: 'Ada Lovelace' }] },
        { id: 'candidate.email', value: email, fields: [{ name: 'candidate[email]', value: email }] },
        { id: 'candidate.phone', value: candidate.phone, fields: [{ name: 'candidate[phone]', value: candidate.phone }] },
        { id: 'candidate.photo', value: photo, fields: [{ name: 'candidate[photo]', value: { bytes: photo.bytes } }] },
        { id: 'candidate.cv', value: cv, fields: [{ name: 'candidate[cv]', value: { bytes: cv.bytes } }] },
        {
          id: 'candidate.cover_letter',
          value: 'Dear Acme,\nI write programs.',
          fields: [{ name: 'candidate[cover_letter]', value: 'Dear Acme,\nI write programs.' }],
        },
        ...openQuestions.map(([id, value, field, sent], index) => ({
          id: `open_question_${id}`,
          value,
          fields: [
            { name: entry(index, 'open_question_id'), value: String(id) },
            { name: entry(index, field), value: sent },
          ],
        })),
      ],
      // Recruitee's 422 `{error: [...], error_fields: {field: [...]}}` (Cheddar's submit_application.rb:57-66), and a job taken down between reading and sending.
      refusals: [
        [
          [{ status: 422, body: { error: ["Phone can't be blank"], error_fields: { phone: ["can't be blank"] } } }],
          'MandatoryQuestionsNotAnswered',
        ],
        [
          [{ status: 422, body: { error: ['Cv has an invalid file type'], error_fields: { cv: ['has an invalid file type'] } } }],
          'FileTypeNotSupported',
        ],
        [[{ status: 422, body: { error: ['Email is invalid'], error_fields: { email: ['is invalid'] } } }], 'ApplicantDetailsInvalid'],
        [[{ status: 404, body: { error: 'Not found' } }], 'JobExpired'],
      ],
    };
  },
  { keyless: true },
);
