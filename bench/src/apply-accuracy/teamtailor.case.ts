import { candidate } from '@quarry/applier/hosted-cases';
import { startTeamtailorApiDouble, teamtailorDoubleJobs } from '@quarry/testing';
import { apiCase } from './api-case.ts';

export const teamtailorApiCase = apiCase('teamtailor', startTeamtailorApiDouble, () => {
  const url = `https://acme.teamtailor.com/${teamtailorDoubleJobs.captured}`;
  const coverLetter = 'candidate[job_applications_attributes][0][cover_letter]';
  const contact = new Set(['candidate[first_name]', 'candidate[last_name]', 'candidate[email]', 'candidate[phone]', coverLetter]);
  return {
    url,
    carried: (id) => contact.has(id),
    // The candidate, then the job application linking it to the job: two writes, both after the intent.
    unchanged: (email) => [
      ['candidate[first_name]', 'data.attributes.first-name', 'Ada'],
      ['candidate[last_name]', 'data.attributes.last-name', 'Lovelace'],
      ['candidate[email]', 'data.attributes.email', email],
      ['candidate[phone]', 'data.attributes.phone', candidate.phone],
      [coverLetter, 'data.attributes.cover-letter', 'Dear Acme,\nI write programs.'],
    ],
    fields: () => [{ name: 'data.relationships.job.data', value: { type: 'jobs', id: '4959352' } }],
    refusals: [[[{ status: 422, body: { errors: [{ detail: "email can't be blank" }] } }], 'MandatoryQuestionsNotAnswered']],
  };
});
