import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createFixtureMiner, fixtureCases, startAtsFixtureServer, type AtsFixtureServer } from '@quarry/testing/miner';
import { load as loadHtml } from 'cheerio';
import { Agent, request } from 'undici';
import { printTable, repoRoot, runFor } from './harness.ts';
import { sampleRss } from './rss-sampler.ts';

type WorkerReport = { posts: number; failures: number; seconds: number; byAts: Record<string, number> };

/** One vendor request a mine of a case made, as the fixture server received it. */
type CaseRequest = { method: string; path: string; body: string };

// JSON/HTML adapters only: the dom/ and workday/ pages are browser models (measured separately once
// the browser extractor exists), and the SmartRecruiters posting case is a deliberate failure.
const cases = fixtureCases.filter((fixtureCase) => !fixtureCase.partial && fixtureCase.fixture !== 'smartrecruiters/posting.json');

/** The worker side: one process mining the fixture posts round-robin with `concurrency` in flight. */
async function runWorker(origin: string, seconds: number, concurrency: number): Promise<WorkerReport> {
  const { miner, close } = createFixtureMiner(origin, 10_000);
  const byAts: Record<string, number> = {};
  const result = await runFor(seconds, concurrency, async (index) => {
    const fixtureCase = cases[index % cases.length];
    if (!fixtureCase) return false;
    const outcome = await miner(
      { url: fixtureCase.url(origin), employer: 'Acme', jobTitle: 'Test Role', country: 'us' },
      AbortSignal.timeout(10_000),
    );
    byAts[fixtureCase.ats] = (byAts[fixtureCase.ats] ?? 0) + 1;
    return outcome.ok;
  });
  await close();
  return { posts: result.runs, failures: result.failures, seconds: result.seconds, byAts };
}

/**
 * The floor's side: the same process shape fetching, for each post, the very requests a mine of it
 * made (same order, same bodies) with undici's plain `request` and a keep-alive agent (no address
 * checks, no size caps, no redirects), and parsing each answer as the adapters do (JSON.parse, or
 * cheerio for HTML), then nothing else. What the adapters add beyond it is the mining itself.
 */
async function runFloor(origin: string, seconds: number, concurrency: number, plan: CaseRequest[][]): Promise<WorkerReport> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: concurrency });
  const result = await runFor(seconds, concurrency, async (index) => {
    const steps = plan[index % plan.length] ?? [];
    for (const step of steps) {
      const response = await request(`${origin}${step.path}`, {
        dispatcher: agent,
        method: step.method as 'GET' | 'POST',
        ...(step.method === 'POST' ? { body: step.body, headers: { 'content-type': 'application/json' } } : {}),
      });
      const text = await response.body.text();
      if (String(response.headers['content-type'] ?? '').includes('json')) JSON.parse(text);
      else loadHtml(text);
      if (response.statusCode !== 200) return false;
    }
    return true;
  });
  await agent.close();
  return { posts: result.runs, failures: result.failures, seconds: result.seconds, byAts: {} };
}

/** Mines every case once in this process and keeps the requests each made: the floor's plan. */
async function recordRequests(server: AtsFixtureServer): Promise<CaseRequest[][]> {
  const { miner, close } = createFixtureMiner(server.origin, 10_000);
  const plan: CaseRequest[][] = [];
  try {
    for (const fixtureCase of cases) {
      const before = server.received.length;
      const outcome = await miner(
        { url: fixtureCase.url(server.origin), employer: 'Acme', jobTitle: 'Test Role', country: 'us' },
        AbortSignal.timeout(10_000),
      );
      if (!outcome.ok) throw new Error(`${fixtureCase.fixture} did not mine: ${outcome.errorCode}`);
      plan.push(
        server.received.slice(before).map(({ key, body }) => {
          const [method = 'GET', path = '/'] = key.split(' ');
          return { method, path, body };
        }),
      );
    }
  } finally {
    await close();
  }
  return plan;
}

/** Runs this file as a child (`worker` or `floor`), the plan on stdin; returns its report and peak RSS. */
async function runChild(
  mode: 'worker' | 'floor',
  origin: string,
  seconds: number,
  concurrency: number,
  plan: CaseRequest[][],
): Promise<WorkerReport & { peakMb: number }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), mode, origin, String(seconds), String(concurrency)], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(plan));
  const rss = sampleRss(child.pid ?? 0, 20);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const memory = rss.stop();
  if (code !== 0) throw new Error(`mining-throughput ${mode} exited with ${code}`);
  return { ...(JSON.parse(output.trim().split('\n').pop() ?? '{}') as WorkerReport), peakMb: memory.peakMb };
}

/**
 * `npm run bench -- mining-throughput [--seconds 10]`: one worker process mines the JSON/HTML
 * adapter fixtures from a loopback server (in this process, so the worker has its core to itself)
 * for a fixed time; prints posts/s and the worker's peak RSS. Beside it, in the same run, the floor:
 * a process of the same shape fetching and parsing the same pages and nothing more.
 * Targets: ≥ 100 posts/s per process, and ≥ 60% of the floor.
 */
export async function benchMiningThroughput(options: { seconds: number; concurrency?: number }): Promise<void> {
  const server = await startAtsFixtureServer();
  const concurrency = options.concurrency ?? 16;
  try {
    const plan = await recordRequests(server);
    const floor = await runChild('floor', server.origin, options.seconds, concurrency, plan);
    const report = await runChild('worker', server.origin, options.seconds, concurrency, plan);
    const floorRate = floor.posts / floor.seconds;
    const rate = report.posts / report.seconds;
    printTable(
      `mining throughput: 1 process, ${concurrency} posts in flight, ${options.seconds} s each, JSON/HTML adapters (${cases.length} fixture forms round-robin, ${plan.flat().length} vendor requests)`,
      ['what', 'posts', 'failed', 'posts/s', 'peak RSS (MB)', 'vs floor', 'target'],
      [
        [
          'floor: the same requests fetched (undici) and parsed (JSON.parse, cheerio), nothing mined',
          floor.posts,
          floor.failures,
          floorRate.toFixed(0),
          floor.peakMb.toFixed(0),
          '100%',
          '',
        ],
        [
          'quarry: the ATS adapters and HTML miner',
          report.posts,
          report.failures,
          rate.toFixed(0),
          report.peakMb.toFixed(0),
          `${Math.round((rate / floorRate) * 100)}%`,
          '≥ 100 posts/s, ≥ 60% of the floor',
        ],
      ],
    );
    printTable('posts mined per ATS', ['ATS', 'posts'], Object.entries(report.byAts));
  } finally {
    await server.close();
  }
}

if (import.meta.main && (process.argv[2] === 'worker' || process.argv[2] === 'floor')) {
  const [origin = '', seconds = '10', concurrency = '16'] = process.argv.slice(3);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const plan = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CaseRequest[][];
  const report =
    process.argv[2] === 'floor'
      ? await runFloor(origin, Number(seconds), Number(concurrency), plan)
      : await runWorker(origin, Number(seconds), Number(concurrency));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
