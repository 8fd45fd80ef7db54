import { candidate } from '@quarry/testing/hosted-form-apply';
import type { Question } from '@quarry/contracts';
import { breezyDoublePositions, startBreezyApiDouble } from '@quarry/testing';
import { apiCase, cv, type DeliveredAnswer } from './api-case.ts';

/**
 * The apply page's boxes and the candidate field each must arrive as (developer.breezy.hr candidate
 * body; the résumé as the multipart `file` of the second request), with the candidate's answer.
 */
const boxes = (email: string): Record<string, [field: string, value: unknown]> => ({
  cResume: ['file', cv],
  cName: ['name', 'Ada Lovelace'],
  cEmail: ['email_address', email],
  cPhoneNumber: ['phone_number', candidate.phone],
  cAddress: ['address', '12 St James’s Square, London'],
  cSummary: ['summary', 'Analyst.\nProgrammer.'],
  cCoverLetter: ['cover_letter', 'Dear Acme,\nI write programs.'],
});

export const breezyApiCase = apiCase('breezy', startBreezyApiDouble, () => ({
  url: `https://acme.breezy.hr/p/${breezyDoublePositions.carried}`,
  // The candidate (JSON), then its résumé (multipart): two writes, both after the intent.
  delivered: (email: string, questions: Question[]): DeliveredAnswer[] =>
    questions.map((question): DeliveredAnswer => {
      const box = boxes(email)[question.id];
      if (!box) return { id: question.id, value: 'an answer with no documented field', fields: [] };
      const [field, value] = box;
      return {
        id: question.id,
        value: value as DeliveredAnswer['value'],
        fields: [{ name: field, value: field === 'file' ? { bytes: cv.bytes } : value }],
      };
    }),
  refusals: [
    [[{ status: 400, body: { error: { type: 'missingAccessToken', message: 'access token is null or empty' } } }], 'ApiKeyRejected'],
    [[{ status: 401, body: { error: { type: 'invalidAccessToken', message: 'access token is invalid' } } }], 'ApiKeyRejected'],
    [
      [{ status: 400, body: { error: { type: 'invalidCandidate', message: 'email_address is required' } } }],
      'MandatoryQuestionsNotAnswered',
    ],
    [[{ status: 400, body: { error: { type: 'positionNotPublished', message: 'position is not published' } } }], 'JobExpired'],
    [
      [
        { status: 200, body: { _id: 'c00000000099' } },
        { status: 400, body: { error: { type: 'invalidFile', message: 'Unsupported file type' } } },
      ],
      'FileFailedToUpload',
    ],
  ],
}));
