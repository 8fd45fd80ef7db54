import { candidate } from '@quarry/applier/hosted-cases';
import { jazzDoubleJobs, startJazzApiDouble } from '@quarry/testing';
import { apiCase, cv } from './api-case.ts';

export const jazzApiCase = apiCase('jazzhr', startJazzApiDouble, () => {
  const url = `https://acme.applytojob.com/apply/${jazzDoubleJobs.tenantB}/Example-Job`;
  return {
    url,
    carried: (id) => !id.startsWith('resumator-questionnaire') && !id.startsWith('resumator-eeo'),
    // The page's `resumator-<box>-value` boxes arrive as JazzHR's attributes.
    unchanged: (email) =>
      (
        [
          ['firstname', 'first_name', 'Ada'],
          ['lastname', 'last_name', 'Lovelace'],
          ['email', 'email', email],
          ['phone', 'phone', candidate.phone],
          ['address', 'address', '12 St James’s Square'],
          ['city', 'city', 'London'],
          ['state', 'state', 'Greater London'],
          ['postal', 'postal', 'SW1Y 4JH'],
        ] as const
      ).map(([box, name, value]) => [`resumator-${box}-value`, name, value]),
    answers: () => [{ id: 'resumator-resume-value', value: cv }],
    fields: () => [
      { name: 'apikey', value: 'bench-jazzhr-key' },
      { name: 'job', value: 'job_20261101090000_TENANTB' },
      { name: 'base64-resume', value: cv.bytes.toString('base64') },
    ],
    refusals: [
      [[{ status: 400, body: { error: 'email is required' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'base64-resume: invalid file format' } }], 'FileTypeNotSupported'],
      [[{ status: 409, body: { error: 'Applicant already exists for this job' } }], 'AlreadyApplied'],
    ],
  };
});
