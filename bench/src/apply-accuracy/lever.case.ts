import { candidate } from '@quarry/applier/hosted-cases';
import { leverDoublePosting, startLeverApiDouble } from '@quarry/testing';
import { apiCase, cv, underOwnName } from './api-case.ts';

export const leverApiCase = apiCase('lever', startLeverApiDouble, () => {
  const url = `https://jobs.lever.co/acme/${leverDoublePosting}`;
  return {
    url,
    minedAt: `${url}/apply`,
    unchanged: (email) =>
      underOwnName([
        ['name', 'Ada Lovelace'],
        ['email', email],
        ['phone', candidate.phone],
        ['org', 'Analytical Engines Ltd'],
        ['urls[GitHub]', 'https://github.com/ada'],
      ]),
    answers: () => [{ id: 'resume', value: cv }],
    fields: () => [{ name: 'resume', value: { bytes: cv.bytes } }],
    refusals: [
      [[{ status: 404, body: { ok: false, error: 'Posting not found' } }], 'JobExpired'],
      [[{ status: 400, body: { ok: false, error: 'Invalid resume file: unsupported file type' } }], 'FileTypeNotSupported'],
      [[{ status: 400, body: { ok: false, error: 'Missing required field: email' } }], 'MandatoryQuestionsNotAnswered'],
    ],
  };
});
