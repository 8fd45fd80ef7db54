import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configVariableNames } from '@quarry/config';
import { miningErrorCodes } from '@quarry/contracts';
import { describe, expect, it } from 'vitest';

// Claims README.md makes about the code, checked against the code itself.
const root = new URL('../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const scripts = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

/** The body rows of every `| variable | default | meaning |` table, as cells. */
function configurationRows(): string[][] {
  const rows: string[][] = [];
  const lines = readme.split('\n');
  lines.forEach((line, index) => {
    if (!/^\|\s*variable\s*\|\s*default\s*\|\s*meaning\s*\|$/.test(line.trim())) return;
    for (const row of lines.slice(index + 2)) {
      if (!row.startsWith('|')) break;
      rows.push(
        row
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim()),
      );
    }
  });
  return rows;
}

const codeOf = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe('README.md configuration tables', () => {
  const rows = configurationRows();
  const documented = new Set(rows.flatMap((row) => codeOf(row[0]!)));

  it('list every variable the configuration reads', () => {
    expect(configVariableNames.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('list no variable the configuration does not read', () => {
    expect([...documented].filter((name) => !configVariableNames.includes(name))).toEqual([]);
  });

  it('give every variable a default (or say it has none)', () => {
    expect(rows.filter((row) => !row[1])).toEqual([]);
  });
});

describe('README.md commands', () => {
  it('mention only `npm run` scripts that package.json has', () => {
    const mentioned = [...new Set([...readme.matchAll(/npm run ([A-Za-z][\w:-]*)/g)].map((match) => match[1]!))];
    expect(mentioned.length).toBeGreaterThan(0);
    expect(mentioned.filter((name) => !scripts.includes(name))).toEqual([]);
  });
});

describe('README.md mining error codes', () => {
  const lines = readme.split('\n');
  const header = lines.findIndex((line) => /^\|\s*mining errorCode\s*\|/.test(line));
  const rows = lines.slice(header + 2).filter((_line, index, rest) => rest.slice(0, index + 1).every((row) => row.startsWith('|')));

  it('has a row, with a meaning and what to do, for every code the miner reports', () => {
    expect(header).toBeGreaterThan(0);
    const documented = rows.map((row) => codeOf(row.split('|')[1] ?? '')[0]);
    expect(documented).toEqual([...miningErrorCodes]);
    expect(rows.filter((row) => row.split('|').filter((cell) => cell.trim()).length !== 3)).toEqual([]);
  });
});
