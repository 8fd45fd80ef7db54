import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

/** The positions of company `acme` on the Breezy double, by the friendly id of their apply page. */
export const breezyDoublePositions = {
  /** Captured definition (its apply page), published. */
  captured: '0a1b2c3d4e5f-software-engineer',
  /** Closed: the API lists it `closed`; its apply page says "Position Closed". */
  closed: '0a1b2c3d4e60-closed-role',
} as const;

const companyId = 'c0ffee000001';
const positions = [
  { _id: 'posa', friendly_id: breezyDoublePositions.captured, state: 'published' },
  { _id: 'posb', friendly_id: breezyDoublePositions.closed, state: 'closed' },
];

/**
 * Breezy HR on loopback, one base URL for its two hosts: the apply pages under
 * `/portal/{company}` (`GET /p/{friendly id}/apply`, the captured definition in
 * `script#portal-data`, what the miner reads) and the v3 API under `/api` with the token in
 * `Authorization`: `GET /v3/companies`, `GET /v3/company/{cid}/positions`,
 * `POST /v3/company/{cid}/position/{pid}/candidates` (JSON; 201 `{_id}`, 400 `{error}` without a
 * name or email) and `POST …/candidate/{id}/resume` (multipart `file`; 200). Both POSTs count as
 * submissions (each writes). 401 for another token. Breezy documents no duplicate refusal.
 */
export async function startBreezyApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const definition = JSON.parse(minerFixture('ats/breezy/tenant-a.json')) as unknown;
  const page = `<!doctype html><html><body><div id="app"></div><script id="portal-data" type="application/json">${JSON.stringify({ data: definition }).replaceAll('<', '\\u003c')}</script></body></html>`;
  let sequence = 0;
  return startVendorDouble((request) => {
    const apply = /^\/portal\/acme\/p\/([^/]+)\/apply$/.exec(request.path);
    if (apply && request.method === 'GET') {
      if (apply[1] === breezyDoublePositions.captured) return { reply: { status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } } };
      return { reply: { status: 200, body: '<html><body><h1>Position Closed</h1><p>Sorry, this position is no longer accepting candidates.</p></body></html>', headers: { 'content-type': 'text/html' } } };
    }
    if (!request.path.startsWith('/api/v3/')) return null;
    if (request.headers.authorization !== options.key) return { reply: { status: 401, body: { error: 'Unauthorized' } } };
    if (request.path === '/api/v3/companies' && request.method === 'GET') return { reply: { status: 200, body: [{ _id: companyId, friendly_id: 'acme', name: 'Acme' }] } };
    if (request.path === `/api/v3/company/${companyId}/positions` && request.method === 'GET') return { reply: { status: 200, body: positions } };
    const candidates = new RegExp(`^/api/v3/company/${companyId}/position/([^/]+)/candidates$`).exec(request.path);
    if (candidates && request.method === 'POST') {
      return {
        accept: () => {
          const position = positions.find((candidatePosition) => candidatePosition._id === candidates[1]);
          if (!position || position.state !== 'published') return { status: 400, body: { error: 'Position is closed' } };
          const body = (request.json ?? {}) as Record<string, unknown>;
          const blank = ['name', 'email_address'].filter((name) => (body[name] ?? '') === '');
          if (blank.length > 0) return { status: 400, body: { error: `${blank.join(', ')} is required` } };
          sequence += 1;
          return { status: 201, body: { _id: `breezy-candidate-${sequence}`, name: body.name } };
        },
      };
    }
    if (new RegExp(`^/api/v3/company/${companyId}/position/[^/]+/candidate/[^/]+/resume$`).test(request.path) && request.method === 'POST') {
      return { accept: () => ({ status: 200, body: { success: true } }) };
    }
    return null;
  }, (url) => ({ breezy: `${url}/portal/{company}`, breezyApi: `${url}/api` }));
}
