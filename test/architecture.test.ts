import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jobCatalog, type JobName } from '@quarry/jobs';
import { describe, expect, it } from 'vitest';

// Claims docs/ARCHITECTURE.md makes about the code, checked against the code itself.
const root = new URL('../', import.meta.url).pathname;
const architecture = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');

/** The body rows of the markdown table under `heading`, as cells. */
function tableUnder(heading: string): string[][] {
  const section = architecture.split(`\n## ${heading}\n`)[1];
  if (!section) throw new Error(`ARCHITECTURE.md has no "## ${heading}" section`);
  const lines = section
    .split('\n## ')[0]!
    .split('\n')
    .filter((line) => line.startsWith('|'));
  return lines.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

const codeOf = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

/** Every non-test source file of the app a role file belongs to (a role's handler map may use a helper of its app). */
function appSource(roleFile: string): string {
  const folder = join(root, roleFile, '..');
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(folder, file), 'utf8'))
    .join('\n');
}

describe('ARCHITECTURE.md "Where each job runs"', () => {
  const rows = tableUnder('Where each job runs');

  it('has a row for every job of the catalog, and none for a job the catalog lacks', () => {
    const listed = rows.map((row) => codeOf(row[0]!)[0]);
    expect([...listed].sort()).toEqual(Object.keys(jobCatalog).sort());
  });

  it('names role files whose handler maps have the job, and the use case the handler calls', () => {
    for (const [jobCell, roleCell, handlerCell, useCaseCell] of rows) {
      const job = codeOf(jobCell!)[0] as JobName;
      const roleFiles = codeOf(roleCell!);
      expect(roleFiles.length, job).toBeGreaterThan(0);
      expect(codeOf(handlerCell!)[0], job).toBe(`'${job}'`);
      for (const roleFile of roleFiles) {
        expect(roleFile, job).toMatch(/^apps\/[a-z-]+\/src\/[a-z-]+\.role\.ts$/);
        expect(existsSync(join(root, roleFile)), roleFile).toBe(true);
        const source = appSource(roleFile);
        expect(source, `${roleFile} has no handler for ${job}`).toContain(`'${job}': `);
        const useCase = codeOf(useCaseCell!)[0]!;
        expect(source, `${roleFile} does not call ${useCase}`).toMatch(
          new RegExp(`\\b(${useCase}|${codeOf(useCaseCell!)[1] ?? useCase})\\b`),
        );
      }
    }
  });
});

describe('ARCHITECTURE.md "Apps and packages"', () => {
  it('lists, for each app and package, exactly the workspace packages its package.json depends on', () => {
    const workspaces = ['apps', 'packages']
      .flatMap((parent) => readdirSync(join(root, parent)).map((name) => `${parent}/${name}`))
      .filter((folder) => existsSync(join(root, folder, 'package.json')));
    const names = new Map(
      workspaces.map((folder) => [
        (JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { name: string }).name.replace('@quarry/', ''),
        folder,
      ]),
    );
    const rows = tableUnder('Apps and packages').filter((row) => /^`(apps|packages)\//.test(row[0]!));
    expect(rows.map((row) => codeOf(row[0]!)[0]).sort()).toEqual([...workspaces].sort());
    for (const [folderCell, , dependsOn] of rows) {
      const folder = codeOf(folderCell!)[0]!;
      const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      const declared = Object.keys(manifest.dependencies ?? {})
        .filter((name) => name.startsWith('@quarry/'))
        .map((name) => name.replace('@quarry/', ''))
        .sort();
      const listed = dependsOn!
        .split(',')
        .map((entry) => entry.trim().split(' ')[0]!)
        .filter((name) => names.has(name))
        .sort();
      expect(listed, folder).toEqual(declared);
    }
  });
});

describe('the API app holds no schemas', () => {
  // Routes parse with the schemas of packages/contracts and describe their paths with them: a schema
  // built in the app (a `z.…` call, or a contract reshaped with extend/omit/pick/partial) is a
  // contract the contracts package does not have.
  const apiSource = join(root, 'apps/api/src');
  const files = readdirSync(apiSource, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
  );

  it('finds the route files it checks', () => {
    expect(files.filter((file) => file.endsWith('.routes.ts')).length).toBeGreaterThan(10);
  });

  it('has no file that imports zod or reshapes a contract', () => {
    const offenders = files.filter((file) => {
      const source = readFileSync(join(apiSource, file), 'utf8');
      return /from\s+['"]zod(\/[^'"]*)?['"]|import\(\s*['"]zod/.test(source) || /\.(extend|omit|pick|partial)\(/.test(source);
    });
    expect(offenders).toEqual([]);
  });
});

describe('test doubles and test support live in packages/testing', () => {
  // A product package holds its code and its tests; what tests share (doubles, fakes, cases, loopback
  // servers) lives in packages/testing (ADR 0058), so no product package exports it or ships it.
  const supportName = /(\.(double|test-support)\.ts|(^|\/)(test|fake)-[^/]*\.ts)$/;
  const products = readdirSync(join(root, 'packages')).filter(
    (name) => name !== 'testing' && existsSync(join(root, 'packages', name, 'package.json')),
  );

  it('finds the product packages it checks', () => {
    expect(products).toEqual(expect.arrayContaining(['hosted-form-apply', 'ats-api-apply', 'miner', 'safe-fetch']));
  });

  it('has no double or test support in a product package', () => {
    const misplaced = products.flatMap((name) =>
      readdirSync(join(root, 'packages', name, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((file) => !file.endsWith('.test.ts') && (supportName.test(file) || file.split('/').includes('test-support')))
        .map((file) => `packages/${name}/src/${file}`),
    );
    expect(misplaced).toEqual([]);
  });

  it('has no product package that exports more than its entry point', () => {
    for (const name of products) {
      const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as {
        exports?: Record<string, string> | string;
      };
      expect(Object.keys(typeof manifest.exports === 'object' ? manifest.exports : {}), name).toEqual(['.']);
    }
  });
});
