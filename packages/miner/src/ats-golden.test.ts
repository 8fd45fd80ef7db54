import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createSafeFetch } from '@quarry/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCases, fixturesDir, minerEndpointsFor, startAtsFixtureServer, type AtsFixtureServer } from '@quarry/testing/miner';
import { createMiner } from './ats-router.miner.ts';
import type { Miner, MineOutcome } from './miner-port.ts';

// `UPDATE_GOLDENS=1 npx vitest run packages/miner/src/ats-golden.test.ts` rewrites the goldens; every
// rewrite must be reviewed against the capture before it is committed.
const updating = process.env.UPDATE_GOLDENS === '1';
const safeFetch = createSafeFetch({ allowPrivate: ['127.0.0.1'] });
let server: AtsFixtureServer;
let miner: Miner;

beforeAll(async () => {
  server = await startAtsFixtureServer();
  miner = createMiner({ fetch: safeFetch, timeoutMs: 5_000, endpoints: minerEndpointsFor(server.origin) });
});
afterAll(async () => {
  await safeFetch.close();
  await server.close();
});

/** The part of an outcome a golden pins: failure details are prose and may be reworded. */
function goldenOf(outcome: MineOutcome): unknown {
  return outcome.ok
    ? { ok: true, adapter: outcome.adapter, questions: outcome.form.questions, answers: outcome.form.answers }
    : { ok: false, adapter: outcome.adapter, errorCode: outcome.errorCode };
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

describe('golden outputs of every ATS fixture', () => {
  it('covers every captured file with a case and a checked-in golden', () => {
    const captures = filesUnder(join(fixturesDir, 'ats'))
      .map((file) => relative(join(fixturesDir, 'ats'), file))
      .filter((file) => file !== 'README.md');
    expect(captures.length).toBeGreaterThanOrEqual(29);
    expect(captures.filter((file) => !fixtureCases.some((fixtureCase) => fixtureCase.fixture === file))).toEqual([]);
  });

  it.each(fixtureCases.map((fixtureCase) => [fixtureCase.fixture, fixtureCase] as const))('%s', async (_, fixtureCase) => {
    const outcome = await miner(
      { url: fixtureCase.url(server.origin), employer: 'Acme', jobTitle: 'Test Role', country: 'us' },
      AbortSignal.timeout(10_000),
    );
    const actual = goldenOf(outcome);
    const path = join(fixturesDir, 'expected', fixtureCase.fixture.replace(/\.(json|html)$/, '.json'));
    if (updating) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${JSON.stringify(actual, null, 2)}\n`);
    }
    expect(actual).toEqual(JSON.parse(readFileSync(path, 'utf8')));
    if (fixtureCase.ats !== 'html-form' || outcome.ok) expect(outcome.adapter).toBe(fixtureCase.ats);
  });
});
