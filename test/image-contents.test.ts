import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * What the container image (infra/Dockerfile, built with the repository root as its context)
 * holds, read the way Docker reads it: the `.dockerignore` rules decide the build context, and the
 * runtime stage's `COPY` instructions decide what of the context lands in the image. The image must
 * hold no test, test double or test support: they live in packages/testing, whose manifest alone
 * reaches the image (the workspace install reads it).
 */

const root = new URL('../', import.meta.url);
const repoFile = (path: string) => readFileSync(new URL(path, root), 'utf8');

type Rule = { exclusion: boolean; pattern: RegExp };

/**
 * A `.dockerignore` as Docker's pattern matcher (moby/patternmatcher) reads it: `#` lines are
 * comments, a leading `/` is dropped, `*` and `?` stay within one path segment, `**` spans any
 * number of segments (`**\/` also none), `!` re-includes, and the last rule matching a path or one
 * of its parent folders wins.
 */
function readIgnoreRules(text: string): Rule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclusion = line.startsWith('!');
      const glob = (exclusion ? line.slice(1).trim() : line).replace(/^\/+/, '').replace(/\/+$/, '');
      let source = '';
      for (let i = 0; i < glob.length; i += 1) {
        const char = glob[i]!;
        if (char === '*' && glob[i + 1] === '*') {
          i += 1;
          if (glob[i + 1] === '/') i += 1;
          source += i + 1 === glob.length ? '.*' : '(.*/)?';
        } else if (char === '*') source += '[^/]*';
        else if (char === '?') source += '[^/]';
        else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { exclusion, pattern: new RegExp(`^${source}$`) };
    });
}

function ignored(rules: Rule[], file: string): boolean {
  const parts = file.split('/');
  const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let excluded = false;
  for (const rule of rules) {
    if (candidates.some((path) => rule.pattern.test(path))) excluded = !rule.exclusion;
  }
  return excluded;
}

/** The runtime stage's `COPY <context path> <dest>` sources (copies from other stages excluded), and the stages it copies from. */
function runtimeCopies(dockerfile: string): { fromContext: string[]; fromStages: string[] } {
  const stages = dockerfile.split(/^FROM /m);
  const runtime = stages.find((stage) => /^\S+ AS runtime\b/.test(stage));
  if (!runtime) throw new Error('infra/Dockerfile has no stage named runtime');
  const copies = [...runtime.matchAll(/^COPY (.+)$/gm)].map((match) => match[1]!.trim().split(/\s+/));
  return {
    fromContext: copies
      .filter((words) => !words[0]!.startsWith('--from='))
      .flatMap((words) => words.filter((word) => !word.startsWith('--')).slice(0, -1)),
    fromStages: copies.filter((words) => words[0]!.startsWith('--from=')).map((words) => words[0]!.slice('--from='.length)),
  };
}

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
const rules = readIgnoreRules(repoFile('.dockerignore'));
const context = tracked.filter((file) => !ignored(rules, file));
const dockerfile = repoFile('infra/Dockerfile');
const copies = runtimeCopies(dockerfile);
const inImage = context.filter((file) =>
  copies.fromContext.some((source) => source === '.' || file === source || file.startsWith(`${source.replace(/\/$/, '')}/`)),
);

/** Tests, doubles and test support by name, and everything of the testing package but its manifest. */
const testOnly = (file: string) =>
  /\.(test|double|test-support)\.|(^|\/)(test-support|fixtures)\//.test(file) ||
  (file.startsWith('packages/testing/') && file !== 'packages/testing/package.json');

describe('the container image', () => {
  it('reads the ignore rules as Docker does', () => {
    const sample = readIgnoreRules('**/node_modules\n*.log\npackages/testing\n!packages/testing/package.json\n**/*.test.*');
    expect(ignored(sample, 'node_modules/x/index.js')).toBe(true);
    expect(ignored(sample, 'packages/miner/node_modules/x.js')).toBe(true);
    expect(ignored(sample, 'a.log')).toBe(true);
    expect(ignored(sample, 'logs/a.log')).toBe(false);
    expect(ignored(sample, 'packages/testing/src/index.ts')).toBe(true);
    expect(ignored(sample, 'packages/testing/package.json')).toBe(false);
    expect(ignored(sample, 'packages/mail/src/mail.test.ts')).toBe(true);
    expect(ignored(sample, 'packages/mail/src/mail.ts')).toBe(false);
  });

  it('copies the product sources from the context and only manifests from the install stages', () => {
    expect(copies.fromContext.sort()).toEqual(['apps', 'packages']);
    expect(copies.fromStages).toEqual(['deps']);
    // deps installs from the manifests stage, which keeps package.json files and the lockfile only.
    expect(dockerfile).toMatch(/^COPY --from=manifests \/manifests\/ \.\/$/m);
    expect(dockerfile).toMatch(/cp package-lock\.json \/manifests\/ \\\n && find \. -name package\.json /);
    expect(inImage).toEqual(
      expect.arrayContaining([
        'apps/quarry/src/main.ts',
        'packages/miner/src/index.ts',
        'packages/hosted-form-apply/src/browser.applier.ts',
        'packages/testing/package.json',
      ]),
    );
  });

  it('holds no test, test double, test support or fixture', () => {
    // Sanity: the repository has such files, so an empty list below means the rules keep them out.
    expect(tracked.filter(testOnly).length).toBeGreaterThan(100);
    expect(inImage.filter(testOnly)).toEqual([]);
  });

  it('holds no source that imports the testing package, which the image does not hold', () => {
    const sources = inImage.filter((file) => file.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((file) => /from '@quarry\/testing[/']/.test(repoFile(file)))).toEqual([]);
  });

  it('holds no secret', () => {
    expect(ignored(rules, '.env')).toBe(true);
    expect(ignored(rules, '.env.production')).toBe(true);
  });
});
