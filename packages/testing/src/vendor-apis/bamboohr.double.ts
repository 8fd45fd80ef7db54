import { readFileSync } from 'node:fs';
import { basicUser, startVendorDouble, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/**
 * BambooHR on loopback, built from BambooHR's published material:
 *
 * - ADD = "Add New Candidate", https://documentation.bamboohr.com/reference/add-new-candidate-1:
 *   `POST /api/gateway.php/{companyDomain}/v1/applicant_tracking/application`; body parameters
 *   firstName (required), lastName (required), email, phoneNumber, source, jobId (integer, required),
 *   address, city, state ("state name, abbreviation, or ISO code"), zip, country ("country name or ISO
 *   code"), linkedinUrl, dateAvailable ("YYYY-MM-DD"), desiredSalary, referredBy, websiteUrl,
 *   highestEducation, collegeName, references, resumeFile, coverLetterFile. "The owner of the API key
 *   used must have access to ATS settings."
 * - AUTH = HTTP Basic with the API key as the user name, as See4Devs/create-candidates-bamboohr-python@04c200c3:
 *   post_bamboohr_candidates.py sends it (`apikey:`); the stored copy of ADD shows a credentials box but
 *   not the scheme. The double takes the key as user name with any password (`key:` or `key:x`).
 * - ERRORS = the ATS endpoints' documented statuses as Knit summarises them
 *   (https://developers.getknit.dev/docs/bamboohr-ats-usecases): 400 bad request parameters, 401
 *   unauthorized, 403 insufficient permissions, 404 bad request URL. No error body is documented.
 * - CAREERS = the careers page's job detail `GET https://{company}.bamboohr.com/careers/{id}/detail`
 *   (not part of the API reference; shape from the captures in /work/shared/fixtures/ats/bamboohr and
 *   cezkid/jobs@0c99d020:app/docs/apply/bamboohr.md): what the miner reads; a closed opening's
 *   `jobOpeningStatus` is not "Open"; an unknown id answers 404 `{type: "not_found", title}`.
 *
 * Where the sources are silent, the double chooses (and says so where it does it):
 * - The success body is not shown in ADD: the double answers 200 `{candidateId}`.
 * - Error bodies are not documented: the double answers `{error: "<message>"}` with the status.
 * - ADD lists no field for the employer's custom questions or EEO answers: the double keeps any
 *   parameter it does not document out of the candidate it records (`ignored`), as an API ignores
 *   unknown form fields; Quarry's transport never sends one (it hands such applications to the page).
 * - The careers help page says an opening stops accepting a candidate's applications after five
 *   with the same name and phone in six months
 *   (https://bamboohr.screenstepslive.com/m/53914/l/587666-how-does-a-candidate-apply-for-a-job-opening);
 *   nothing says the API applies it or how it refuses: the double accepts repeats.
 */

type Detail = { result: { jobOpening: { jobOpeningStatus: string }; formFields: Record<string, unknown> } };

/** The job openings of company `acme` on the BambooHR double. */
export const bambooDoubleJobs = {
  /** Every documented standard field on (selects, a date, both files); custom questions and EEO off. */
  standardOnly: '21',
  /** Custom questions of each type and the four EEO fields (no API field: the careers page takes them). */
  customAndEeo: '22',
  /** The standard-field opening, `jobOpeningStatus` "Closed". */
  closed: '23',
} as const;

const fixture = (name: string): Detail =>
  JSON.parse(readFileSync(new URL(`../../fixtures/vendor-apis/bamboohr/${name}.json`, import.meta.url), 'utf8')) as Detail;

function openings(): Map<string, Detail> {
  const closed = fixture('standard-fields');
  closed.result.jobOpening.jobOpeningStatus = 'Closed';
  return new Map([
    [bambooDoubleJobs.standardOnly, fixture('standard-fields')],
    [bambooDoubleJobs.customAndEeo, fixture('custom-and-eeo')],
    [bambooDoubleJobs.closed, closed],
  ]);
}

/** ADD's body parameters, each a text value except the two files. */
const documentedParameters = new Set([
  'firstName',
  'lastName',
  'email',
  'phoneNumber',
  'source',
  'jobId',
  'address',
  'city',
  'state',
  'zip',
  'country',
  'linkedinUrl',
  'dateAvailable',
  'desiredSalary',
  'referredBy',
  'websiteUrl',
  'highestEducation',
  'collegeName',
  'references',
  'resumeFile',
  'coverLetterFile',
]);
const fileParameters = new Set(['resumeFile', 'coverLetterFile']);

/** What the double recorded of each accepted application: the documented parameters it read, and the rest it ignored. */
export type BambooRecordedCandidate = {
  candidateId: number;
  parameters: Map<string, ReceivedRequest['parts'][number][1]>;
  ignored: string[];
};

function validate(request: ReceivedRequest, jobs: Map<string, Detail>): string | null {
  const text = (name: string) => {
    const value = request.parts.find(([key]) => key === name)?.[1];
    return typeof value === 'string' ? value.trim() : '';
  };
  // ADD marks firstName, lastName and jobId required; nothing else.
  const missing = ['firstName', 'lastName', 'jobId'].filter((name) => text(name) === '');
  if (missing.length > 0) return `Missing required field(s): ${missing.join(', ')}`;
  // jobId is documented as an integer naming a job opening.
  if (!/^\d+$/.test(text('jobId'))) return 'jobId must be an integer';
  const job = jobs.get(text('jobId'));
  if (!job) return `jobId ${text('jobId')}: job opening not found`;
  // Chosen: an opening that no longer takes applications (CAREERS' status) is refused as a bad request.
  if (job.result.jobOpening.jobOpeningStatus !== 'Open') return 'The job opening is not open for applications';
  // ADD: dateAvailable "with the format YYYY-MM-DD".
  if (text('dateAvailable') && !/^\d{4}-\d{2}-\d{2}$/.test(text('dateAvailable'))) return 'dateAvailable must have the format YYYY-MM-DD';
  const textInFileField = request.parts.find(([key, value]) => fileParameters.has(key) && typeof value === 'string');
  if (textInFileField) return `${textInFileField[0]} must be a file`;
  return null;
}

/**
 * BambooHR on loopback, one base URL for both hosts: the careers page's job detail under
 * `/careers-site/{company}` (what the miner reads) and the API's Add New Candidate (multipart).
 * `recorded()` is what the double kept of each accepted application.
 */
export async function startBambooApiDouble(options: { key: string }): Promise<VendorApiDouble & { recorded(): BambooRecordedCandidate[] }> {
  const jobs = openings();
  const recorded: BambooRecordedCandidate[] = [];
  const double = await startVendorDouble(
    (request) => {
      const detail = /^\/careers-site\/acme\/careers\/([^/]+)\/detail$/.exec(request.path);
      if (detail && request.method === 'GET') {
        const found = jobs.get(detail[1] ?? '');
        // CAREERS: an unknown opening's detail is a 404 with this body.
        return { reply: found ? { status: 200, body: found } : { status: 404, body: { type: 'not_found', title: 'Resource not found.' } } };
      }
      const add = /^\/api\/gateway\.php\/([^/]+)\/v1\/applicant_tracking\/application$/.exec(request.path);
      if (!add || request.method !== 'POST') return null;
      // AUTH: Basic with the key as user name and any password; ERRORS: 401 otherwise.
      const authorization = request.headers.authorization ?? '';
      const user = authorization.startsWith('Basic ')
        ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0]
        : undefined;
      if (user !== options.key && authorization !== basicUser(options.key))
        return { reply: { status: 401, body: { error: 'Unauthorized: the API key is missing or invalid' } } };
      // ERRORS: 404 for a request URL naming no company this key belongs to.
      if (add[1] !== 'acme') return { reply: { status: 404, body: { error: 'Not found' } } };
      return {
        accept: () => {
          const problem = validate(request, jobs);
          if (problem) return { status: 400, body: { error: problem } };
          const candidateId = 4000 + recorded.length + 1;
          const parameters = new Map(request.parts.filter(([key]) => documentedParameters.has(key)));
          recorded.push({
            candidateId,
            parameters,
            ignored: request.parts.map(([key]) => key).filter((key) => !documentedParameters.has(key)),
          });
          return { status: 200, body: { candidateId } };
        },
      };
    },
    (url) => ({ bamboohr: `${url}/careers-site/{company}`, bamboohrApi: url }),
  );
  return { ...double, recorded: () => [...recorded] };
}
