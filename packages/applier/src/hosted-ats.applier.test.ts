import { createChromiumPool, type ChromiumPool } from '@quarry/miner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ashbyHostedCase, greenhouseHostedCase, leverHostedCase, sameValue, workableHostedCase, type ApplyCase, type RunningCase } from './hosted-cases.test-support.ts';
import type { SubmitOutcome } from './applier-port.ts';

let pool: ChromiumPool;
beforeAll(() => {
  pool = createChromiumPool({ executablePath: '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 1 });
});
afterAll(async () => {
  await pool?.close();
});

/** Sends every application of a case, in order; the hook's calls are marked among the double's events. */
async function runAll(running: RunningCase, marks: string[]): Promise<Array<{ variant: string; expected: string; outcome: SubmitOutcome; hookCalls: number }>> {
  const results = [];
  for (const application of running.applications) {
    let hookCalls = 0;
    const outcome = await application.send({
      beforeSubmit: async () => {
        hookCalls += 1;
        marks.push(`hook ${application.variant}`);
      },
    });
    results.push({ variant: application.variant, expected: application.expected, outcome, hookCalls });
  }
  return results;
}

const code = (outcome: SubmitOutcome) => (outcome.status === 'failed' ? outcome.errorCode : outcome.status);

describe.each<[string, ApplyCase]>([
  ['Greenhouse', greenhouseHostedCase],
  ['Lever', leverHostedCase],
  ['Ashby', ashbyHostedCase],
  ['Workable', workableHostedCase],
])('%s hosted form', (_name, applyCase) => {
  let running: RunningCase;
  beforeAll(async () => {
    running = await applyCase.start(pool);
  }, 60_000);
  afterAll(async () => {
    await running?.close();
  });

  it('delivers every answer under the vendor field name, in its encoding, and maps every vendor answer to its code', async () => {
    const marks: string[] = [];
    const results = await runAll(running, marks);
    for (const result of results) expect({ variant: result.variant, code: code(result.outcome), message: result.outcome.status === 'success' ? '' : result.outcome.message }).toMatchObject({ variant: result.variant, code: result.expected });
    const accepted = running.applications.find((application) => application.variant === 'accept');
    const received = accepted?.received() ?? new Map();
    for (const field of accepted?.fields ?? []) expect({ name: field.name, same: sameValue(field.value, received.get(field.name)), got: received.get(field.name) }).toMatchObject({ name: field.name, same: true });
  }, 240_000);
});
