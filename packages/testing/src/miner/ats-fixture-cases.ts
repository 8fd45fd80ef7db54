import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createMiner, type Miner, type MinerEndpoints } from '@quarry/miner';

/** packages/miner/fixtures: the copied ATS captures (fixtures/ats) and the reviewed goldens (fixtures/expected). */
export const fixturesDir = fileURLToPath(new URL('../../../miner/fixtures/', import.meta.url));

type Reply = { status?: number; contentType: string; body: string; headers?: Record<string, string>; delayMs?: number };
type Route = (request: { body: string }) => Reply;

export type FixtureCase = {
  /** Path under fixtures/ats of the capture this case is about; its golden is fixtures/expected/<same path>.json. */
  fixture: string;
  ats: string;
  /** The posting URL a client would submit (real ATS hosts are rewritten to the local server by endpoints). */
  url: (origin: string) => string;
  /** What the local server answers, keyed by "METHOD /path?query". */
  routes: (read: (path: string) => string) => Record<string, Route>;
  /** Whether the golden is what the engine reaches now rather than the whole form (browser-only pages). */
  partial?: string;
};

const json =
  (body: string, status = 200): Route =>
  () => ({ status, contentType: 'application/json', body });
const html =
  (body: string, status = 200): Route =>
  () => ({ status, contentType: 'text/html; charset=utf-8', body });
const page = (inner: string) => `<!doctype html><html><head><title>Apply</title></head><body>${inner}</body></html>`;

/** Ashby answers every posting on one GraphQL path; the fixture is picked by the posting id in the body. */
const ashbyPostings: Record<string, string> = {
  '0a1b2c3d-0000-4000-8000-00000000a001': 'ashby/survey-kinds.json',
  '0a1b2c3d-0000-4000-8000-00000000a002': 'ashby/consent-untitled.json',
};

function ashbyRoute(read: (path: string) => string): Route {
  return ({ body }) => {
    const id = (JSON.parse(body || '{}') as { variables?: { jobPostingId?: string } }).variables?.jobPostingId ?? '';
    const fixture = ashbyPostings[id];
    const posting = fixture ? (JSON.parse(read(fixture)) as unknown) : null;
    return { contentType: 'application/json', body: JSON.stringify({ data: { jobPosting: posting } }) };
  };
}

/** Breezy's React build carries the position in a script; the capture is that JSON, normalised. */
function breezyPage(capture: string): string {
  const data = JSON.parse(capture) as { position: unknown; questions: unknown; flags?: Record<string, unknown> };
  const portal = JSON.stringify({ data: { position: data.position, questions: data.questions, ...data.flags } });
  return page(`<div id="app"></div><script id="portal-data" type="application/json">${portal.replaceAll('<', '\\u003c')}</script>`);
}

const leverIds: Record<string, string> = {
  'lever/tenant-a.html': '0a1b2c3d-0000-4000-8000-0000000000a1',
  'lever/tenant-b.html': '0a1b2c3d-0000-4000-8000-0000000000b1',
  'lever/card-file.html': '0a1b2c3d-0000-4000-8000-0000000000f1',
};

const htmlPages = [
  'dom/ashby-form.html',
  'dom/bamboohr-form.html',
  'dom/form.html',
  'dom/frames-inner.html',
  'dom/frames-shadow.html',
  'dom/greenhouse-form.html',
  'dom/jazzhr-form.html',
  'dom/lever-form.html',
  'dom/workable-form.html',
  'workday/form.html',
  'workday/posting-open-d.html',
  'workday/upload.html',
];

export const fixtureCases: FixtureCase[] = [
  ...(['tenant-a', 'tenant-b'] as const).map((tenant, index): FixtureCase => {
    const shortcode = `ACME0000${index + 1}`;
    return {
      fixture: `workable/${tenant}.json`,
      ats: 'workable',
      url: () => `https://apply.workable.com/acme/j/${shortcode}/`,
      routes: (read) => ({ [`GET /workable/api/v1/jobs/${shortcode}/form`]: json(read(`workable/${tenant}.json`)) }),
    };
  }),
  ...(['tenant-a', 'tenant-b'] as const).map((tenant, index): FixtureCase => ({
    fixture: `bamboohr/${tenant}.json`,
    ats: 'bamboohr',
    url: () => `https://acme.bamboohr.com/careers/${index + 1}`,
    routes: (read) => ({ [`GET /bamboohr/acme/careers/${index + 1}/detail`]: json(read(`bamboohr/${tenant}.json`)) }),
  })),
  ...(['tenant-a', 'tenant-b'] as const).map((tenant, index): FixtureCase => {
    const jobId = String(1000 + index);
    return {
      fixture: `manatal/${tenant}.json`,
      ats: 'manatal',
      url: () => `https://www.careers-page.com/acme/job/AB12CD3${index}`,
      routes: (read) => ({
        [`GET /manatal/acme/job/AB12CD3${index}/apply`]: html(
          page(`<div id="app"></div><script>const selectedJobId = "${jobId}";</script>`),
        ),
        [`GET /manatal/api/v1.0/jobs/${jobId}/application-form/`]: json(read(`manatal/${tenant}.json`)),
      }),
    };
  }),
  {
    fixture: 'breezy/tenant-a.json',
    ats: 'breezy',
    url: () => 'https://acme.breezy.hr/p/0a1b2c3d4e5f-software-engineer',
    routes: (read) => ({ 'GET /breezy/acme/p/0a1b2c3d4e5f-software-engineer/apply': html(breezyPage(read('breezy/tenant-a.json'))) }),
  },
  {
    fixture: 'smartrecruiters/config-tenant-a.json',
    ats: 'smartrecruiters',
    url: () => 'https://jobs.smartrecruiters.com/acme/744000000000001-example-job',
    routes: (read) => ({
      'GET /sr-api/v1/companies/acme/postings/744000000000001': json(read('smartrecruiters/posting.json')),
      'GET /sr-jobs/oneclick-ui/api/company/acme/publication/00000000-0000-4000-a000-000000000001/config': json(
        read('smartrecruiters/config-tenant-a.json'),
      ),
    }),
  },
  {
    // The posting alone: the hosted form's config answers 403 to a plain client (DataDome), as measured.
    fixture: 'smartrecruiters/posting.json',
    ats: 'smartrecruiters',
    url: () => 'https://jobs.smartrecruiters.com/acme/744000000000002-example-job',
    routes: (read) => ({
      'GET /sr-api/v1/companies/acme/postings/744000000000002': json(
        read('smartrecruiters/posting.json').replace('a000-000000000001', 'a000-000000000002'),
      ),
      'GET /sr-jobs/oneclick-ui/api/company/acme/publication/00000000-0000-4000-a000-000000000002/config': html(
        '<html><body>blocked</body></html>',
        403,
      ),
    }),
  },
  ...Object.keys(ashbyPostings).map((postingId): FixtureCase => ({
    fixture: ashbyPostings[postingId] ?? '',
    ats: 'ashby',
    url: () => `https://jobs.ashbyhq.com/acme/${postingId}`,
    routes: (read) => ({ 'POST /ashby/api/non-user-graphql?op=ApiJobPosting': ashbyRoute(read) }),
  })),
  ...Object.entries(leverIds).map(([fixture, postingId]): FixtureCase => ({
    fixture,
    ats: 'lever',
    url: () => `https://jobs.lever.co/acme/${postingId}/apply`,
    routes: (read) => ({ [`GET /lever/jobs.lever.co/acme/${postingId}/apply`]: html(page(read(fixture))) }),
  })),
  ...(['tenant-a', 'tenant-b'] as const).map((tenant, index): FixtureCase => ({
    fixture: `jazzhr/${tenant}.html`,
    ats: 'jazzhr',
    url: () => `https://acme.applytojob.com/apply/AbCdE0000${index + 1}/Test-Role`,
    routes: (read) => ({ [`GET /jazzhr/acme/apply/AbCdE0000${index + 1}/Test-Role`]: html(page(read(`jazzhr/${tenant}.html`))) }),
  })),
  {
    fixture: 'teamtailor/tenant-a.html',
    ats: 'teamtailor',
    url: () => 'https://acme.na.teamtailor.com/jobs/1-test-role',
    routes: (read) => ({
      'GET /teamtailor/acme.na.teamtailor.com/jobs/1-test-role/applications/new': html(read('teamtailor/tenant-a.html')),
    }),
  },
  ...htmlPages.map((fixture): FixtureCase => ({
    fixture,
    ats: 'html-form',
    url: (origin) => `${origin}/pages/${fixture}`,
    routes: (read) => ({ [`GET /pages/${fixture}`]: html(read(fixture)) }),
    partial: 'a local model of a browser-driven form: the golden is what the server-rendered HTML extractor reaches without a browser',
  })),
];

export function minerEndpointsFor(origin: string): MinerEndpoints {
  return {
    greenhouseApi: `${origin}/greenhouse-api`,
    greenhouseBoards: `${origin}/greenhouse-boards`,
    lever: `${origin}/lever/{host}`,
    ashby: `${origin}/ashby`,
    workable: `${origin}/workable`,
    smartRecruitersApi: `${origin}/sr-api`,
    smartRecruitersJobs: `${origin}/sr-jobs`,
    bamboohr: `${origin}/bamboohr/{company}`,
    recruitee: `${origin}/recruitee/{company}`,
    teamtailor: `${origin}/teamtailor/{host}`,
    jazzhr: `${origin}/jazzhr/{company}`,
    breezy: `${origin}/breezy/{company}`,
    manatal: `${origin}/manatal`,
    leverApi: `${origin}/lever-api`,
    ashbyApi: `${origin}/ashby-api`,
    workableApi: `${origin}/workable-api/{company}`,
    bamboohrApi: `${origin}/bamboohr-api`,
    jazzhrApi: `${origin}/jazzhr-api`,
    breezyApi: `${origin}/breezy-api`,
    teamtailorApi: `${origin}/teamtailor-api`,
  };
}

export type AtsFixtureServer = {
  origin: string;
  /** Adds or replaces routes ("METHOD /path?query" → reply), e.g. failure cases in tests. */
  route: (key: string, reply: Reply | Route) => void;
  requests: string[];
  /** The same requests with their bodies, in order (what a plain client must send to get the same answers). */
  received: Array<{ key: string; body: string }>;
  close: () => Promise<void>;
};

/** A loopback server answering every fixture case's vendor endpoints; tests never reach the internet. */
export async function startAtsFixtureServer(cases: readonly FixtureCase[] = fixtureCases): Promise<AtsFixtureServer> {
  const cache = new Map<string, string>();
  const read = (path: string) => {
    let text = cache.get(path);
    if (text === undefined) {
      text = readFileSync(`${fixturesDir}ats/${path}`, 'utf8');
      cache.set(path, text);
    }
    return text;
  };
  const routes = new Map<string, Route>();
  for (const fixtureCase of cases) for (const [key, route] of Object.entries(fixtureCase.routes(read))) routes.set(key, route);
  const requests: string[] = [];
  const received: Array<{ key: string; body: string }> = [];
  const handle = (request: IncomingMessage, response: ServerResponse, body: string) => {
    const key = `${request.method ?? 'GET'} ${request.url ?? '/'}`;
    requests.push(key);
    received.push({ key, body });
    const route = routes.get(key);
    const reply: Reply = route ? route({ body }) : { status: 404, contentType: 'text/html', body: '<h1>Not found</h1>' };
    const send = () => {
      if (!response.destroyed)
        response.writeHead(reply.status ?? 200, { 'content-type': reply.contentType, ...reply.headers }).end(reply.body);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
    else send();
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    route: (key, reply) => routes.set(key, typeof reply === 'function' ? reply : () => reply),
    requests,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The engine as tests and benches run it: every vendor endpoint on the loopback fixture server. */
export function createFixtureMiner(origin: string, timeoutMs = 5_000): { miner: Miner; close: () => Promise<void> } {
  const fetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
  return { miner: createMiner({ fetch, timeoutMs, endpoints: minerEndpointsFor(origin) }), close: () => fetch.close() };
}
