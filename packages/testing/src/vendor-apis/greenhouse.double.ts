import { basicUser, minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/** The job of board `acme` on the Greenhouse double: the miner's hand-written job (no capture yet). */
export const greenhouseDoubleJob = (): string => String((JSON.parse(minerFixture('handwritten/greenhouse-job.json')) as { id: number }).id);

/**
 * Greenhouse's Job Board API on loopback: `GET /v1/boards/acme/jobs/{id}` serves the job with its
 * questions (what the miner reads); any other job is 404 (Greenhouse drops a closed job from the
 * board). `POST` to it needs Basic `key:` (401 otherwise) and answers 200; Greenhouse documents no
 * body, no duplicate refusal and no required-field check, so the double accepts whatever arrives.
 */
export async function startGreenhouseApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const job = JSON.parse(minerFixture('handwritten/greenhouse-job.json')) as { id: number };
  return startVendorDouble((request) => {
    const path = /^\/v1\/boards\/([^/]+)\/jobs\/([^/]+)$/.exec(request.path);
    if (!path) return null;
    if (path[1] !== 'acme' || path[2] !== String(job.id)) return { reply: { status: 404, body: { status: 404, error: 'Job not found' } } };
    if (request.method === 'GET') return { reply: { status: 200, body: job } };
    if (request.method !== 'POST') return null;
    if (request.headers.authorization !== basicUser(options.key)) return { reply: { status: 401, body: { message: 'Invalid Basic Auth credentials' } } };
    return { accept: () => ({ status: 200, body: { success: 'Candidate saved successfully' } }) };
  }, (url) => ({ greenhouseApi: url }));
}
