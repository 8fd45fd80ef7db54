import { leverDoublePostings, startLeverApiDouble } from '@quarry/testing';
import { apiCase, cv, type DeliveredAnswer } from './api-case.ts';

/**
 * Lever's Postings API: the standard posting, whose every row has a README field (the custom
 * posting's cards, surveys and EEO go to the hosted form, tested in the transport's tests). Each
 * answer arrives under the README's multipart name; yes/no consents as "true"/"false".
 */
export const leverApiCase = apiCase('lever', startLeverApiDouble, () => {
  const url = `https://jobs.lever.co/acme/${leverDoublePostings.standard}`;
  const asSent = (id: string, value: DeliveredAnswer['value']): DeliveredAnswer => ({
    id,
    value,
    fields: [{ name: id, value: typeof value === 'boolean' ? String(value) : value }],
  });
  return {
    url,
    minedAt: `${url}/apply`,
    delivered: (email) => [
      { id: 'resume', value: cv, fields: [{ name: 'resume', value: { bytes: cv.bytes } }] },
      asSent('name', 'Ada Lovelace'),
      asSent('email', email),
      asSent('phone', '+44 20 7946 0001'),
      asSent('org', 'Analytical Engines Ltd'),
      asSent('urls[LinkedIn]', 'https://www.linkedin.com/in/ada'),
      asSent('urls[GitHub]', 'https://github.com/ada'),
      asSent('urls[Twitter]', 'https://twitter.com/ada'),
      asSent('urls[Portfolio]', 'https://ada.example.com'),
      asSent('urls[Other]', 'https://notes.example.com/ada'),
      asSent('comments', 'Note G.\nThe engine weaves algebraic patterns.'),
      asSent('consent[store]', true),
      asSent('consent[marketing]', false),
    ],
    // Lever's errors carry no code, only `{ok: false, error}` with an HTTP status (postings-api README).
    refusals: [
      [[{ status: 404, body: { ok: false, error: 'Posting not found' } }], 'JobExpired'],
      [
        [{ status: 400, body: { ok: false, error: 'Invalid resume: resume must be uploaded as a file in multipart/form-data' } }],
        'FileTypeNotSupported',
      ],
      [[{ status: 400, body: { ok: false, error: 'Missing required field: phone' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { ok: false, error: 'Invalid email address: requires an "@" symbol' } }], 'ApplicantDetailsInvalid'],
      [[{ status: 401, body: { ok: false, error: 'Invalid API key' } }], 'ApiKeyRejected'],
      [[{ status: 429, body: { ok: false, error: 'Too many requests' } }], 'ApplicationFailed'],
    ],
  };
});
