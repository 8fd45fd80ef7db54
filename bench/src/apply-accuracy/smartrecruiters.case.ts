import { candidate } from '@quarry/applier/hosted-cases';
import { smartRecruitersDoublePostings, startSmartRecruitersApiDouble } from '@quarry/testing';
import { apiCase, cv, underOwnName } from './api-case.ts';

export const smartRecruitersApiCase = apiCase('smartrecruiters', startSmartRecruitersApiDouble, () => {
  const url = `https://jobs.smartrecruiters.com/acme/${smartRecruitersDoublePostings.captured}-example-job`;
  return {
    url,
    unchanged: (email) =>
      underOwnName([
        ['firstName', 'Ada'],
        ['lastName', 'Lovelace'],
        ['email', email],
        ['phoneNumber', candidate.phone],
        ['messageToHiringManager', 'Dear team,\nI write programs.'],
      ]),
    answers: (email) => [
      { id: 'confirmEmail', value: email },
      { id: 'placeOfResidence', value: 'London' },
      { id: 'education', value: [[{ id: 'education.institution', value: 'University of London' }, { id: 'education.startDate', value: '1832-09-01T00:00:00.000Z' }, { id: 'education.endDate', value: '1835-06-30' }]] },
      { id: 'socialProfiles.linkedIn', value: 'https://linkedin.example/in/ada' },
      { id: 'socialProfiles.website', value: 'https://ada.example' },
      { id: 'resume', value: cv },
    ],
    fields: () => [
      { name: 'location', value: { city: 'London' } },
      { name: 'education', value: [{ institution: 'University of London', startDate: '1832-09-01', endDate: '1835-06-30' }] },
      { name: 'web', value: { linkedin: 'https://linkedin.example/in/ada', website: 'https://ada.example' } },
      { name: 'resume.fileName', value: cv.filename },
      { name: 'resume.mimeType', value: cv.contentType },
      { name: 'resume.fileContent', value: cv.bytes.toString('base64') },
    ],
    refusals: [
      [[{ status: 400, body: { message: 'Validation failed', errors: [{ code: 'INVALID_FILE', message: 'resume: file type not supported' }] } }], 'FileTypeNotSupported'],
      [[{ status: 404, body: { message: 'Posting not found or no longer active' } }], 'JobExpired'],
      [[{ status: 409, body: { message: 'Candidate already applied to this posting' } }], 'AlreadyApplied'],
    ],
  };
});
