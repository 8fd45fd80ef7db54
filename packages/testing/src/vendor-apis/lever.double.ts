import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/** A posting of site `acme` on the Lever double; any posting id of that site serves the same page. */
export const leverDoublePosting = '0b6d1c6e-7f3a-4c1e-9a55-2d8f00c0ffee';

/**
 * Lever on loopback, one base URL for its two hosts: the apply page under `/site/{host}`
 * (`GET /acme/{posting id}/apply`, the captured tenant B page, what the miner reads) and the
 * Postings API at the root (`POST /v0/postings/acme/{posting id}?key=`), which answers
 * `200 {ok: true, applicationId}`, or 401 `{ok: false, error: "Invalid API key"}` for another key.
 * Lever merges a repeated email silently: the double accepts repeats.
 */
export async function startLeverApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const page = minerFixture('ats/lever/tenant-b.html');
  let sequence = 0;
  return startVendorDouble((request) => {
    if (request.method === 'GET' && /^\/site\/[^/]+\/acme\/[0-9a-f-]{36}\/apply$/.test(request.path)) {
      return { reply: { status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } } };
    }
    if (request.method !== 'POST' || !/^\/v0\/postings\/acme\/[0-9a-f-]{36}$/.test(request.path)) return null;
    if (request.query.get('key') !== options.key) return { reply: { status: 401, body: { ok: false, error: 'Invalid API key' } } };
    return {
      accept: () => {
        sequence += 1;
        return { status: 200, body: { ok: true, applicationId: `lever-application-${sequence}` } };
      },
    };
  }, (url) => ({ lever: `${url}/site/{host}`, leverApi: url }));
}
