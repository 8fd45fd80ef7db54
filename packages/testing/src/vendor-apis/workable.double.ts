import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

type WorkableField = { id: string; required?: boolean; type: string; fields?: WorkableField[] };
type WorkableForm = Array<{ name: string; fields: WorkableField[] }>;

/** The jobs of account `acme` on the Workable double, by shortcode. */
export const workableDoubleJobs = {
  /** Captured: 27 fields, booleans, single and multiple choices, education and experience groups. */
  tenantA: 'A1B2C3D4E5',
  /** Captured: 10 fields, paragraphs. */
  tenantB: 'B2C3D4E5F6',
  /** Closed: the form answers 404 `Not Found`. */
  closed: 'C3D4E5F6A7',
} as const;

/**
 * Workable on loopback, one base URL for both hosts: the public form definition
 * (`GET /api/v1/jobs/{shortcode}/form`, what the miner reads: the captured forms) and the account's
 * SPI under `/accounts/{subdomain}` (`POST /spi/v3/jobs/{shortcode}/candidates`, Bearer token,
 * JSON `{sourced, candidate}`). It answers 201 `{candidate: {id}}`; 422 `{error}` naming a required
 * field left empty ("can't be blank"); 404 for a closed job; 401 for another token. Workable keeps
 * one candidate per job and documents no duplicate refusal, so the double accepts repeats.
 */
export async function startWorkableApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const forms = new Map<string, WorkableForm>([
    [workableDoubleJobs.tenantA, JSON.parse(minerFixture('ats/workable/tenant-a.json')) as WorkableForm],
    [workableDoubleJobs.tenantB, JSON.parse(minerFixture('ats/workable/tenant-b.json')) as WorkableForm],
  ]);
  let sequence = 0;
  return startVendorDouble((request) => {
    const form = /^\/api\/v1\/jobs\/([^/]+)\/form$/.exec(request.path);
    if (form && request.method === 'GET') {
      const found = forms.get(form[1] ?? '');
      return { reply: found ? { status: 200, body: found } : { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } } };
    }
    const submit = /^\/accounts\/acme\/spi\/v3\/jobs\/([^/]+)\/candidates$/.exec(request.path);
    if (!submit || request.method !== 'POST') return null;
    if (request.headers.authorization !== `Bearer ${options.key}`) return { reply: { status: 401, body: { error: 'Not authorized' } } };
    const definition = forms.get(submit[1] ?? '');
    if (!definition) return { accept: () => ({ status: 404, body: { error: 'Not found' } }) };
    return {
      accept: () => {
        const candidate = ((request.json as { candidate?: Record<string, unknown> } | undefined)?.candidate ?? {});
        const answered = new Set((Array.isArray(candidate.answers) ? candidate.answers : []).map((answer) => String((answer as { question_key?: unknown }).question_key)));
        const present = (id: string) => (id === 'resume' ? candidate.resume !== undefined || candidate.resume_url !== undefined : id.startsWith('QA_') || id.startsWith('CA_') ? answered.has(id) : (candidate[id] ?? '') !== '');
        const blank = definition.flatMap((section) => section.fields).filter((field) => field.required === true && field.type !== 'group' && !present(field.id));
        if (blank.length > 0) return { status: 422, body: { error: `Validation failed: ${blank.map((field) => `${field.id} can't be blank`).join(', ')}` } };
        sequence += 1;
        return { status: 201, body: { candidate: { id: `workable-candidate-${sequence}`, email: candidate.email } } };
      },
    };
  }, (url) => ({ workable: url, workableApi: `${url}/accounts/{company}` }));
}
