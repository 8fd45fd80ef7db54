import { candidate } from '@quarry/testing/hosted-form-apply';
import { greenhouseDoubleJob, startGreenhouseApiDouble } from '@quarry/testing';
import { apiCase, cv } from './api-case.ts';

/** A Word file for the custom file question: bytes that must arrive unchanged, as base64. */
const sample = {
  type: 'File' as const,
  filename: 'Sample.docx',
  contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  bytes: Buffer.from([80, 75, 3, 4, 0, 255, 13, 10]),
};
const base64 = (bytes: Buffer) => bytes.toString('base64');

/**
 * Every mined question of the double's US post answered (each field kind the Job Board API
 * documents for it), and the JSON fields Greenhouse must receive each as: files as
 * `<field>_content` base64 with `_content_filename`, a cover letter as `cover_letter_text`,
 * selects as the job's option values, a place with its coordinates, EEOC fields by their own
 * names, demographic answers as `demographic_answers` objects.
 */
export const greenhouseApiCase = apiCase('greenhouse', startGreenhouseApiDouble, () => ({
  url: `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`,
  delivered: (email) => [
    { id: 'first_name', value: candidate.firstName, fields: [{ name: 'first_name', value: candidate.firstName }] },
    { id: 'last_name', value: candidate.lastName, fields: [{ name: 'last_name', value: candidate.lastName }] },
    { id: 'email', value: email, fields: [{ name: 'email', value: email }] },
    { id: 'phone', value: candidate.phone, fields: [{ name: 'phone', value: candidate.phone }] },
    {
      id: 'resume_or_text',
      value: [{ id: 'resume', value: cv }],
      fields: [
        { name: 'resume_content', value: base64(cv.bytes) },
        { name: 'resume_content_filename', value: cv.filename },
      ],
    },
    {
      id: 'cover_letter_or_text',
      value: [{ id: 'cover_letter_text', value: 'Dear Acme,\nI build engines.' }],
      fields: [{ name: 'cover_letter_text', value: 'Dear Acme,\nI build engines.' }],
    },
    {
      id: 'question_30000001',
      value: 'https://www.linkedin.com/in/ada',
      fields: [{ name: 'question_30000001', value: 'https://www.linkedin.com/in/ada' }],
    },
    // A yes/no select is its 1/0 option; single selects the option's value, multi-selects the list of values.
    { id: 'question_30000002', value: 'No', fields: [{ name: 'question_30000002', value: 0 }] },
    { id: 'question_30000003', value: ['English', 'Mandarin'], fields: [{ name: 'question_30000003', value: [101, 103] }] },
    {
      id: 'question_30000004',
      value: 'Engines.\nAnd analysis.',
      fields: [{ name: 'question_30000004', value: 'Engines.\nAnd analysis.' }],
    },
    {
      id: 'question_30000006',
      value: sample,
      fields: [
        { name: 'question_30000006_content', value: base64(sample.bytes) },
        { name: 'question_30000006_content_filename', value: sample.filename },
      ],
    },
    { id: 'question_30000007', value: 'Conference', fields: [{ name: 'question_30000007', value: 5869313 }] },
    { id: 'location', value: 'London, United Kingdom', fields: [{ name: 'location', value: 'London, United Kingdom' }] },
    { id: 'latitude', value: '51.5072', fields: [{ name: 'latitude', value: '51.5072' }] },
    { id: 'longitude', value: '-0.1276', fields: [{ name: 'longitude', value: '-0.1276' }] },
    { id: 'gender', value: 'Female', fields: [{ name: 'gender', value: 2 }] },
    { id: 'race', value: 'Asian', fields: [{ name: 'race', value: 4 }] },
    { id: 'veteran_status', value: "I don't wish to answer", fields: [{ name: 'veteran_status', value: 3 }] },
    {
      id: 'disability_status',
      value: 'No, I do not have a disability and have not had one in the past',
      fields: [{ name: 'disability_status', value: 2 }],
    },
    // The demographic answers travel together; each answer is found in the list by its question.
    {
      id: 'demographic_7001',
      value: 'I prefer to self-describe',
      fields: [
        { name: 'demographic_answers.0', value: { question_id: 7001, answer_options: [{ answer_option_id: 83, text: 'Countess' }] } },
      ],
    },
    {
      id: 'demographic_7001_83_text',
      value: 'Countess',
      fields: [{ name: 'demographic_answers.0.answer_options.0.text', value: 'Countess' }],
    },
    {
      id: 'demographic_7002',
      value: ['East Asian', 'White'],
      fields: [
        {
          name: 'demographic_answers.1',
          value: { question_id: 7002, answer_options: [{ answer_option_id: 91 }, { answer_option_id: 92 }] },
        },
      ],
    },
  ],
  refusals: [
    [
      [{ status: 400, body: { error: 'Invalid attachment: resume must be a supported file type (pdf, doc, docx, txt, rtf)' } }],
      'FileTypeNotSupported',
    ],
    [[{ status: 400, body: { error: 'The job must be live and published' } }], 'JobExpired'],
    [[{ status: 400, body: { error: 'The job post ID must exist on the job board with the supplied board_token' } }], 'JobNotFound'],
    [[{ status: 400, body: { error: 'email field must contain a valid email address' } }], 'ApplicantDetailsInvalid'],
    [[{ status: 400, body: { error: 'first_name, last_name, and email fields are required' } }], 'MandatoryQuestionsNotAnswered'],
    [[{ status: 401, body: { status: 401, error: 'Invalid Basic Auth credentials' } }], 'ApiKeyRejected'],
    [[{ status: 429, body: { error: 'Too many requests' } }], 'ApplicationFailed'],
  ],
}));
