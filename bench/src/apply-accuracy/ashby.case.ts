import { ashbyDoublePostings, startAshbyApiDouble } from '@quarry/testing';
import { apiCase, cv, requestFields, type DeliveredAnswer, type FieldReader } from './api-case.ts';

const field = (suffix: string) => `0a1b2c3d-0000-4000-8000-0000000000${suffix}`;
const education = '_systemfield_education_history';
const sample = { ...cv, filename: 'sample.txt', contentType: 'text/plain', bytes: Buffer.from('fn main() {}\n') };

/**
 * Where Ashby's answers travel: `applicationForm <path>` is a field submission of the
 * applicationForm part (a JSON text), `survey <path>` a value of a surveySubmission.create's
 * submittedValues; any other name is a part (a file's bytes) or a JSON field.
 */
const ashbyFields: FieldReader = (sent, name) => {
  const [kind, path] = name.split(' ', 2) as [string, string | undefined];
  if (kind === 'applicationForm' && path !== undefined) {
    const form = requestFields(sent, 'applicationForm');
    const entries =
      typeof form === 'string'
        ? (JSON.parse(form) as { fieldSubmissions?: Array<{ path: string; value: unknown }> }).fieldSubmissions
        : undefined;
    return entries?.find((entry) => entry.path === path)?.value;
  }
  if (kind === 'survey' && path !== undefined) {
    for (const request of sent) {
      const values = (request.json as { submittedValues?: Record<string, unknown> } | undefined)?.submittedValues;
      if (values && path in values) return values[path];
    }
    return undefined;
  }
  return requestFields(sent, name);
};

const inForm = (id: string, value: DeliveredAnswer['value'], sent: unknown = value): DeliveredAnswer => ({
  id,
  value,
  fields: [{ name: `applicationForm ${id}`, value: sent }],
});
const inSurvey = (id: string, value: DeliveredAnswer['value'], sent: unknown = value): DeliveredAnswer => ({
  id,
  value,
  fields: [{ name: `survey ${id}`, value: sent }],
});
const error = (code: string, message: string) => ({ status: 200, body: { success: false, errors: [code], errorInfo: { code, message } } });

export const ashbyApiCase = apiCase(
  'ashby',
  startAshbyApiDouble,
  () => ({
    url: `https://jobs.ashbyhq.com/acme/${ashbyDoublePostings.everyKind}`,
    // Every question of the posting answered: each field type applicationForm.submit documents, and both surveys.
    delivered: (email) => [
      inForm('_systemfield_name', 'Ada Lovelace'),
      inForm('_systemfield_email', email),
      inForm('_systemfield_phone', '+44 20 7946 0001'),
      inForm('_systemfield_location', 'London, England, United Kingdom', { city: 'London', region: 'England', country: 'United Kingdom' }),
      {
        id: '_systemfield_resume',
        value: cv,
        fields: [
          { name: 'applicationForm _systemfield_resume', value: '_systemfield_resume' },
          { name: '_systemfield_resume', value: { bytes: cv.bytes } },
        ],
      },
      inForm(field('a1'), 'https://www.linkedin.com/in/ada'),
      inForm(field('b1'), true),
      inForm(field('b2'), '2027-01-04T00:00:00.000Z', '2027-01-04'),
      inForm(field('b3'), '7', 7),
      inForm(field('b4'), 'The engines.\nAnd the notes.'),
      inForm(field('b5'), 'Remote (UK)', 'remote-uk'),
      inForm(field('b6'), ['English', 'Spanish'], ['en', 'es']),
      inForm(field('b7'), 'The Analytical Engine notes.', { type: 'PlainText', value: 'The Analytical Engine notes.' }),
      inForm(field('b8'), '4', { score: 4 }),
      {
        id: field('b9'),
        value: sample,
        fields: [
          { name: `applicationForm ${field('b9')}`, value: field('b9') },
          { name: field('b9'), value: { bytes: sample.bytes } },
        ],
      },
      inForm(
        education,
        [
          [
            { id: `${education}.schoolName`, value: 'University of London' },
            { id: `${education}.degree`, value: 'BSc' },
            { id: `${education}.major`, value: 'Mathematics' },
            { id: `${education}.startDate`, value: '1830-09-01' },
            { id: `${education}.endDate`, value: '1833-06-30' },
          ],
        ],
        [{ schoolName: 'University of London', degree: 'BSc', major: 'Mathematics', startDate: '1830-09-01', endDate: '1833-06-30' }],
      ),
      inForm(field('ba'), 'A friend'),
      inSurvey('_systemfield_eeoc_gender', 'Female'),
      inSurvey('_systemfield_eeoc_race', 'Two or more races'),
      inSurvey('_systemfield_eeoc_veteran_status', 'I am not a protected veteran', 'not-veteran'),
      inSurvey('_systemfield_eeoc_disability_status', 'I do not want to answer', 'decline'),
      inSurvey('_systemfield_data_consent_ack', true),
    ],
    fixed: () => [
      { name: 'jobPostingId', value: ashbyDoublePostings.everyKind },
      { name: 'allowSubmissionForUnpublishedJobPosting', value: 'false' },
    ],
    // Ashby's failures are HTTP 200 `success: false` with an `errorInfo.code` (developers.ashbyhq.com/docs/responses).
    refusals: [
      [[error('job_posting_not_published', 'The job posting is not published')], 'JobExpired'],
      [[error('job_posting_not_found', 'Job posting not found')], 'JobNotFound'],
      [[error('invalid_input', 'Missing required field: Preferred office')], 'MandatoryQuestionsNotAnswered'],
      [[error('invalid_input', 'Resume: file type not supported')], 'FileTypeNotSupported'],
      [[error('invalid_input', 'Email: email is not a valid email address')], 'ApplicantDetailsInvalid'],
      [
        [
          {
            status: 200,
            body: {
              success: true,
              results: {
                submittedFormInstance: { id: 'blocked-instance' },
                formMessages: {
                  blocked: true,
                  blockMessageForCandidateHtml: '<p>One application per candidate for this role in any 60 day span.</p>',
                },
              },
            },
          },
        ],
        'AlreadyApplied',
      ],
      [
        [{ status: 401, body: { success: false, errorInfo: { code: 'invalid_api_key', message: 'The API key is not valid' } } }],
        'ApiKeyRejected',
      ],
      [[error('rate_limit_exceeded', 'Too many requests')], 'ApplicationFailed'],
    ],
  }),
  { received: ashbyFields },
);
