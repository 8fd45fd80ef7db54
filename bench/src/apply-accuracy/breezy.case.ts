import { candidate } from '@quarry/applier/hosted-cases';
import { breezyDoublePositions, startBreezyApiDouble } from '@quarry/testing';
import { apiCase, cv } from './api-case.ts';

export const breezyApiCase = apiCase('breezy', startBreezyApiDouble, () => {
  const url = `https://acme.breezy.hr/p/${breezyDoublePositions.captured}`;
  const standard = new Set(['cResume', 'cName', 'cEmail', 'cPhoneNumber', 'cAddress', 'cSummary', 'cCoverLetter']);
  return {
    url,
    carried: (id) => standard.has(id),
    // The candidate (JSON), then its résumé (multipart): two writes, both after the intent.
    unchanged: (email) => [
      ['cName', 'name', 'Ada Lovelace'],
      ['cEmail', 'email_address', email],
      ['cPhoneNumber', 'phone_number', candidate.phone],
      ['cAddress', 'address', '12 St James’s Square, London'],
      ['cSummary', 'summary', 'Analyst.\nProgrammer.'],
      ['cCoverLetter', 'cover_letter', 'Dear Acme,\nI write programs.'],
    ],
    answers: () => [{ id: 'cResume', value: cv }],
    fields: () => [{ name: 'file', value: { bytes: cv.bytes } }],
    refusals: [
      [[{ status: 400, body: { error: 'Position is closed' } }], 'JobExpired'],
      [[{ status: 400, body: { error: 'email_address is required' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 409, body: { error: 'Candidate already exists in this position' } }], 'AlreadyApplied'],
      [[{ status: 201, body: { _id: 'breezy-candidate-scripted' } }, { status: 415, body: { error: 'Unsupported file type' } }], 'FileFailedToUpload'],
    ],
  };
});
