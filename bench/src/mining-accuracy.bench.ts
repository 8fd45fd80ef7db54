import { readFileSync } from 'node:fs';
import type { Question } from '@quarry/contracts';
import { createFixtureMiner, fixtureCases, fixturesDir, startAtsFixtureServer } from '@quarry/testing/miner';
import { printTable } from './harness.ts';

type Golden = { ok: true; adapter: string; questions: Question[] } | { ok: false; adapter: string | null; errorCode: string };

/** Every question of a form, nested ones included, keyed by its path (parent, revealing option, id). */
function flatten(questions: Question[], prefix = ''): Map<string, Question> {
  const all = new Map<string, Question>();
  for (const question of questions) {
    const key = `${prefix}${question.id}`;
    all.set(key, question);
    for (const option of question.options ?? []) {
      const nested = 'answer' in option ? flatten(option.conditionalQuestions, `${key}=${option.answer}>`) : flatten([option], `${key}>`);
      for (const [nestedKey, nestedQuestion] of nested) all.set(nestedKey, nestedQuestion);
    }
  }
  return all;
}

const optionsOf = (question: Question) =>
  JSON.stringify((question.options ?? []).map((option) => ('answer' in option ? option.answer : option.id)));

type Tally = {
  forms: number;
  outcomes: number;
  expected: number;
  found: number;
  inputType: number;
  mandatory: number;
  options: number;
  category: number;
  exact: number;
};
const emptyTally = (): Tally => ({
  forms: 0,
  outcomes: 0,
  expected: 0,
  found: 0,
  inputType: 0,
  mandatory: 0,
  options: 0,
  category: 0,
  exact: 0,
});
const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);

/**
 * `npm run bench -- mining-accuracy`: mines every captured ATS form from the loopback fixture
 * server and scores it against the reviewed goldens in packages/miner/fixtures/expected. Target:
 * 100% of questions found, ≥ 98% exact (inputType, mandatory, options and category all right).
 */
export async function benchMiningAccuracy(): Promise<void> {
  const server = await startAtsFixtureServer();
  const { miner, close } = createFixtureMiner(server.origin);
  const tallies = new Map<string, Tally>();
  try {
    for (const fixtureCase of fixtureCases) {
      const group = fixtureCase.partial ? 'html-form (browser models, partial goldens)' : fixtureCase.ats;
      const tally = tallies.get(group) ?? emptyTally();
      tallies.set(group, tally);
      const golden = JSON.parse(
        readFileSync(`${fixturesDir}expected/${fixtureCase.fixture.replace(/\.(json|html)$/, '.json')}`, 'utf8'),
      ) as Golden;
      const outcome = await miner(
        { url: fixtureCase.url(server.origin), employer: 'Acme', jobTitle: 'Test Role', country: 'us' },
        AbortSignal.timeout(10_000),
      );
      tally.forms += 1;
      if (!golden.ok) {
        if (!outcome.ok && outcome.errorCode === golden.errorCode) tally.outcomes += 1;
        continue;
      }
      if (outcome.ok) tally.outcomes += 1;
      const actual = flatten(outcome.ok ? outcome.form.questions : []);
      for (const [key, expected] of flatten(golden.questions)) {
        tally.expected += 1;
        const found = actual.get(key);
        if (!found) continue;
        tally.found += 1;
        const same = {
          inputType: found.inputType === expected.inputType,
          mandatory: found.mandatory === expected.mandatory,
          options: optionsOf(found) === optionsOf(expected),
          category: found.category === expected.category,
        };
        for (const [field, ok] of Object.entries(same) as Array<[keyof typeof same, boolean]>) if (ok) tally[field] += 1;
        if (Object.values(same).every(Boolean)) tally.exact += 1;
      }
    }
  } finally {
    await close();
    await server.close();
  }
  const total = emptyTally();
  const rows = [...tallies.entries()].map(([group, tally]) => {
    for (const key of Object.keys(total) as Array<keyof Tally>) total[key] += tally[key];
    return row(group, tally);
  });
  printTable(
    'mining accuracy against the reviewed goldens (packages/miner/fixtures/expected)',
    ['ATS', 'forms', 'outcome as expected', 'questions expected', 'found', 'inputType', 'mandatory', 'options', 'category', 'exact'],
    [...rows, row('all', total)],
  );
}

function row(group: string, tally: Tally): Array<string | number> {
  return [
    group,
    tally.forms,
    `${tally.outcomes}/${tally.forms}`,
    tally.expected,
    `${tally.found} (${percent(tally.found, tally.expected)})`,
    percent(tally.inputType, tally.found),
    percent(tally.mandatory, tally.found),
    percent(tally.options, tally.found),
    percent(tally.category, tally.found),
    percent(tally.exact, tally.expected),
  ];
}
