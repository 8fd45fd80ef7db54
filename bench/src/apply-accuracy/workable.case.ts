import { candidate } from '@quarry/testing/hosted-form-apply';
import { startWorkableApiDouble, workableDoubleJobs } from '@quarry/testing';
import { apiCase, cv, listedFields, requestFields, type DeliveredAnswer } from './api-case.ts';

/** Workable's employer questions travel as `candidate.answers`, each entry keyed by `question_key`. */
const workableFields = listedFields(
  'candidate.answers',
  (sent) => requestFields(sent, 'candidate.answers'),
  (entry) => entry['question_key'],
  (entry) => entry,
);

const permit = { ...cv, filename: 'Work permit.pdf' };

/**
 * The job with every form field and question type Workable documents: each answer with the
 * attribute it must arrive as (job-candidates-create; the application form's question ids and
 * choice ids; answers by type as a public client types them: body, checked, choices, value, date,
 * file {name, data}).
 */
export const workableApiCase = apiCase(
  'workable',
  startWorkableApiDouble,
  () => {
    const question = (key: string, value: DeliveredAnswer['value'], answer: Record<string, unknown>): DeliveredAnswer => ({
      id: key,
      value,
      fields: [{ name: `candidate.answers ${key}`, value: { question_key: key, ...answer } }],
    });
    const own = (id: string, value: DeliveredAnswer['value'], attribute = `candidate.${id}`, sent: unknown = value): DeliveredAnswer => ({
      id,
      value,
      fields: [{ name: attribute, value: sent }],
    });
    return {
      url: `https://apply.workable.com/acme/j/${workableDoubleJobs.everyKind}/`,
      delivered: (email) => [
        own('firstname', candidate.firstName),
        own('lastname', candidate.lastName),
        own('email', email),
        own('headline', 'Analyst of engines'),
        own('phone', candidate.phone),
        own('address', 'London, United Kingdom'),
        own(
          'education',
          [
            [
              { id: 'education.school', value: 'University of London' },
              { id: 'education.start_date', value: '1832-09-01T00:00:00.000Z' },
              { id: 'education.end_date', value: '1835-06-30' },
            ],
          ],
          'candidate.education_entries',
          [{ school: 'University of London', start_date: '1832-09-01', end_date: '1835-06-30' }],
        ),
        own(
          'experience',
          [
            [
              { id: 'experience.title', value: 'Analyst' },
              { id: 'experience.current', value: true },
              { id: 'experience.start_date', value: '1842-01-01' },
            ],
          ],
          'candidate.experience_entries',
          [{ title: 'Analyst', current: true, start_date: '1842-01-01' }],
        ),
        own('summary', 'I wrote the first program.\nFor an engine.'),
        {
          id: 'resume',
          value: cv,
          fields: [
            { name: 'candidate.resume.name', value: cv.filename },
            { name: 'candidate.resume.data', value: cv.bytes.toString('base64') },
          ],
        },
        own('cover_letter', 'Dear Acme,\nI write programs.'),
        question('QA_9530805', true, { checked: true }),
        question('QA_9530809', 'Female', { choices: ['5094526'] }),
        question('QA_9831316', ['English', 'French'], { choices: ['5249620', '5249622'] }),
        question('QA_9530830', 'Over 5 years', { choices: ['5094563'] }),
        question('QA_9831317', 'Italian', { body: 'Italian' }),
        question('QA_9530840', 'A weaver\nwith a loom.', { body: 'A weaver\nwith a loom.' }),
        question('QA_9530850', '45', { value: 45 }),
        question('QA_9530860', '2027-01-04T00:00:00.000Z', { date: '2027-01-04' }),
        question('QA_9530870', permit, { file: { name: permit.filename, data: permit.bytes.toString('base64') } }),
      ],
      fixed: () => [{ name: 'sourced', value: false }],
      // Workable's error body is not documented (`{error}` here); 404 for a job no longer open; 429 past the documented rate limit.
      refusals: [
        [[{ status: 422, body: { error: "Validation failed: answer to QA_9530805 can't be blank" } }], 'MandatoryQuestionsNotAnswered'],
        [[{ status: 422, body: { error: 'Validation failed: resume file type is not supported' } }], 'FileTypeNotSupported'],
        [[{ status: 422, body: { error: 'Validation failed: email is invalid' } }], 'ApplicantDetailsInvalid'],
        [[{ status: 404, body: { error: 'Not found' } }], 'JobExpired'],
        [
          [
            {
              status: 429,
              body: { error: 'Too many requests' },
              headers: { 'x-rate-limit-limit': '10', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': '1795000000' },
            },
          ],
          'ApplicationFailed',
        ],
      ],
    };
  },
  { received: workableFields },
);
