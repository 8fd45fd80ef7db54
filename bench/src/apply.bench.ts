import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBrowserApplier } from '@quarry/hosted-form-apply';
import type { FileToUpload } from '@quarry/hosted-form-apply';
import { createChromiumPool } from '@quarry/browser';
import { createBrowserFormMiner, syntheticAnswers } from '@quarry/miner';
import { startApplicationSites } from '@quarry/testing';
import { printTable, repoRoot, runFor } from './harness.ts';
import { measureMachineCpu } from './machine-cpu.ts';
import { sampleTreeRss } from './process-tree-rss.ts';

type WorkerReport = {
  applications: number;
  failures: number;
  seconds: number;
  peakMb: number;
  peakPssMb: number;
  cpuPercent: number;
  outcomes: Record<string, number>;
};

// A résumé of a realistic size (180 KB), sent with every application.
const resume: FileToUpload = {
  type: 'File',
  filename: 'jane-doe-cv.pdf',
  contentType: 'application/pdf',
  bytes: Buffer.alloc(180 * 1024, 0x25),
};

async function runWorker(origin: string, seconds: number, concurrency: number): Promise<void> {
  // Production's browser pool settings (the mining worker's defaults): recycling is part of the measure.
  // The browser is production's too (CHROMIUM_PATH's default, the headless shell, ADR 0021): the full
  // browser costs about three times the CPU per context and was what this bench measured before.
  const pool = createChromiumPool({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell',
    recycleAfterJobs: 50,
    recycleAboveMb: 1024,
    maxContexts: concurrency,
  });
  const url = `${origin}/one-page`;
  // The questions once, as the miner hands them out; the answers are the miner's synthetic ones with a file's bytes.
  const mined = await createBrowserFormMiner({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 30_000, probeDepth: 1, maxProbeChoices: 10 })(
    { url, employer: 'Acme', jobTitle: 'Platform Engineer', country: 'gb' },
    AbortSignal.timeout(60_000),
  );
  if (!mined.ok) throw new Error(`mining the bench site failed: ${mined.errorCode} ${mined.detail}`);
  const questions = mined.form.questions;
  const answers = syntheticAnswers(questions).map((answer) =>
    questions.find((question) => question.id === answer.id)?.inputType === 'File' ? { id: answer.id, value: resume } : answer,
  );
  const applier = createBrowserApplier({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 60_000 });
  const candidate = { email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe' };
  const outcomes: Record<string, number> = {};

  // Every 500 ms: reading smaps_rollup of every Chromium process costs CPU the applier would notice.
  const rss = sampleTreeRss(process.pid, 500);
  const cpu = measureMachineCpu();
  const result = await runFor(seconds, concurrency, async () => {
    const outcome = await applier({ url, questions, answers, candidate }, { beforeSubmit: async () => {} }, AbortSignal.timeout(90_000));
    const key = outcome.status === 'failed' ? `failed ${outcome.errorCode}` : outcome.status;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    return outcome.status === 'success';
  });
  const cpuPercent = cpu.stop();
  const memory = rss.stop();
  await pool.close();
  const report: WorkerReport = {
    applications: result.runs,
    failures: result.failures,
    seconds: result.seconds,
    peakMb: memory.peakMb,
    peakPssMb: memory.peakPssMb,
    cpuPercent,
    outcomes,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * `npm run bench -- apply`: one worker process (one Chromium) applies through the browser engine
 * to a local one-page form with a résumé upload, `concurrency` applications in flight; every
 * application is mined-form driven, filled, submitted and confirmed. Peak memory counts the
 * worker and its Chromium processes (sum of RSS and of PSS). Target: ≥ 2 applications/s with 5
 * in flight, peak PSS under 1.5 GB.
 */
export async function benchApply(options: { seconds: number; concurrency: number }): Promise<void> {
  const sites = await startApplicationSites();
  try {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), 'worker', sites.origin, String(options.seconds), String(options.concurrency)],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`apply worker exited with ${code}`);
    const report = JSON.parse(output.trim().split('\n').pop() ?? '{}') as WorkerReport;
    const received = sites.received.filter((submission) => submission.path === '/one-page/submit').length;
    printTable(
      `apply: 1 worker process + its Chromium, ${options.concurrency} applications in flight, ${options.seconds} s, one-page form with a 180 KB résumé`,
      [
        'what',
        'applications',
        'not success',
        'outcomes',
        'site received',
        'applications/s',
        'machine CPU busy',
        'peak RSS, worker + Chromium (MB): sum of RSS / of PSS',
        'target',
      ],
      [
        [
          'browser applier',
          report.applications,
          report.failures,
          Object.entries(report.outcomes)
            .map(([key, count]) => `${key} ${count}`)
            .join(', '),
          received,
          (report.applications / report.seconds).toFixed(2),
          `${report.cpuPercent.toFixed(0)}%`,
          `${report.peakMb.toFixed(0)} / ${report.peakPssMb.toFixed(0)}`,
          '≥ 2 applications/s, PSS < 1,500 MB',
        ],
      ],
    );
  } finally {
    await sites.close();
  }
}

if (import.meta.main && process.argv[2] === 'worker') {
  await runWorker(process.argv[3] ?? '', Number(process.argv[4] ?? 10), Number(process.argv[5] ?? 5));
}
