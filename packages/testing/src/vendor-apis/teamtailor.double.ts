import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { startVendorDouble, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * Teamtailor, rebuilt from its published material:
 * - TT-DOCS  https://docs.teamtailor.com (the Postman collection "Teamtailor API", documenter.gw.postman.com/view/metadata/TVzSiGxA):
 *   JSON:API (https://jsonapi.org), `Authorization: Token token=…`, `X-Api-Version`, hosts api.teamtailor.com / api.na.teamtailor.com;
 *   resources candidates, job-applications, jobs, picked-questions, questions, answers.
 * - TRUTO  https://truto.one/integrations/detail/teamtailor/ ("Create a candidate … Requires email unless sourced is true. Use merge to
 *   combine attributes with existing candidates").
 * - STACKONE  https://www.stackone.com/connectors/teamtailor ("Create Answer … Requires candidate_id, question_id …"; "Create Job
 *   Application … connecting a candidate to a specific job").
 * - KOMBO  https://docs.kombo.dev/ats/connectors/teamtailor (screening answers of type file cannot be sent through the API).
 * - ANSWER-READ  public client code reading `GET /v1/answers/{id}` → `data.attributes.answer` / `data.attributes.boolean`
 *   (code corpus; the answer's typed attributes are named after the question type).
 * - CEZ  cezkid/jobs@1b690396:app/docs/apply/teamtailor.md (the career-site form: `candidate[answers_attributes][N][question_id|boolean|text|number|choice|range]`,
 *   the résumé and files as uploads, `consent_given` required).
 *
 * Where they are silent, and what the double does then:
 * - Error bodies follow JSON:API (`{ errors: [{ status, title, detail, source: { pointer } }] }`) with 422 for a refused
 *   resource; 401 for another key; 406 without `X-Api-Version` (assumed: the public Ruby client has an InvalidApiVersionError).
 * - No duplicate rule is published for job applications: a second application of one candidate to one job is refused
 *   422 "has already applied" (assumed); a job application to a job that is not `open` is refused 422 (assumed).
 * - An answer's value attribute must match its question's `question-type` (Boolean → boolean, Text → text, Number →
 *   number, Date → date, Range → range, Choice → choices), else 422 (assumed from ANSWER-READ and the form's names).
 * - picked-questions carry `position` (their order on the form) and `mandatory` (assumed names; the form lists them in order).
 * - Candidates merge by email when `merge` is true (TRUTO); attribute names the double does not know are ignored.
 */

type Resource = {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } }>;
};
type TeamtailorPosting = { job: Resource; pickedQuestions: Resource[]; questions: Resource[]; page: string | null };

const folder = new URL('../../fixtures/vendor-apis/teamtailor/', import.meta.url);
const postings: TeamtailorPosting[] = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => {
    const posting = JSON.parse(readFileSync(new URL(name, folder), 'utf8')) as Omit<TeamtailorPosting, 'page'>;
    const page = new URL(name.replace(/\.json$/, '.page.html'), folder);
    return { ...posting, page: existsSync(page) ? readFileSync(page, 'utf8') : null };
  });

/** The jobs of `acme.teamtailor.com` on the Teamtailor double, by the path of their page. */
export const teamtailorDoubleJobs = {
  /** Open; the captured form: knockout, text and number questions, location, résumé and file uploads, consents. */
  captured: 'jobs/4959352-example-role',
  /** Open; the same questions and contact boxes, a cover letter, no uploads, location or consents. */
  carried: 'jobs/4959370-support-analyst',
  /** Archived: the API's job says `status: archived`, its page is 404. */
  archived: 'jobs/4959399-old-role',
} as const;

/** The candidate attributes the double keeps (TT-DOCS candidate attributes used by the transport; TRUTO for `merge` and `sourced`). */
export const teamtailorCandidateAttributes = [
  'first-name',
  'last-name',
  'email',
  'phone',
  'pitch',
  'linkedin-url',
  'sourced',
  'merge',
  'tags',
] as const;
/** An answer's typed value attribute by question type (see the file's notes). */
export const teamtailorAnswerAttribute: Record<string, string> = {
  Boolean: 'boolean',
  Text: 'text',
  Number: 'number',
  Date: 'date',
  Range: 'range',
  Choice: 'choices',
};

const jsonApiError = (status: number, title: string, detail: string, pointer?: string) => ({
  status,
  body: { errors: [{ status: String(status), title, detail, ...(pointer ? { source: { pointer } } : {}) }] },
  headers: { 'content-type': 'application/vnd.api+json' },
});
const ok = (status: number, data: unknown) => ({ status, body: { data }, headers: { 'content-type': 'application/vnd.api+json' } });

/**
 * Teamtailor on loopback, one base URL for its two hosts: the career site under `/site/{host}`
 * (`GET /jobs/{id}-{slug}/applications/new`, what the miner reads) and the JSON:API under `/api`:
 * `GET /v1/jobs/{id}`, `GET /v1/jobs/{id}/picked-questions` (with `include=question`), and the writes
 * `POST /v1/candidates`, `POST /v1/job-applications`, `POST /v1/answers` (each a submission).
 * `kept()` is what Teamtailor recorded: candidates, job applications and answers.
 */
export async function startTeamtailorApiDouble(options: {
  key: string;
}): Promise<VendorApiDouble & { kept: () => { candidates: Resource[]; applications: Resource[]; answers: Resource[] } }> {
  const candidates: Resource[] = [];
  const applications: Resource[] = [];
  const answers: Resource[] = [];
  const jobOf = (id: string) => postings.find((posting) => posting.job.id === id);
  const known = new Set<string>(teamtailorCandidateAttributes);
  const double = await startVendorDouble(
    (request: ReceivedRequest) => {
      const site = /^\/site\/acme\.teamtailor\.com\/jobs\/(\d+)-[^/]*\/applications\/new$/.exec(request.path);
      if (site && request.method === 'GET') {
        const posting = jobOf(site[1] ?? '');
        return {
          reply:
            posting?.page && posting.job.attributes.status === 'open'
              ? { status: 200, body: posting.page, headers: { 'content-type': 'text/html; charset=utf-8' } }
              : { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } },
        };
      }
      if (!request.path.startsWith('/api/v1/')) return null;
      if (request.headers.authorization !== `Token token=${options.key}`)
        return { reply: jsonApiError(401, 'Unauthorized', 'Invalid API key') };
      if (!request.headers['x-api-version']) return { reply: jsonApiError(406, 'Not Acceptable', 'Invalid API version') };
      const job = /^\/api\/v1\/jobs\/(\d+)(\/picked-questions)?$/.exec(request.path);
      if (job && request.method === 'GET') {
        const posting = jobOf(job[1] ?? '');
        if (!posting) return { reply: jsonApiError(404, 'Not found', 'Record not found') };
        if (!job[2]) return { reply: ok(200, posting.job) };
        const included = request.query.get('include')?.split(',').includes('question') ? { included: posting.questions } : {};
        return {
          reply: {
            status: 200,
            body: { data: posting.pickedQuestions, ...included },
            headers: { 'content-type': 'application/vnd.api+json' },
          },
        };
      }
      if (request.method !== 'POST') return null;
      const data = (
        request.json as
          | { data?: { type?: string; attributes?: Record<string, unknown>; relationships?: Record<string, { data?: { id?: string } }> } }
          | undefined
      )?.data;
      const attributes = data?.attributes ?? {};
      const related = (name: string) => data?.relationships?.[name]?.data?.id ?? '';
      if (request.path === '/api/v1/candidates') {
        return {
          accept: () => {
            const email = String(attributes.email ?? '');
            // TRUTO: email is required unless sourced is true.
            if (!email && attributes.sourced !== true)
              return jsonApiError(422, 'Unprocessable Entity', "email can't be blank", '/data/attributes/email');
            const existing = attributes.merge === true ? candidates.find((candidate) => candidate.attributes.email === email) : undefined;
            const kept = Object.fromEntries(Object.entries(attributes).filter(([name]) => known.has(name)));
            if (existing) Object.assign(existing.attributes, kept);
            const candidate = existing ?? { id: String(50_000_000 + candidates.length + 1), type: 'candidates', attributes: kept };
            if (!existing) candidates.push(candidate);
            return ok(201, candidate);
          },
        };
      }
      if (request.path === '/api/v1/job-applications') {
        return {
          accept: () => {
            const candidateId = related('candidate');
            const posting = jobOf(related('job'));
            if (!candidates.some((candidate) => candidate.id === candidateId))
              return jsonApiError(422, 'Unprocessable Entity', 'candidate must exist', '/data/relationships/candidate');
            if (!posting) return jsonApiError(422, 'Unprocessable Entity', 'job must exist', '/data/relationships/job');
            if (posting.job.attributes.status !== 'open')
              return jsonApiError(422, 'Unprocessable Entity', 'job is not open for applications', '/data/relationships/job');
            if (
              applications.some(
                (entry) => entry.relationships?.candidate?.data.id === candidateId && entry.relationships.job?.data.id === posting.job.id,
              )
            )
              return jsonApiError(422, 'Unprocessable Entity', 'candidate has already applied to this job');
            const application: Resource = {
              id: String(70_000_000 + applications.length + 1),
              type: 'job-applications',
              attributes: { 'cover-letter': attributes['cover-letter'] ?? null },
              relationships: {
                candidate: { data: { type: 'candidates', id: candidateId } },
                job: { data: { type: 'jobs', id: posting.job.id } },
              },
            };
            applications.push(application);
            return ok(201, application);
          },
        };
      }
      if (request.path === '/api/v1/answers') {
        return {
          accept: () => {
            const candidateId = related('candidate');
            const question = postings.flatMap((posting) => posting.questions).find((entry) => entry.id === related('question'));
            if (!candidates.some((candidate) => candidate.id === candidateId))
              return jsonApiError(422, 'Unprocessable Entity', 'candidate must exist', '/data/relationships/candidate');
            if (!question) return jsonApiError(422, 'Unprocessable Entity', 'question must exist', '/data/relationships/question');
            const attribute = teamtailorAnswerAttribute[String(question.attributes['question-type'])] ?? '';
            const value = attributes[attribute];
            const typed = {
              boolean: typeof value === 'boolean',
              text: typeof value === 'string',
              number: typeof value === 'number',
              date: typeof value === 'string',
              range: typeof value === 'number',
              choices: Array.isArray(value),
            }[attribute];
            if (!typed)
              return jsonApiError(
                422,
                'Unprocessable Entity',
                `${attribute || 'answer'} is invalid for a ${String(question.attributes['question-type'])} question`,
                `/data/attributes/${attribute}`,
              );
            const answer: Resource = {
              id: String(90_000_000 + answers.length + 1),
              type: 'answers',
              attributes: { [attribute]: value },
              relationships: {
                candidate: { data: { type: 'candidates', id: candidateId } },
                question: { data: { type: 'questions', id: question.id } },
              },
            };
            answers.push(answer);
            return ok(201, answer);
          },
        };
      }
      return null;
    },
    (url) => ({ teamtailor: `${url}/site/{host}`, teamtailorApi: `${url}/api` }),
  );
  return { ...double, kept: () => ({ candidates: [...candidates], applications: [...applications], answers: [...answers] }) };
}
