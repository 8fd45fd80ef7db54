import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createChromiumPool } from '@quarry/browser';
import { createBrowserFormMiner } from '@quarry/miner';
import { printTable, repoRoot, runFor } from './harness.ts';
import { measureMachineCpu } from './machine-cpu.ts';
import { sampleTreeRss } from './process-tree-rss.ts';

const fixtures = new URL('../../packages/miner/fixtures/', import.meta.url);
// A mix of script-rendered, conditional, multi-step and plain forms the browser engine handles.
const pages = ['/browser/every-type.html', '/browser/combobox.html', '/browser/conditional.html', '/browser/wizard.html', '/dom/form.html'];

type WorkerReport = {
  posts: number;
  failures: number;
  seconds: number;
  peakMb: number;
  peakPssMb: number;
  cpuPercent: number;
  floorPosts: number;
  floorSeconds: number;
  floorCpuPercent: number;
};

async function runWorker(origin: string, seconds: number, concurrency: number): Promise<void> {
  // Production's defaults (BROWSER_RECYCLE_JOBS, _RECYCLE_MB; BROWSER_CONTEXTS is the concurrency): recycling is part of the measure.
  const launch = () =>
    createChromiumPool({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
      recycleAfterJobs: 50,
      recycleAboveMb: 1024,
      maxContexts: concurrency,
    });
  const pageAt = (index: number) => `${origin}${pages[index % pages.length] ?? pages[0]}`;

  // The floor: what one context per job costs before any mining (open it, load the page, close
  // it), at the same concurrency, in a browser of its own. No miner that keeps that rule can beat
  // it on this machine.
  const floorPool = launch();
  await floorPool.withContext(async (context) => context.newPage()); // Chromium's launch stays outside the timing
  const floorCpu = measureMachineCpu();
  const floor = await runFor(Math.max(10, seconds / 2), concurrency, (index) =>
    floorPool.withContext(async (context) => {
      const page = await context.newPage();
      return (await page.goto(pageAt(index), { waitUntil: 'load' }))?.ok() ?? false;
    }),
  );
  const floorCpuPercent = floorCpu.stop();
  await floorPool.close();

  const pool = launch();
  const miner = createBrowserFormMiner({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 30_000, probeDepth: 2, maxProbeChoices: 60 });
  // Every 500 ms: reading smaps_rollup of every Chromium process costs CPU the miner would notice.
  const rss = sampleTreeRss(process.pid, 500);
  const cpu = measureMachineCpu();
  const result = await runFor(
    seconds,
    concurrency,
    async (index) =>
      (await miner({ url: pageAt(index), employer: 'Acme', jobTitle: 'Test Role', country: 'gb' }, AbortSignal.timeout(60_000))).ok,
  );
  const cpuPercent = cpu.stop();
  const memory = rss.stop();
  await pool.close();
  const report: WorkerReport = {
    posts: result.runs,
    failures: result.failures,
    seconds: result.seconds,
    peakMb: memory.peakMb,
    peakPssMb: memory.peakPssMb,
    cpuPercent,
    floorPosts: floor.runs,
    floorSeconds: floor.seconds,
    floorCpuPercent,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * The browser half of `npm run bench -- mining-throughput`: one worker process (one Chromium)
 * mines browser-driven fixture forms, conditional probing and wizards included; peak RSS counts
 * the worker and its Chromium processes while it mines. Beside it, the floor of one context per
 * post (measured first, in its own browser). Target: ≥ 4 posts/s with peak RSS under 1.5 GB.
 */
export async function benchBrowserThroughput(options: { seconds: number; concurrency: number }): Promise<void> {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const file = path.startsWith('/dom/') ? new URL(`ats${path}`, fixtures) : new URL(path.slice(1), fixtures);
    const body = await readFile(file).catch(() => null);
    if (body) response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    else response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), 'worker', origin, String(options.seconds), String(options.concurrency)],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`browser throughput worker exited with ${code}`);
    const report = JSON.parse(output.trim().split('\n').pop() ?? '{}') as WorkerReport;
    printTable(
      `mining throughput: 1 worker process + its Chromium, ${options.concurrency} forms in flight, ${options.seconds} s, browser-driven forms (${pages.length} fixture pages round-robin)`,
      ['what', 'posts', 'failed', 'posts/s', 'machine CPU busy', 'peak RSS, worker + Chromium (MB): sum of RSS / of PSS', 'target'],
      [
        [
          'floor: a context per post, page loaded, nothing mined',
          report.floorPosts,
          '',
          (report.floorPosts / report.floorSeconds).toFixed(2),
          `${report.floorCpuPercent.toFixed(0)}%`,
          '',
          '',
        ],
        [
          'browser miner',
          report.posts,
          report.failures,
          (report.posts / report.seconds).toFixed(2),
          `${report.cpuPercent.toFixed(0)}%`,
          `${report.peakMb.toFixed(0)} / ${report.peakPssMb.toFixed(0)}`,
          '≥ 4 posts/s, < 1,500 MB',
        ],
      ],
    );
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

if (import.meta.main && process.argv[2] === 'worker') {
  await runWorker(process.argv[3] ?? '', Number(process.argv[4] ?? 10), Number(process.argv[5] ?? 4));
}
