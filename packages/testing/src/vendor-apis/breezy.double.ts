import { readdirSync, readFileSync } from 'node:fs';
import { startVendorDouble, type ReceivedRequest, type VendorApiDouble } from './vendor-api.double.ts';

/*
 * Breezy HR, rebuilt from its published material:
 * - BREEZY-ADD  https://developer.breezy.hr/docs/company-position-candidates-add
 *   (`POST /v3/company/{company_id}/position/{position_id}/candidates`, token in `Authorization`).
 * - BREEZY-UPDATE  https://developer.breezy.hr/docs/company-position-candidate-update (the candidate body's documented
 *   names: name, email_address, phone_number, summary, tags, source, headline, address, social_profiles, cover_letter;
 *   200 `{ Candidate Object }`; errors `{ "error": { "type", "message" } }`: 400 missingAccessToken
 *   "access token is null or empty", 401 invalidAccessToken "access token is invalid", 500 `…CandidateError`).
 * - BREEZY-LIST  https://developer.breezy.hr/docs/company-position-candidates (the Candidate object: `_id`, `email_address`,
 *   `name`, `phone_number`, `resume {file_name,url,pdf_url}`, `origin`, …).
 * - BREEZY-RESUME  https://developer.breezy.hr/docs/company-position-candidate-resume-add, as used by
 *   Riminder/hrflow-connectors@d9304cf89167fc6cb939a8fbe3d08c35371945c5:src/hrflow_connectors/v2/connectors/breezyhr/aisles.py
 *   (multipart field `file`); the same connector's schemas.py (`BreezyProfileModel`: work_history, education,
 *   custom_attributes) and `BreezyJobModel.application_form` (the position's form settings).
 * - CEZ  cezkid/jobs@1b690396:app/docs/apply/breezy.md (the apply page carries the position and its questionnaire in
 *   `script#portal-data`; a closed position's page is 200 "Position Closed").
 *
 * Where they are silent, and what the double does then:
 * - The add endpoint's success status: the candidate endpoints all document 200 with the Candidate object; so does the double.
 * - Validation of the add body is not documented: the double refuses a candidate without `email_address` or `name`
 *   with 400 `{ error: { type: "invalidCandidate", message } }` (the documented error shape; the type is the double's).
 * - No duplicate refusal and no closed-position refusal are documented: a repeat is accepted; the double refuses an
 *   add to a position whose `state` is not `published` with 400 `{ error: { type: "positionNotPublished" } }` (assumed).
 * - Questionnaire answers, desired salary, preferred location, EEOC and CCPA consent have no documented write: they exist
 *   only on the apply page. Body names Breezy does not document are ignored (`candidates()` keeps documented ones only).
 */

/** The candidate body's documented names (BREEZY-UPDATE example; work_history and education per the connector's schema). */
export const breezyCandidateFields = [
  'name',
  'email_address',
  'phone_number',
  'summary',
  'tags',
  'source',
  'headline',
  'address',
  'social_profiles',
  'cover_letter',
  'work_history',
  'education',
] as const;

type BreezyPosting = {
  position: { _id: string; friendly_id: string; state: string; name: string } & Record<string, unknown>;
  questions: unknown[];
};

const postings: BreezyPosting[] = readdirSync(new URL('../../fixtures/vendor-apis/breezy/', import.meta.url))
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => JSON.parse(readFileSync(new URL(`../../fixtures/vendor-apis/breezy/${name}`, import.meta.url), 'utf8')) as BreezyPosting);

/** The positions of company `acme` on the Breezy double, by the friendly id of their apply page. */
export const breezyDoublePositions = {
  /** Published; every box its form shows has a documented candidate field (or the résumé upload). */
  carried: 'b1a2c3d4e5f6-data-analyst',
  /** Published; salary, preferred location, a questionnaire of every kind, work history, education, EEOC and CCPA. */
  withQuestionnaire: 'b1a2c3d4e5f7-field-technician',
  /** Closed: the API lists it `closed`; its apply page says "Position Closed". */
  closed: 'b1a2c3d4e5f9-seasonal-installer',
} as const;

const companyId = 'c0ffee000001';
const tokenError = (status: 400 | 401) =>
  status === 400
    ? { status, body: { error: { type: 'missingAccessToken', message: 'access token is null or empty' } } }
    : { status, body: { error: { type: 'invalidAccessToken', message: 'access token is invalid' } } };

/**
 * Breezy HR on loopback, one base URL for its two hosts: the apply pages under `/portal/{company}`
 * (`GET /p/{friendly id}/apply`, the posting in `script#portal-data`, what the miner reads) and the
 * v3 API under `/api`: `GET /v3/companies`, `GET /v3/company/{cid}/positions`, the candidate add
 * and the résumé upload (both submissions: each writes). `candidates()` is what Breezy kept.
 */
export async function startBreezyApiDouble(options: {
  key: string;
}): Promise<VendorApiDouble & { candidates: () => Array<Record<string, unknown>> }> {
  const kept: Array<Record<string, unknown>> = [];
  const documented = new Set<string>(breezyCandidateFields);
  const double = await startVendorDouble(
    (request: ReceivedRequest) => {
      const apply = /^\/portal\/acme\/p\/([^/]+)\/apply$/.exec(request.path);
      if (apply && request.method === 'GET') {
        const posting = postings.find((entry) => entry.position.friendly_id === apply[1]);
        if (!posting) return { reply: { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } } };
        if (posting.position.state !== 'published')
          return {
            reply: {
              status: 200,
              body: '<html><body><h1>Position Closed</h1><p>Sorry, this position is no longer accepting candidates.</p></body></html>',
              headers: { 'content-type': 'text/html' },
            },
          };
        const page = `<!doctype html><html><body><div id="app"></div><script id="portal-data" type="application/json">${JSON.stringify({ data: { build: 'react', ...posting } }).replaceAll('<', '\\u003c')}</script></body></html>`;
        return { reply: { status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } } };
      }
      if (!request.path.startsWith('/api/v3/')) return null;
      const token = request.headers.authorization;
      if (!token) return { reply: tokenError(400) };
      if (token !== options.key) return { reply: tokenError(401) };
      if (request.path === '/api/v3/companies' && request.method === 'GET')
        return { reply: { status: 200, body: [{ _id: companyId, friendly_id: 'acme', name: 'Acme' }] } };
      if (request.path === `/api/v3/company/${companyId}/positions` && request.method === 'GET')
        return { reply: { status: 200, body: postings.map((posting) => posting.position) } };
      const add = new RegExp(`^/api/v3/company/${companyId}/position/([^/]+)/candidates$`).exec(request.path);
      if (add && request.method === 'POST') {
        return {
          accept: () => {
            const position = postings.find((posting) => posting.position._id === add[1])?.position;
            if (!position) return { status: 404, body: { error: { type: 'positionNotFound', message: 'position not found' } } };
            if (position.state !== 'published')
              return { status: 400, body: { error: { type: 'positionNotPublished', message: 'position is not published' } } };
            const body = (request.json ?? {}) as Record<string, unknown>;
            const blank = ['name', 'email_address'].filter((name) => (body[name] ?? '') === '');
            if (blank.length > 0)
              return { status: 400, body: { error: { type: 'invalidCandidate', message: `${blank.join(', ')} is required` } } };
            const candidate = {
              _id: `c${String(kept.length + 1).padStart(11, '0')}`,
              ...Object.fromEntries(Object.entries(body).filter(([name]) => documented.has(name))),
              origin: 'applied',
              resume: null as unknown,
            };
            kept.push(candidate);
            return { status: 200, body: candidate };
          },
        };
      }
      const resume = new RegExp(`^/api/v3/company/${companyId}/position/[^/]+/candidate/([^/]+)/resume$`).exec(request.path);
      if (resume && request.method === 'POST') {
        return {
          accept: () => {
            const candidate = kept.find((entry) => entry._id === resume[1]);
            const file = request.parts.find(([name]) => name === 'file')?.[1];
            if (!candidate) return { status: 404, body: { error: { type: 'candidateNotFound', message: 'candidate not found' } } };
            if (!file || typeof file === 'string')
              return { status: 400, body: { error: { type: 'missingFile', message: 'file is required' } } };
            candidate.resume = { file_name: file.filename, bytes: file.bytes };
            return {
              status: 200,
              body: {
                ...candidate,
                resume: { file_name: file.filename, url: `https://breezy.example/resume/${resume[1]}`, pdf_url: null },
              },
            };
          },
        };
      }
      return null;
    },
    (url) => ({ breezy: `${url}/portal/{company}`, breezyApi: `${url}/api` }),
  );
  return { ...double, candidates: () => [...kept] };
}
