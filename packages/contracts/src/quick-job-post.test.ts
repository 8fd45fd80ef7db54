import { describe, expect, it } from 'vitest';
import { JobPostInput, quickJobPostInput } from './recruitment.ts';

// Cells that sit on the edges of the schema: whitespace zod trims, lengths at the limits,
// URLs that parse only one way or not at all, country codes in and out of shape.
const texts = [
  'post-1',
  ' padded',
  'padded ',
  '\tx',
  'x\n',
  '\u00a0nbsp',
  'é-accent',
  'a',
  '',
  ' ',
  'x'.repeat(200),
  'x'.repeat(201),
  'y'.repeat(500),
  'y'.repeat(501),
  'mid dle',
  undefined,
];
const urls = [
  'https://careers.example.com/jobs/1',
  'http://example.com',
  'HTTPS://EXAMPLE.COM/',
  'ftp://example.com/',
  'http:example.com',
  'https:///x',
  'http:///',
  'http://:80/',
  'http://[::1]/',
  'https://é.com/',
  'https://a b/',
  ' https://example.com/',
  'https://example.com/ ',
  `https://example.com/${'p'.repeat(2048 - 20)}`,
  `https://example.com/${'p'.repeat(2048)}`,
  'mailto:x@example.com',
  '',
  undefined,
];
const countries = ['gb', 'us', 'GB', 'gbr', 'g', '', 'g1', undefined];

/** mulberry32: a seeded generator, so a failure names a row that reproduces. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('quickJobPostInput', () => {
  it('accepts only rows JobPostInput accepts, with the same parsed values', () => {
    const random = seededRandom(20261122);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    let accepted = 0;
    for (let round = 0; round < 20_000; round += 1) {
      const row = { jobPostId: pick(texts), url: pick(urls), employer: pick(texts), jobTitle: pick(texts), country: pick(countries) };
      const quick = quickJobPostInput(row);
      if (quick === null) continue;
      accepted += 1;
      const parsed = JobPostInput.safeParse(row);
      expect(parsed.success, JSON.stringify(row)).toBe(true);
      expect(quick).toEqual(parsed.data);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes the plain rows of a batch without asking zod', () => {
    expect(
      quickJobPostInput({ jobPostId: 'post-7', url: 'https://careers.example.com/jobs/7', employer: 'Acme', jobTitle: 'Engineer' }),
    ).toEqual({ jobPostId: 'post-7', url: 'https://careers.example.com/jobs/7', employer: 'Acme', jobTitle: 'Engineer', country: 'gb' });
    expect(
      quickJobPostInput({
        jobPostId: 'post-7',
        url: 'https://careers.example.com/jobs/7',
        employer: 'Acme',
        jobTitle: 'Engineer',
        country: 'nl',
      })?.country,
    ).toBe('nl');
  });

  it('leaves to zod what it is not sure of', () => {
    const base = { jobPostId: 'post-7', url: 'https://careers.example.com/jobs/7', employer: 'Acme', jobTitle: 'Engineer' };
    expect(quickJobPostInput({ ...base, jobPostId: ' post-7' })).toBeNull();
    expect(quickJobPostInput({ ...base, url: 'ftp://careers.example.com/' })).toBeNull();
    expect(quickJobPostInput({ ...base, url: 'http://:80/' })).toBeNull();
    expect(quickJobPostInput({ ...base, country: 'GB' })).toBeNull();
    expect(quickJobPostInput({ ...base, employer: '' })).toBeNull();
  });
});
