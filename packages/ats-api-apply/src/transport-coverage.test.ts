import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as atsApply from './index.ts';
import type { TransportCoverage } from './vendor-transport.ts';

// The README's ATS table states what each vendor transport carries: checked against the code's lists.
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const coverages = Object.entries(atsApply)
  .filter(([name]) => name.endsWith('ApiCoverage'))
  .map(([, value]) => value as TransportCoverage);

/** The README's row of the vendor-API table for a vendor, by its first cell. */
function rowOf(vendor: string): string | undefined {
  const table = readme.split('\n| ATS | vendor API (`authorizedApi`) |')[1]?.split('\n\n')[0] ?? '';
  return table.split('\n').find((line) => line.toLowerCase().startsWith(`| ${vendor.toLowerCase().replace(/ hr$/, '')} |`));
}

describe('the vendor transports and the README', () => {
  it('has a coverage list for every vendor the router sends to', () => {
    expect(coverages.map((coverage) => coverage.vendor.toLowerCase().replace(/ hr$/, '')).sort()).toEqual(
      ['ashby', 'bamboohr', 'breezy', 'greenhouse', 'jazzhr', 'lever', 'recruitee', 'smartrecruiters', 'teamtailor', 'workable'].sort(),
    );
  });

  it.each(coverages.map((coverage) => [coverage.vendor, coverage] as const))(
    'lists in the README every field %s carries, with the sources that document them, and what goes to the page',
    (vendor, coverage) => {
      const row = rowOf(vendor);
      expect(row, `no README row for ${vendor}`).toBeDefined();
      for (const field of coverage.fields) {
        expect(field.source, `${vendor} ${field.field}`).toMatch(/^https:\/\//);
        expect(row, `${vendor}: ${field.field}`).toContain(`\`${field.field}\``);
        expect(row, `${vendor}: ${field.source}`).toContain(field.source);
      }
      for (const page of coverage.hostedFormOnly) expect(row, `${vendor}: ${page.what}`).toContain(page.what);
    },
  );
});
