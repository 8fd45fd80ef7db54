import type { Applier, ApplicationToSubmit, ResolvedAnswer, SubmitOutcome } from '@quarry/applier';
import { candidate, cvFile, hostedApplyCases, mineQuestions, sameValue, type ApplyCase, type CaseApplication, type ExpectedField } from '@quarry/applier/hosted-cases';
import { createAtsApplier } from '@quarry/ats-apply';
import { createChromiumPool } from '@quarry/miner';
import {
  ashbyDoublePostings,
  bambooDoubleJobs,
  breezyDoublePositions,
  greenhouseDoubleJob,
  jazzDoubleJobs,
  leverDoublePosting,
  smartRecruitersDoublePostings,
  startAshbyApiDouble,
  startBambooApiDouble,
  startBreezyApiDouble,
  startGreenhouseApiDouble,
  startJazzApiDouble,
  startLeverApiDouble,
  startRecruiteeApiDouble,
  startSmartRecruitersApiDouble,
  startTeamtailorApiDouble,
  startWorkableApiDouble,
  teamtailorDoubleJobs,
  workableDoubleJobs,
  type DoubleReply,
  type ReceivedRequest,
  type VendorApiDouble,
} from '@quarry/testing';
import { printTable } from './harness.ts';

/** What an API case sends: the posting, its mined questions, and the answers and expected fields of a candidate with this email. */
type ApiSetup = {
  url: string;
  /** The page the miner reads, when not the posting's URL. */
  minedAt?: string;
  /** The mined questions the API carries whole (the rest of a captured page goes to the hosted form). */
  carried?: (id: string) => boolean;
  /** Answers the vendor receives as they are: [question id, the vendor's field, value]. */
  unchanged?: (email: string) => Array<[id: string, name: string, value: ResolvedAnswer['value']]>;
  /** The other answers, and the fields they arrive as under the vendor's names and encodings. */
  answers?: (email: string, questions: ApplicationToSubmit['questions']) => ResolvedAnswer[];
  fields?: (email: string) => ExpectedField[];
  /** The vendor's refusals, each scripted as the replies to the application's next requests, and the code it must map to. */
  refusals: Array<[DoubleReply[], CaseApplication['expected']]>;
};

/** An expected field's value as one application's requests (in order) carried it. */
type FieldReader = (sent: ReceivedRequest[], name: string) => unknown;

const jsonAt = (json: unknown, path: string): unknown => path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), json);

/** A JSON body's value at a dotted path (`candidate.resume.data`), or a multipart field (a file as its bytes, a `[]` name as every value): the first request that carries it. */
const requestFields: FieldReader = (sent, name) => {
  for (const request of sent) {
    const parts = request.parts.filter(([key]) => key === name).map(([, value]) => (typeof value === 'string' ? value : { bytes: value.bytes }));
    const value = request.json === undefined ? (parts.length === 0 ? undefined : name.endsWith('[]') ? parts : parts[0]) : jsonAt(request.json, name);
    if (value !== undefined) return value;
  }
  return undefined;
};

/**
 * A reader of answers a vendor sends as a list of entries each naming its question: the field
 * `<prefix> <question>` is that entry's value; any other name is read as `requestFields` does.
 */
const listedFields =
  (prefix: string, list: (sent: ReceivedRequest[]) => unknown, keyOf: (entry: Record<string, unknown>) => unknown, valueOf: (entry: Record<string, unknown>) => unknown): FieldReader =>
  (sent, name) => {
    if (!name.startsWith(`${prefix} `)) return requestFields(sent, name);
    const entries = list(sent);
    const entry = Array.isArray(entries) ? (entries as Array<Record<string, unknown>>).find((candidateEntry) => keyOf(candidateEntry) === name.slice(prefix.length + 1)) : undefined;
    return entry === undefined ? undefined : valueOf(entry);
  };

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

/** Workable's employer questions travel as `candidate.answers`, each entry keyed by `question_key`. */
const workableFields = listedFields(
  'candidate.answers',
  (sent) => requestFields(sent, 'candidate.answers'),
  (entry) => entry['question_key'],
  (entry) => entry,
);

/**
 * The API transports' cases: the application through the router with the employer's key (none for
 * a keyless vendor), against the API doubles (the same fixture definitions); the vendor's
 * documented refusals scripted as its next replies. Each application comes from another candidate,
 * as some vendors (Ashby, Teamtailor) refuse a second application of an email to a job. A
 * transport that handed the application to the hosted form instead fails the row.
 */
function apiCase(
  ats: string,
  startDouble: (options: { key: string }) => Promise<VendorApiDouble>,
  setup: () => ApiSetup,
  { keyless = false, received = requestFields }: { keyless?: boolean; received?: FieldReader } = {},
): ApplyCase {
  const key = `bench-${ats}-key`;
  return {
    ats,
    transport: 'authorizedApi',
    start: async () => {
      const doubles = await startDouble({ key });
      const { url, minedAt = url, carried = () => true, unchanged = () => [], answers: otherAnswers = () => [], fields: otherFields = () => [], refusals } = setup();
      const questions = (await mineQuestions(minedAt, doubles.endpoints)).filter((question) => carried(question.id));
      const answers = (email: string): ResolvedAnswer[] => [...unchanged(email).map(([id, , value]) => ({ id, value })), ...otherAnswers(email, questions)];
      const fields = (email: string): ExpectedField[] => [...unchanged(email).map(([, name, value]) => ({ name, value })), ...otherFields(email)];
      const notHosted: Applier = async () => ({ status: 'failed', errorCode: 'ApplicationFailed', message: 'handed to the hosted form', submitted: false });
      const applier = createAtsApplier({
        hostedForm: notHosted,
        endpoints: doubles.endpoints,
        timeoutMs: 5_000,
        rateLimit: (_key, work) => work(),
      });
      const sends = [{ expected: 'success' as const, replies: [] as DoubleReply[] }, ...refusals.map(([replies, expected]) => ({ expected, replies }))].map(({ expected, replies }, index): CaseApplication => {
        const email = `${ats}-${index}@example.com`;
        let before = 0;
        let intentAt: number | null = null;
        return {
          variant: replies.length === 0 ? 'accept' : `refusal ${replies.map((reply) => reply.status).join(' then ')}`,
          expected,
          fields: replies.length === 0 ? fields(email) : [],
          received: () => {
            const sent = doubles.submissions().slice(before);
            return new Map(fields(email).map((field) => [field.name, received(sent, field.name)]));
          },
          writes: () => ({ beforeIntent: (intentAt ?? doubles.submissions().length) - before, total: doubles.submissions().length - before }),
          send: async (hooks) => {
            before = doubles.submissions().length;
            intentAt = null;
            doubles.replyNext(...replies);
            const counted = {
              beforeSubmit: async () => {
                intentAt = doubles.submissions().length;
                await hooks.beforeSubmit();
              },
            };
            const application: ApplicationToSubmit = { url, questions, answers: answers(email), candidate: { ...candidate, email }, ...(keyless ? {} : { credential: { ats, board: 'acme', key } }) };
            return applier(application, counted, new AbortController().signal);
          },
        };
      });
      return { applications: sends, close: () => doubles.close() };
    },
  };
}

/** The résumé every API case sends: bytes that must arrive unchanged. */
const cv = cvFile();

/** Answers the vendor receives under the question's own id. */
const underOwnName = (answers: Array<[id: string, value: ResolvedAnswer['value']]>): Array<[string, string, ResolvedAnswer['value']]> => answers.map(([id, value]) => [id, id, value]);

const greenhouseApiCase = apiCase('greenhouse', startGreenhouseApiDouble, () => {
  const url = `https://job-boards.greenhouse.io/acme/jobs/${greenhouseDoubleJob()}`;
  return {
    url,
    unchanged: (email) =>
      underOwnName([
        ['first_name', 'Ada'],
        ['last_name', 'Lovelace'],
        ['email', email],
        ['question_30000001', 'https://www.linkedin.com/in/ada'],
        ['question_30000004', 'Engines.\nAnd analysis.'],
        ['location', 'London'],
      ]),
    answers: () => [
      { id: 'resume', value: cv },
      { id: 'question_30000002', value: 'No' },
      { id: 'question_30000003', value: ['English', 'Spanish'] },
      { id: 'gender', value: 'Female' },
    ],
    // Single selects carry the option's value id, multi-selects the ids of each choice; the candidate's phone is added.
    fields: () => [
      { name: 'phone', value: candidate.phone },
      { name: 'question_30000002', value: '0' },
      { name: 'question_30000003[]', value: ['101', '102'] },
      { name: 'gender', value: '2' },
      { name: 'resume', value: { bytes: cv.bytes } },
    ],
    refusals: [
      [[{ status: 400, body: { error: 'Invalid attachment: resume must be a pdf, doc, docx, txt or rtf file and > 0 bytes' } }], 'FileTypeNotSupported'],
      [[{ status: 400, body: { error: 'This job is not live and published' } }], 'JobExpired'],
      [[{ status: 400, body: { errors: [{ field: 'question_30000002', message: 'is required' }] } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'Candidate has already applied to this job' } }], 'AlreadyApplied'],
    ],
  };
});

const leverApiCase = apiCase('lever', startLeverApiDouble, () => {
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

const recruiteeApiCase = apiCase(
  'recruitee',
  startRecruiteeApiDouble,
  () => {
    const url = 'https://acme.recruitee.com/o/backend-engineer';
    const attribute = (index: number, field: string) => `candidate[open_question_answers_attributes][${index}][${field}]`;
    return {
      url,
      unchanged: (email) => [
        ['candidate.name', 'candidate[name]', 'Ada Lovelace'],
        ['candidate.email', 'candidate[email]', email],
        ['candidate.phone', 'candidate[phone]', candidate.phone],
        ['candidate.cover_letter', 'candidate[cover_letter]', 'Dear Acme,\nI write programs.'],
      ],
      answers: () => [
        { id: 'candidate.cv', value: cv },
        { id: 'open_question_501', value: true },
        { id: 'open_question_502', value: ['Elixir', 'Ruby'] },
        { id: 'open_question_504', value: 'One month' },
      ],
      fields: () => [
        { name: 'candidate[cv]', value: { bytes: cv.bytes } },
        { name: attribute(0, 'open_question_id'), value: '501' },
        { name: attribute(0, 'flag'), value: 'true' },
        { name: attribute(1, 'open_question_id'), value: '502' },
        { name: 'candidate[open_question_answers_attributes][1][multi_content][]', value: ['Elixir', 'Ruby'] },
        { name: attribute(2, 'open_question_id'), value: '504' },
        { name: attribute(2, 'content'), value: 'One month' },
      ],
      refusals: [
        [[{ status: 422, body: { error: ["Phone can't be blank"], error_fields: { phone: ["can't be blank"] } } }], 'MandatoryQuestionsNotAnswered'],
        [[{ status: 422, body: { error: ['Cv has an invalid file type'], error_fields: { cv: ['has an invalid file type'] } } }], 'FileTypeNotSupported'],
        [[{ status: 422, body: { error: ['You have already applied for this job'], error_fields: {} } }], 'AlreadyApplied'],
      ],
    };
  },
  { keyless: true },
);

const ashbyApiCase = apiCase(
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

const workableApiCase = apiCase('workable', startWorkableApiDouble, () => {
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

const smartRecruitersApiCase = apiCase('smartrecruiters', startSmartRecruitersApiDouble, () => {
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

const bambooApiCase = apiCase('bamboohr', startBambooApiDouble, () => {
  const url = `https://acme.bamboohr.com/careers/${bambooDoubleJobs.standardOnly}`;
  const coverLetter = { type: 'File' as const, filename: 'cover.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: Buffer.from([0x50, 0x4b, 3, 4, 0, 13, 10, 255]) };
  return {
    url,
    unchanged: (email) => [
      ...underOwnName([
        ['firstName', 'Ada'],
        ['lastName', 'Lovelace'],
        ['email', email],
        ['city', 'London'],
        ['state', 'NY'],
        ['zip', 'SW1Y 4JH'],
        ['linkedinUrl', 'https://linkedin.example/in/ada'],
        ['websiteUrl', 'https://ada.example'],
      ]),
      ['phone', 'phoneNumber', candidate.phone],
      ['streetAddress', 'address', '12 St James’s Square'],
      ['countryId', 'country', 'Canada'],
    ],
    answers: () => [
      { id: 'dateAvailable', value: '2027-02-01T00:00:00.000Z' },
      { id: 'coverLetterFileId', value: coverLetter },
      { id: 'resumeFileId', value: cv },
    ],
    fields: () => [
      { name: 'dateAvailable', value: '2027-02-01' },
      { name: 'jobId', value: bambooDoubleJobs.standardOnly },
      { name: 'resumeFile', value: { bytes: cv.bytes } },
      { name: 'coverLetterFile', value: { bytes: coverLetter.bytes } },
    ],
    refusals: [
      [[{ status: 400, body: { error: 'Missing required field: zip' } }], 'MandatoryQuestionsNotAnswered'],
      [[{ status: 400, body: { error: 'Job opening is not open' } }], 'JobExpired'],
      [[{ status: 400, body: { error: 'resumeFile: invalid file type' } }], 'FileTypeNotSupported'],
      [[{ status: 409, body: { error: 'Applicant already applied to this job opening' } }], 'AlreadyApplied'],
    ],
  };
});

const jazzApiCase = apiCase('jazzhr', startJazzApiDouble, () => {
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

const breezyApiCase = apiCase('breezy', startBreezyApiDouble, () => {
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

const teamtailorApiCase = apiCase('teamtailor', startTeamtailorApiDouble, () => {
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

/** Every (ATS, transport) the bench measures: register a case to add a row. */
const applyAccuracyCases: ApplyCase[] = [
  ...hostedApplyCases,
  greenhouseApiCase,
  leverApiCase,
  recruiteeApiCase,
  ashbyApiCase,
  workableApiCase,
  smartRecruitersApiCase,
  bambooApiCase,
  jazzApiCase,
  breezyApiCase,
  teamtailorApiCase,
];

type Tally = { sent: number; fields: number; exact: number; outcomes: number; correct: number; earlyWrites: number; misses: string[] };
const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);
const codeOf = (outcome: SubmitOutcome) => (outcome.status === 'failed' ? outcome.errorCode : outcome.status);

/** An application that neither ends nor fails in this time counts as a wrong outcome (and keeps its browser context: the pool has room for a few), so one stuck page cannot stall the table. */
const applicationLimitMs = 60_000;
function withinLimit<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${applicationLimitMs / 1000} s`)), applicationLimitMs);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/**
 * `npm run bench -- apply-accuracy`: sends every case's applications to its vendor double (the
 * hosted form in Chromium, the API transports over HTTP) and scores, per ATS and transport, the
 * answers that arrived exactly (under the vendor's field name, in its encoding, files byte for
 * byte), the outcomes classified as the vendor's answer means, and writes that reached the vendor
 * before the at-most-once intent (must be 0). Target: 100% on the doubles.
 */
export async function benchApplyAccuracy(): Promise<void> {
  const pool = createChromiumPool({ executablePath: process.env['QUARRY_CHROMIUM'] ?? '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 4 });
  const rows: string[][] = [];
  const misses: string[] = [];
  try {
    for (const applyCase of applyAccuracyCases) {
      const tally: Tally = { sent: 0, fields: 0, exact: 0, outcomes: 0, correct: 0, earlyWrites: 0, misses: [] };
      const running = await applyCase.start(pool);
      try {
        for (const application of running.applications) {
          const outcome: SubmitOutcome = await withinLimit(application.send({ beforeSubmit: async () => {} }), `${applyCase.ats} ${application.variant}`).catch((error: unknown) => ({ status: 'unknown', message: String(error) }));
          tally.sent += 1;
          tally.outcomes += 1;
          if (codeOf(outcome) === application.expected) tally.correct += 1;
          else misses.push(`${applyCase.ats}/${applyCase.transport} ${application.variant}: expected ${application.expected}, got ${codeOf(outcome)} (${outcome.status === 'success' ? '' : outcome.message})`);
          tally.earlyWrites += application.writes().beforeIntent;
          const received = application.received();
          for (const field of application.fields) {
            tally.fields += 1;
            if (sameValue(field.value, received.get(field.name))) tally.exact += 1;
            else misses.push(`${applyCase.ats}/${applyCase.transport} field ${field.name}: expected ${JSON.stringify(field.value).slice(0, 80)}, received ${JSON.stringify(received.get(field.name))?.slice(0, 80)}`);
          }
        }
      } finally {
        await withinLimit(running.close(), `closing the ${applyCase.ats} double`).catch((error: unknown) => misses.push(String(error)));
      }
      rows.push([applyCase.ats, applyCase.transport, String(tally.sent), `${tally.exact}/${tally.fields}`, percent(tally.exact, tally.fields), `${tally.correct}/${tally.outcomes}`, percent(tally.correct, tally.outcomes), String(tally.earlyWrites)]);
    }
  } finally {
    await pool.close();
  }
  printTable('apply-accuracy: vendor doubles, per ATS and transport', ['ATS', 'transport', 'applications sent', 'fields exact', 'fields %', 'outcomes right', 'outcomes %', 'writes before intent'], rows);
  for (const miss of misses) console.log(`  miss: ${miss}`);
}
