import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/** The jobs of company `acme` on the JazzHR double, by the board code of their apply page. */
export const jazzDoubleJobs = {
  /** Captured apply page (tenant A), open. */
  tenantA: 'AbCdE00001',
  /** Captured apply page (tenant B), open. */
  tenantB: 'AbCdE00002',
  /** Listed by the API as Closed; its apply page answers 410 "This position is no longer available". */
  closed: 'AbCdE00009',
} as const;

const jobs = [
  { id: 'job_20261101090000_TENANTA', title: 'Example Job A', board_code: jazzDoubleJobs.tenantA, status: 'Open' },
  { id: 'job_20261101090000_TENANTB', title: 'Example Job B', board_code: jazzDoubleJobs.tenantB, status: 'Open' },
  { id: 'job_20261101090000_CLOSEDX', title: 'Example Job C', board_code: jazzDoubleJobs.closed, status: 'Closed' },
];

/**
 * JazzHR on loopback, one base URL for its two hosts: the captured apply pages under
 * `/apply-site/{company}` (`GET /apply/{code}/{slug}`, what the miner reads) and the API under
 * `/api`: `GET /v1/jobs?apikey=` (the jobs with their `board_code`) and `POST /v1/applicants`
 * (JSON with `apikey`). It answers 201 `{prospect_id}`; 400 `{error}` for a missing first name,
 * last name or email, or an unknown job; 401 `{error}` for another key. JazzHR documents no
 * duplicate refusal: the double accepts repeats.
 */
export async function startJazzApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const pages = new Map<string, string>([
    [jazzDoubleJobs.tenantA, minerFixture('ats/jazzhr/tenant-a.html')],
    [jazzDoubleJobs.tenantB, minerFixture('ats/jazzhr/tenant-b.html')],
  ]);
  let sequence = 0;
  return startVendorDouble((request) => {
    const page = /^\/apply-site\/acme\/apply\/([^/]+)(\/[^/]*)?$/.exec(request.path);
    if (page && request.method === 'GET') {
      const html = pages.get(page[1] ?? '');
      if (html) return { reply: { status: 200, body: html, headers: { 'content-type': 'text/html; charset=utf-8' } } };
      if (page[1] === jazzDoubleJobs.closed) return { reply: { status: 410, body: '<h1>This position is no longer available</h1>', headers: { 'content-type': 'text/html' } } };
      return { reply: { status: 404, body: '<h1>Not found</h1>', headers: { 'content-type': 'text/html' } } };
    }
    if (request.path === '/api/v1/jobs' && request.method === 'GET') {
      return { reply: request.query.get('apikey') === options.key ? { status: 200, body: jobs } : { status: 401, body: { error: 'Invalid API key' } } };
    }
    if (request.path !== '/api/v1/applicants' || request.method !== 'POST') return null;
    const body = (request.json ?? {}) as Record<string, unknown>;
    if (body.apikey !== options.key) return { reply: { status: 401, body: { error: 'Invalid API key' } } };
    return {
      accept: () => {
        const blank = ['first_name', 'last_name', 'email'].filter((name) => (body[name] ?? '') === '');
        if (blank.length > 0) return { status: 400, body: { error: `${blank.join(', ')} is required` } };
        if (!jobs.some((job) => job.id === body.job)) return { status: 400, body: { error: 'job: job not found' } };
        sequence += 1;
        return { status: 201, body: { prospect_id: `prospect_20261125_${sequence}` } };
      },
    };
  }, (url) => ({ jazzhr: `${url}/apply-site/{company}`, jazzhrApi: `${url}/api` }));
}
