import type { ResolvedAnswer } from '@quarry/applier';
import { candidate } from '@quarry/applier/hosted-cases';
import { startWorkableApiDouble, workableDoubleJobs } from '@quarry/testing';
import { apiCase, cv, listedFields, requestFields } from './api-case.ts';

/** Workable's employer questions travel as `candidate.answers`, each entry keyed by `question_key`. */
const workableFields = listedFields(
  'candidate.answers',
  (sent) => requestFields(sent, 'candidate.answers'),
  (entry) => entry['question_key'],
  (entry) => entry,
);

export const workableApiCase = apiCase('workable', startWorkableApiDouble, () => {
  const url = `https://apply.workable.com/acme/j/${workableDoubleJobs.tenantA}/`;
  const text = (id: string) => `Answer to ${id}\non two lines`;
  const employerAnswer = (key: string, answer: Record<string, unknown>) => ({ name: `candidate.answers ${key}`, value: { question_key: key, ...answer } });
  return {
    url,
    // An answer to every mined question, by its kind (a choice by its label, as clients answer); the run places the candidate's details on the questions they answer.
    answers: (email, questions) => {
      const details: Record<string, string> = { firstname: candidate.firstName, lastname: candidate.lastName, email, phone: candidate.phone };
      return questions.map((question): ResolvedAnswer => {
        if (details[question.id]) return { id: question.id, value: details[question.id] };
        const labels = (question.options ?? []).flatMap((option) => ('answer' in option ? [option.answer] : []));
        if (question.inputType === 'Boolean') return { id: question.id, value: question.id.endsWith('05') };
        if (question.inputType === 'SelectOne') return { id: question.id, value: labels[1] };
        if (question.inputType === 'SelectMultiple') return { id: question.id, value: labels.slice(0, 2) };
        if (question.inputType === 'File') return { id: question.id, value: cv };
        if (question.id === 'education') return { id: 'education', value: [[{ id: 'education.school', value: 'University of London' }, { id: 'education.start_date', value: '1832-09-01T00:00:00.000Z' }, { id: 'education.end_date', value: '1835-06-30' }]] };
        if (question.id === 'experience') return { id: 'experience', value: [[{ id: 'experience.title', value: 'Analyst' }, { id: 'experience.current', value: true }, { id: 'experience.start_date', value: '1842-01-01' }]] };
        return { id: question.id, value: text(question.id) };
      });
    },
    fields: (email) => [
      { name: 'sourced', value: false },
      { name: 'candidate.firstname', value: 'Ada' },
      { name: 'candidate.lastname', value: 'Lovelace' },
      { name: 'candidate.email', value: email },
      { name: 'candidate.phone', value: candidate.phone },
      ...['headline', 'address', 'cover_letter', 'summary'].map((name) => ({ name: `candidate.${name}`, value: text(name) })),
      { name: 'candidate.resume.name', value: cv.filename },
      { name: 'candidate.resume.data', value: cv.bytes.toString('base64') },
      { name: 'candidate.education_entries', value: [{ school: 'University of London', start_date: '1832-09-01', end_date: '1835-06-30' }] },
      { name: 'candidate.experience_entries', value: [{ title: 'Analyst', current: true, start_date: '1842-01-01' }] },
      // Each employer question of the captured form (its option ids as the form lists them): yes/no checked, a choice by its id, text as the body.
      ...['03', '04', '05', '06', '07', '15', '16', '17', '18', '19'].map((suffix) => employerAnswer(`QA_95308${suffix}`, { checked: suffix === '05' })),
      employerAnswer('QA_9530809', { choices: ['5094527'] }),
      employerAnswer('QA_9530811', { choices: ['5094541'] }),
      employerAnswer('QA_9831316', { choices: ['5249623', '5249624'] }),
      employerAnswer('QA_9530820', { choices: ['5094557', '5094558'] }),
      employerAnswer('QA_9831317', { body: text('QA_9831317') }),
      employerAnswer('QA_11529563', { body: text('QA_11529563') }),
    ],
    refusals: [
      [[{ status: 422, body: { error: "Validation failed: QA_9530805 can't be blank" } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 422, body: { error: 'Validation failed: resume file type is not supported' } }], 'FileTypeNotSupported'],
      [[{ status: 404, body: { error: 'Not found' } }], 'JobExpired'],
      [[{ status: 422, body: { error: 'Validation failed: candidate already exists for this job' } }], 'AlreadyApplied'],
      [[{ status: 429, body: { error: 'Too many requests' } }], 'ApplicationFailed'],
    ],
  };
}, { received: workableFields });
