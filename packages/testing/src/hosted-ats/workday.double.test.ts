import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedAtsDouble, type HostedAtsDouble } from './hosted-ats.double.ts';
import { workdayHostedVendor, workdayQuestions } from './workday.double.ts';

// What the double serves, against the captures it is built from (the miner's Workday fixtures).
const fixture = (name: string) => readFile(new URL(`../../../miner/fixtures/ats/workday/${name}`, import.meta.url), 'utf8');
let double: HostedAtsDouble;

beforeAll(async () => {
  double = await startHostedAtsDouble(workdayHostedVendor({ email: 'ada@example.com', password: 'correct horse battery staple' }));
});
afterAll(async () => {
  await double?.close();
});

const page = async (path: string) => (await fetch(`${double.origin}${path}`)).text();

describe('the Workday double against its fixtures', () => {
  it('serves the open posting as captured, with only a canonical link and a style added to its head', async () => {
    double.setVariant('accept');
    const served = await page(new URL(double.url).pathname);
    const added = /<link rel="canonical" href="https:\/\/acme\.wd5\.myworkdayjobs\.com\/[^"]+"><style>[^<]*<\/style>/;
    expect(served).toMatch(added);
    expect(served.replace(added, '')).toBe(await fixture('posting-open-d.html'));
    // Its Apply link is the fixture's own, and leads to the double's "Start Your Application".
    const apply = /data-automation-id="adventureButton" role="button" href="([^"]+)"/.exec(served)?.[1];
    expect(await page(apply ?? '/missing')).toContain('data-automation-id="applyManually"');
  });

  it('words a closed posting as measured: errorContainer > errorMessage, "Search for Jobs", no Apply', async () => {
    double.setVariant('closed');
    const served = await page(new URL(double.url).pathname);
    expect(served).toMatch(/data-automation-id="errorContainer"><h2 data-automation-id="errorMessage">The page you are looking for doesn't exist\.<\/h2><button type="button">Search for Jobs<\/button>/);
    expect(served).not.toContain('adventureButton');
    double.setVariant('accept');
  });

  it('models My Experience on form.html: the same field keys, in order, with the same labels and required marks', async () => {
    const form = await fixture('form.html');
    const fields = [...form.matchAll(/data-automation-id="formField-(\w+)"><label[^>]*>([^<]*)<\/label>/g)].map(([, key, label]) => ({
      id: key,
      question: label?.replace(/\*$/, ''),
      mandatory: label?.endsWith('*'),
    }));
    // Plus the Resume/CV box of upload.html.
    const experience = workdayQuestions().filter((question) => question.label === 'My Experience');
    expect(experience.map(({ id, question, mandatory }) => ({ id, question, mandatory }))).toEqual([...fields, { id: 'resume', question: 'Resume/CV', mandatory: true }]);
    expect(await fixture('upload.html')).toContain('<h3>Resume/CV</h3>');
    const degree = experience.find((question) => question.id === 'degree');
    const listed = [...form.matchAll(/<div role="option">([^<]+)<\/div>/g)].map(([, option]) => option);
    expect(degree?.options?.map((option) => option.answer)).toEqual(listed);
  });
});
