import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/**
 * Recruitee's careers-site API on loopback, company `acme` under `/company/acme`:
 * `GET /api/offers/` lists the miner's hand-written offers (no capture yet; an offer not listed is
 * closed) and `POST /api/offers/{slug}/candidates` (no key) answers `201 {candidate: {id}}`.
 * Recruitee's refusals (422 with `error` and `error_fields`) are scripted by the caller.
 */
export async function startRecruiteeApiDouble(): Promise<VendorApiDouble> {
  const offers = JSON.parse(minerFixture('handwritten/recruitee-offers.json')) as unknown;
  let sequence = 0;
  return startVendorDouble((request) => {
    if (request.method === 'GET' && request.path === '/company/acme/api/offers/') return { reply: { status: 200, body: offers } };
    if (request.method !== 'POST' || !/^\/company\/acme\/api\/offers\/[^/]+\/candidates$/.test(request.path)) return null;
    return {
      accept: () => {
        sequence += 1;
        return { status: 201, body: { candidate: { id: 9000 + sequence } } };
      },
    };
  }, (url) => ({ recruitee: `${url}/company/{company}` }));
}
