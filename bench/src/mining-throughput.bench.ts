import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createFixtureMiner, fixtureCases, startAtsFixtureServer } from '@quarry/miner/fixture-cases';
import { printTable, repoRoot, runFor } from './harness.ts';
import { sampleRss } from './rss-sampler.ts';

type WorkerReport = { posts: number; failures: number; seconds: number; byAts: Record<string, number> };

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
    const outcome = await miner({ url: fixtureCase.url(origin), employer: 'Acme', jobTitle: 'Test Role', country: 'us' }, AbortSignal.timeout(10_000));
    byAts[fixtureCase.ats] = (byAts[fixtureCase.ats] ?? 0) + 1;
    return outcome.ok;
  });
  await close();
  return { posts: result.runs, failures: result.failures, seconds: result.seconds, byAts };
}

/**
 * `npm run bench -- mining-throughput [--seconds 10]`: one worker process mines the JSON/HTML
 * adapter fixtures from a loopback server (in this process, so the worker has its core to itself)
 * for a fixed time; prints posts/s and the worker's peak RSS. Target: ≥ 100 posts/s per process.
 */
export async function benchMiningThroughput(options: { seconds: number; concurrency?: number }): Promise<void> {
  const server = await startAtsFixtureServer();
  const concurrency = options.concurrency ?? 16;
  try {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'worker', server.origin, String(options.seconds), String(concurrency)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const rss = sampleRss(child.pid ?? 0, 20);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const memory = rss.stop();
    if (code !== 0) throw new Error(`mining-throughput worker exited with ${code}`);
    const report = JSON.parse(output.trim().split('\n').pop() ?? '{}') as WorkerReport;
    printTable(`mining throughput: 1 worker process, ${concurrency} posts in flight, ${options.seconds} s, JSON/HTML adapters (${cases.length} fixture forms round-robin)`, [
      'posts', 'failed', 'posts/s', 'peak RSS of the worker (MB)', 'target',
    ], [[report.posts, report.failures, (report.posts / report.seconds).toFixed(0), memory.peakMb.toFixed(0), '≥ 100 posts/s']]);
    printTable('posts mined per ATS', ['ATS', 'posts'], Object.entries(report.byAts));
  } finally {
    await server.close();
  }
}

if (import.meta.main && process.argv[2] === 'worker') {
  const [origin = '', seconds = '10', concurrency = '16'] = process.argv.slice(3);
  const report = await runWorker(origin, Number(seconds), Number(concurrency));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
