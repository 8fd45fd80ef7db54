import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/** The jobs of `acme.teamtailor.com` on the Teamtailor double, by the path of their page. */
export const teamtailorDoubleJobs = {
  /** Captured apply form (tenant A), open. */
  captured: 'jobs/4959352-example-role',
  /** Archived: the API's job says `status: archived`, its page is 404. */
  archived: 'jobs/4959399-old-role',
} as const;

const jobStatus = new Map([
  ['4959352', 'open'],
  ['4959399', 'archived'],
]);

/**
 * Teamtailor on loopback, one base URL for its two hosts: the career site under `/site/{host}`
 * (`GET /jobs/{id}-{slug}/applications/new`, the captured form, what the miner reads) and the
 * JSON:API under `/api` with `Authorization: Token token=…` and `X-Api-Version`:
 * `GET /v1/jobs/{id}` (its `status`), `POST /v1/candidates` (201 `{data: {id}}`; 422 `{errors}`
 * without an email) and `POST /v1/job-applications` (201; 422 "has already applied" for the same
 * candidate and job again, or for a job not open). Both POSTs count as submissions. 401 for
 * another key.
 */
export async function startTeamtailorApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const page = minerFixture('ats/teamtailor/tenant-a.html');
  const candidates = new Map<string, string>();
  const applied = new Set<string>();
  return startVendorDouble((request) => {
    const site = /^\/site\/acme\.teamtailor\.com\/jobs\/(\d+)-[^/]*\/applications\/new$/.exec(request.path);
    if (site && request.method === 'GET') {
      return { reply: jobStatus.get(site[1] ?? '') === 'open' ? { status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } } : { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } } };
    }
    if (!request.path.startsWith('/api/v1/')) return null;
    if (request.headers.authorization !== `Token token=${options.key}` || !request.headers['x-api-version']) return { reply: { status: 401, body: { errors: [{ title: 'Unauthorized', detail: 'Invalid API key' }] } } };
    const job = /^\/api\/v1\/jobs\/(\d+)$/.exec(request.path);
    if (job && request.method === 'GET') {
      const status = jobStatus.get(job[1] ?? '');
      return { reply: status ? { status: 200, body: { data: { id: job[1], type: 'jobs', attributes: { status } } } } : { status: 404, body: { errors: [{ title: 'Not found' }] } } };
    }
    const data = (request.json as { data?: { attributes?: Record<string, unknown>; relationships?: Record<string, { data?: { id?: string } }> } } | undefined)?.data;
    if (request.path === '/api/v1/candidates' && request.method === 'POST') {
      return {
        accept: () => {
          const email = String(data?.attributes?.email ?? '');
          if (!email) return { status: 422, body: { errors: [{ detail: "email can't be blank", source: { pointer: '/data/attributes/email' } }] } };
          const id = candidates.get(email) ?? `tt-candidate-${candidates.size + 1}`;
          candidates.set(email, id);
          return { status: 201, body: { data: { id, type: 'candidates' } } };
        },
      };
    }
    if (request.path === '/api/v1/job-applications' && request.method === 'POST') {
      return {
        accept: () => {
          const candidateId = data?.relationships?.candidate?.data?.id ?? '';
          const jobId = data?.relationships?.job?.data?.id ?? '';
          if (jobStatus.get(jobId) !== 'open') return { status: 422, body: { errors: [{ detail: 'job is not open for applications' }] } };
          if (applied.has(`${candidateId}|${jobId}`)) return { status: 422, body: { errors: [{ detail: 'candidate has already applied to this job' }] } };
          applied.add(`${candidateId}|${jobId}`);
          return { status: 201, body: { data: { id: `tt-application-${applied.size}`, type: 'job-applications' } } };
        },
      };
    }
    return null;
  }, (url) => ({ teamtailor: `${url}/site/{host}`, teamtailorApi: `${url}/api` }));
}
