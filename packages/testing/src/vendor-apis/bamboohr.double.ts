import { basicUser, minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

type Detail = { result: { jobOpening?: { jobOpeningStatus?: string }; formFields: Record<string, unknown> } };

/** The job openings of company `acme` on the BambooHR double. */
export const bambooDoubleJobs = {
  /** Captured (tenant A): required custom questions and a required veteran status. */
  tenantA: '11',
  /** Captured (tenant B): required custom questions, one a file. */
  tenantB: '12',
  /** Tenant A with its custom questions and EEO fields turned off (as BambooHR marks a field off: `[]`). */
  standardOnly: '13',
  /** Tenant A with `jobOpeningStatus` "Closed". */
  closed: '14',
} as const;

const eeoFields = ['genderId', 'ethnicityId', 'veteranStatusId', 'disabilityId'];

function details(): Map<string, Detail> {
  const tenantA = () => JSON.parse(minerFixture('ats/bamboohr/tenant-a.json')) as Detail;
  const standardOnly = tenantA();
  for (const key of ['customQuestions', ...eeoFields]) standardOnly.result.formFields[key] = [];
  const closed = tenantA();
  closed.result.jobOpening = { ...closed.result.jobOpening, jobOpeningStatus: 'Closed' };
  return new Map([
    [bambooDoubleJobs.tenantA, tenantA()],
    [bambooDoubleJobs.tenantB, JSON.parse(minerFixture('ats/bamboohr/tenant-b.json')) as Detail],
    [bambooDoubleJobs.standardOnly, standardOnly],
    [bambooDoubleJobs.closed, closed],
  ]);
}

/** The API's names of the careers page's standard fields that the required check reads back. */
const apiNames: Record<string, string> = {
  firstName: 'firstName', lastName: 'lastName', email: 'email', phone: 'phoneNumber', streetAddress: 'address', city: 'city', state: 'state',
  zip: 'zip', countryId: 'country', resumeFileId: 'resumeFile',
};

/**
 * BambooHR on loopback, one base URL for both hosts: the careers page's job detail under
 * `/careers-site/{company}` (`GET /careers/{id}/detail`, what the miner reads) and the API's
 * `POST /api/gateway.php/{company}/v1/applicant_tracking/application` (Basic `key:x`, multipart).
 * It answers 200 `{result: {candidateId}}`; 400 `{error}` naming an empty required standard field;
 * 400 "Job opening is not open" for a closed opening; 401 for another key. BambooHR documents no
 * duplicate refusal: the double accepts repeats.
 */
export async function startBambooApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const jobs = details();
  let sequence = 0;
  return startVendorDouble((request) => {
    const detail = /^\/careers-site\/acme\/careers\/([^/]+)\/detail$/.exec(request.path);
    if (detail && request.method === 'GET') {
      const found = jobs.get(detail[1] ?? '');
      return { reply: found ? { status: 200, body: found } : { status: 404, body: { type: 'not_found', title: 'Resource not found.' } } };
    }
    if (request.method !== 'POST' || request.path !== '/api/gateway.php/acme/v1/applicant_tracking/application') return null;
    if (request.headers.authorization !== basicUser(options.key) && request.headers.authorization !== `Basic ${Buffer.from(`${options.key}:x`).toString('base64')}`) {
      return { reply: { status: 401, body: { error: 'Invalid API key' } } };
    }
    return {
      accept: () => {
        const part = (name: string) => request.parts.find(([key]) => key === name)?.[1];
        const job = jobs.get(String(part('jobId') ?? ''));
        if (!job) return { status: 400, body: { error: 'jobId: job opening not found' } };
        if (job.result.jobOpening?.jobOpeningStatus !== 'Open') return { status: 400, body: { error: 'Job opening is not open' } };
        const blank = Object.entries(job.result.formFields)
          .filter(([key, field]) => apiNames[key] && (field as { isRequired?: boolean }).isRequired === true && (part(apiNames[key] ?? '') ?? '') === '')
          .map(([key]) => apiNames[key]);
        if (blank.length > 0) return { status: 400, body: { error: `Missing required field: ${blank.join(', ')}` } };
        sequence += 1;
        return { status: 200, body: { result: { candidateId: 5000 + sequence } } };
      },
    };
  }, (url) => ({ bamboohr: `${url}/careers-site/{company}`, bamboohrApi: url }));
}
