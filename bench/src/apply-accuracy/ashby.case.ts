import { candidate } from '@quarry/applier/hosted-cases';
import { ashbyDoublePostings, startAshbyApiDouble } from '@quarry/testing';
import { apiCase, cv, listedFields, requestFields } from './api-case.ts';

/** Ashby's answers travel as `applicationForm`, a JSON part of field submissions by path; files as parts of their own. */
const ashbyFields = listedFields(
  'applicationForm',
  (sent) => {
    const form = requestFields(sent, 'applicationForm');
    return typeof form === 'string' ? (JSON.parse(form) as { fieldSubmissions?: unknown }).fieldSubmissions : undefined;
  },
  (entry) => entry['path'],
  (entry) => entry['value'],
);

export const ashbyApiCase = apiCase(
  'ashby',
  startAshbyApiDouble,
  () => {
    const url = `https://jobs.ashbyhq.com/acme/${ashbyDoublePostings.everyKind}`;
    const field = (suffix: string) => `0a1b2c3d-0000-4000-8000-0000000000${suffix}`;
    return {
      url,
      answers: (email) => [
        { id: '_systemfield_name', value: 'Ada Lovelace' },
        { id: '_systemfield_email', value: email },
        { id: '_systemfield_resume', value: cv },
        { id: field('b1'), value: true },
        { id: field('b2'), value: '2027-01-04T00:00:00.000Z' },
        { id: field('b3'), value: '7' },
        { id: field('b4'), value: 'The engines.\nAnd the notes.' },
        { id: field('b5'), value: 'Remote (UK)' },
        { id: field('b6'), value: ['English', 'Spanish'] },
      ],
      fields: (email) => [
        { name: 'jobPostingId', value: ashbyDoublePostings.everyKind },
        { name: 'allowSubmissionForUnpublishedJobPosting', value: 'false' },
        { name: 'applicationForm _systemfield_name', value: 'Ada Lovelace' },
        { name: 'applicationForm _systemfield_email', value: email },
        { name: 'applicationForm _systemfield_phone', value: candidate.phone },
        // A file's value names the part that carries its bytes.
        { name: 'applicationForm _systemfield_resume', value: '_systemfield_resume' },
        { name: `applicationForm ${field('b1')}`, value: true },
        { name: `applicationForm ${field('b2')}`, value: '2027-01-04' },
        { name: `applicationForm ${field('b3')}`, value: 7 },
        { name: `applicationForm ${field('b4')}`, value: 'The engines.\nAnd the notes.' },
        { name: `applicationForm ${field('b5')}`, value: 'remote-uk' },
        { name: `applicationForm ${field('b6')}`, value: ['en', 'es'] },
        { name: '_systemfield_resume', value: { bytes: cv.bytes } },
      ],
      refusals: [
        [[{ status: 200, body: { success: false, errors: ['Job posting is not published or does not exist'] } }], 'JobExpired'],
        [[{ status: 200, body: { success: false, errors: ['Missing required field: Preferred office'] } }], 'MandatoryQuestionsNotAnswered'],
        [[{ status: 200, body: { success: false, errors: ['invalid_input: _systemfield_resume: file type not supported'] } }], 'FileTypeNotSupported'],
        [[{ status: 429, body: { success: false, errors: ['rate_limit_exceeded'] } }], 'ApplicationFailed'],
      ],
    };
  },
  { received: ashbyFields },
);
