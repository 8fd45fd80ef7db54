import { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from '@quarry/testing';
import { apiCase, cv, listedFields } from './api-case.ts';

const question = (n: number) => `0b6f2d8e-1a4c-4e3b-9f10-2c5d7e8a9b0${n}`;
const field = (n: number) => `a8e1c2d3-000${n}-4a00-8000-00000000000${n}`;
const errors = (code: string, message: string) => ({ errors: [{ id: 'e1', code, message }] });

/**
 * SmartRecruiters' Application API through the router: an answer to every question the page shows
 * (experience and education entries included) and to every screening question of the posting's
 * configuration (each field type, a repeatable complex one, a diversity one), and the consent;
 * each with the attribute the Application API documents for it
 * (https://developers.smartrecruiters.com/docs/post-an-application, the SDK's ApplyApiRequest).
 */
export const smartRecruitersApiCase = apiCase(
  'smartrecruiters',
  startSmartRecruitersApiDouble,
  () => {
    const url = `https://jobs.smartrecruiters.com/acme/${smartRecruitersDoublePostings.captured}-data-analyst`;
    const screening = (n: number, value: unknown, sent: string[]) => ({
      id: `screening.${question(n)}`,
      value,
      fields: [{ name: `answers ${question(n)}`, value: [{ fields: { [field(n)]: sent } }] }],
    });
    return {
      url,
      delivered: (email) => [
        { id: 'firstName', value: 'Ada', fields: [{ name: 'firstName', value: 'Ada' }] },
        { id: 'lastName', value: 'Lovelace', fields: [{ name: 'lastName', value: 'Lovelace' }] },
        { id: 'email', value: email, fields: [{ name: 'email', value: email }] },
        // The page asks for the address twice; the request has one.
        { id: 'confirmEmail', value: email, fields: [{ name: 'email', value: email }] },
        { id: 'placeOfResidence', value: 'London', fields: [{ name: 'location.city', value: 'London' }] },
        { id: 'phoneNumber', value: '+44 20 7946 0009', fields: [{ name: 'phoneNumber', value: '+44 20 7946 0009' }] },
        {
          id: 'experience',
          value: [
            [
              { id: 'experience.title', value: 'Analyst' },
              { id: 'experience.company', value: 'Analytical Engine Co' },
              { id: 'experience.current', value: false },
              { id: 'experience.startDate', value: '1843-01-01T00:00:00.000Z' },
              { id: 'experience.endDate', value: '1844-12-31' },
              { id: 'experience.location', value: 'London' },
              { id: 'experience.description', value: 'Notes on the engine' },
            ],
          ],
          fields: [
            {
              name: 'experience',
              value: [
                {
                  title: 'Analyst',
                  company: 'Analytical Engine Co',
                  current: false,
                  startDate: '1843-01-01',
                  endDate: '1844-12-31',
                  location: 'London',
                  description: 'Notes on the engine',
                },
              ],
            },
          ],
        },
        {
          id: 'education',
          value: [
            [
              { id: 'education.institution', value: 'University of London' },
              { id: 'education.degree', value: 'Private tuition' },
              { id: 'education.major', value: 'Mathematics' },
              { id: 'education.startDate', value: '1832-09-01T00:00:00.000Z' },
              { id: 'education.endDate', value: '1835-06-30' },
              { id: 'education.description', value: 'With Augustus De Morgan' },
            ],
          ],
          fields: [
            {
              name: 'education',
              value: [
                {
                  institution: 'University of London',
                  degree: 'Private tuition',
                  major: 'Mathematics',
                  startDate: '1832-09-01',
                  endDate: '1835-06-30',
                  description: 'With Augustus De Morgan',
                },
              ],
            },
          ],
        },
        {
          id: 'socialProfiles.linkedIn',
          value: 'https://linkedin.example/in/ada',
          fields: [{ name: 'web.linkedIn', value: 'https://linkedin.example/in/ada' }],
        },
        { id: 'socialProfiles.website', value: 'https://ada.example', fields: [{ name: 'web.website', value: 'https://ada.example' }] },
        {
          id: 'socialProfiles.facebook',
          value: 'https://facebook.example/ada',
          fields: [{ name: 'web.facebook', value: 'https://facebook.example/ada' }],
        },
        { id: 'socialProfiles.x', value: 'https://x.example/ada', fields: [{ name: 'web.twitter', value: 'https://x.example/ada' }] },
        {
          id: 'resume',
          value: cv,
          fields: [
            { name: 'resume.fileName', value: cv.filename },
            { name: 'resume.mimeType', value: cv.contentType },
            { name: 'resume.fileContent', value: cv.bytes.toString('base64') },
          ],
        },
        {
          id: 'messageToHiringManager',
          value: 'Dear team,\nI write programs.',
          fields: [{ name: 'messageToHiringManager', value: 'Dear team,\nI write programs.' }],
        },
        screening(1, 'Yes', ['1']),
        screening(2, 'One month', ['One month']),
        screening(3, 'A weekly sales dashboard\nfor the board.', ['A weekly sales dashboard\nfor the board.']),
        screening(4, 'Remote (UK)', ['rem']),
        screening(5, ['SQL', 'dbt'], ['sql', 'dbt']),
        screening(6, ['Early', 'Weekend'], ['early', 'weekend']),
        {
          id: 'screening.languages',
          value: [
            [
              { id: 'screening.languages.language', value: 'English' },
              { id: 'screening.languages.level', value: 'Native' },
            ],
            [
              { id: 'screening.languages.language', value: 'Polish' },
              { id: 'screening.languages.level', value: 'Basic' },
            ],
          ],
          fields: [
            {
              name: 'answers languages',
              value: [{ fields: { language: ['en'], level: ['native'] } }, { fields: { language: ['pl'], level: ['basic'] } }],
            },
          ],
        },
        {
          id: 'screening.ethnicGroupsDescriptions',
          value: 'Prefer not to say',
          fields: [{ name: 'answers ethnicGroupsDescriptions', value: [{ fields: { ethnicity: ['decline'] } }] }],
        },
        { id: 'consent.SINGLE', value: true, fields: [{ name: 'consentDecisions.SINGLE', value: true }] },
      ],
      // Documented refusals (ApplyApiError codes of the SDK; messages of the Post an Application page).
      refusals: [
        [
          [{ status: 400, body: errors('DATA_VALIDATION_ERROR', `The following screening questions are required: ${question(1)}.`) }],
          'MandatoryQuestionsNotAnswered',
        ],
        [
          [
            {
              status: 400,
              body: errors('DATA_VALIDATION_ERROR', `Values for the following screening questions' answers are incorrect: ${question(4)}.`),
            },
          ],
          'ApplicantDetailsInvalid',
        ],
        [
          [{ status: 400, body: errors('FILE_UPLOAD_ERROR', 'resume: file type application/zip is not supported') }],
          'FileTypeNotSupported',
        ],
        [[{ status: 400, body: errors('FILE_UPLOAD_ERROR', 'resume: the file exceeds 2 MB') }], 'FileFailedToUpload'],
        [[{ status: 404, body: errors('RESOURCE_NOT_FOUND_ERROR', 'Posting not found or not active') }], 'JobExpired'],
        [[{ status: 404, body: errors('COMPANY_NOT_FOUND_ERROR', 'Company acme not found') }], 'JobNotFound'],
        [[{ status: 401, body: errors('INVALID_API_KEY_ERROR', 'Invalid API key') }], 'ApiKeyRejected'],
      ],
    };
  },
  {
    // Screening answers are a list naming their question: `answers <questionId>` is that entry's records.
    received: listedFields(
      'answers',
      (sent) => (sent.find((request) => request.json !== undefined)?.json as { answers?: unknown } | undefined)?.answers,
      (entry) => entry.id,
      (entry) => entry.records,
    ),
  },
);
