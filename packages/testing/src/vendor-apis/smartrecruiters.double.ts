import { minerFixture, startVendorDouble, type VendorApiDouble } from './vendor-api.double.ts';

type Posting = { id: string; uuid: string; active?: boolean };
type FieldSets = Record<string, { required?: boolean; visible?: boolean } | null>;

/** The postings of company `acme` on the SmartRecruiters double, by posting id. */
export const smartRecruitersDoublePostings = {
  /** Captured posting and page-1 configuration; the Apply API lists no screening question. */
  captured: '744000000000001',
  /** The same, with one required screening question in the Apply API's configuration. */
  screened: '744000000000002',
  /** The captured posting, `active: false`. */
  inactive: '744000000000003',
} as const;

/**
 * SmartRecruiters on loopback, one base URL for its two hosts: the public posting
 * (`GET /v1/companies/{company}/postings/{id}`) and the one-click page's configuration
 * (`GET /oneclick-ui/api/company/{company}/publication/{uuid}/config`), both captured and what the
 * miner reads; and the Application API with `X-SmartToken`: `GET /postings/{uuid}/configuration`
 * (its screening questions) and `POST /postings/{uuid}/candidates` (JSON). It answers 201
 * `{id, candidatePortalUrl}`; 400 `{message, errors}` naming a required field left empty; 404 for
 * an inactive posting; 401 "Authentication data missing" without the key. SmartRecruiters
 * documents no duplicate refusal: the double accepts repeats.
 */
export async function startSmartRecruitersApiDouble(options: { key: string }): Promise<VendorApiDouble> {
  const captured = JSON.parse(minerFixture('ats/smartrecruiters/posting.json')) as Posting;
  const config = JSON.parse(minerFixture('ats/smartrecruiters/config-tenant-a.json')) as { fieldSets: FieldSets };
  const postings = new Map<string, Posting & { questions: Array<{ id: string; label: string; required: boolean }> }>([
    [smartRecruitersDoublePostings.captured, { ...captured, questions: [] }],
    [smartRecruitersDoublePostings.screened, { ...captured, id: smartRecruitersDoublePostings.screened, uuid: '00000000-0000-4000-a000-000000000002', questions: [{ id: 'a1b2c3d4-0000-4000-8000-000000000010', label: 'Do you hold a UK driving licence?', required: true }] }],
    [smartRecruitersDoublePostings.inactive, { ...captured, id: smartRecruitersDoublePostings.inactive, uuid: '00000000-0000-4000-a000-000000000003', active: false, questions: [] }],
  ]);
  const byUuid = (uuid: string | undefined) => [...postings.values()].find((posting) => posting.uuid === uuid);
  let sequence = 0;
  return startVendorDouble((request) => {
    const posting = /^\/v1\/companies\/acme\/postings\/([^/]+)$/.exec(request.path);
    if (posting && request.method === 'GET') {
      const found = postings.get(posting[1] ?? '');
      return { reply: found ? { status: 200, body: { id: found.id, uuid: found.uuid, name: 'Example Job', active: found.active ?? true } } : { status: 404, body: { message: 'Posting not found' } } };
    }
    const page = /^\/oneclick-ui\/api\/company\/acme\/publication\/([^/]+)\/config$/.exec(request.path);
    if (page && request.method === 'GET') return { reply: byUuid(page[1]) ? { status: 200, body: config } : { status: 404, body: { message: 'Not found' } } };
    const api = /^\/postings\/([^/]+)\/(configuration|candidates)$/.exec(request.path);
    if (!api) return null;
    if (request.headers['x-smarttoken'] !== options.key) return { reply: { status: 401, body: { message: 'Authentication data missing' } } };
    const target = byUuid(api[1]);
    if (api[2] === 'configuration' && request.method === 'GET') {
      return { reply: target ? { status: 200, body: { questions: target.questions.map((question) => ({ ...question, fields: [{ id: 'answer', type: 'RADIO', values: [{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'No' }] }] })) } } : { status: 404, body: { message: 'Posting not found' } } };
    }
    if (api[2] !== 'candidates' || request.method !== 'POST') return null;
    return {
      accept: () => {
        if (!target || target.active === false) return { status: 404, body: { message: 'Posting not found or no longer active' } };
        const body = (request.json ?? {}) as Record<string, unknown>;
        const blank = [
          ...(config.fieldSets.firstAndLastName?.required ? ['firstName', 'lastName'] : []),
          ...(config.fieldSets.email?.required ? ['email'] : []),
          ...(config.fieldSets.phoneNumber?.required ? ['phoneNumber'] : []),
        ].filter((name) => (body[name] ?? '') === '');
        if (config.fieldSets.resume?.required && !body.resume) blank.push('resume');
        const answered = new Set((Array.isArray(body.answers) ? body.answers : []).map((answer) => (answer as { id?: string }).id));
        for (const question of target.questions) if (question.required && !answered.has(question.id)) blank.push(`answers.${question.id}`);
        if (blank.length > 0) return { status: 400, body: { message: 'Validation failed', errors: blank.map((name) => ({ code: 'REQUIRED', message: `${name} is required` })) } };
        sequence += 1;
        return { status: 201, body: { id: `sr-candidate-${sequence}`, candidatePortalUrl: `https://my.smartrecruiters.example/candidate/${sequence}` } };
      },
    };
  }, (url) => ({ smartRecruitersApi: url, smartRecruitersJobs: url }));
}
