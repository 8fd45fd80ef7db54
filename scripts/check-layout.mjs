#!/usr/bin/env node
// Guardrail (`npm run guardrails`): what the layout promises and no other check sees.
// 1. Doubles and test support live in the testing package (and the test/ suites), never in the
//    product's packages or apps: no `*.double.ts`, `*.fake.ts`, `*.test-support.ts`, a package's
//    `test-support/`, or a product source file that imports `@quarry/testing`.
// 2. A source file over 400 lines (tests and fixtures aside) says why, in a comment that begins
//    `Longer than 400 lines:`; anything else is split.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const maxLines = 400;
const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', 'apps', 'packages', 'bench', 'scripts'], { encoding: 'utf8' })
  .split('\n')
  .filter((path) => /\.(ts|mts)$/.test(path));
const isTest = (path) => /\.test\.ts$/.test(path) || /(^|\/)test\//.test(path);
const isTesting = (path) => path.startsWith('packages/testing/');
const isFixture = (path) => /(^|\/)fixtures?\//.test(path);
const problems = [];

for (const path of files) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    continue; // deleted in the work tree
  }
  const product = !isTest(path) && !isTesting(path) && !path.startsWith('bench/');
  if (product && /\.(double|fake)\.ts$/.test(path)) problems.push(`${path}: a double in product code; move it to packages/testing`);
  // An app's own test builder (`apps/*/src/test-support/`) may stay beside the app it builds: packages
  // cannot import apps, and `.dockerignore` keeps it out of the image (ADR 0058).
  const appTestSupport = /^apps\/[^/]+\/src\/test-support\//.test(path);
  if (product && !appTestSupport && /(^|\/)test-support\/|\.test-support\.ts$/.test(path)) problems.push(`${path}: test support in product code; move it to packages/testing`);
  if (product && /from\s+['"]@quarry\/testing(\/[^'"]*)?['"]/.test(text)) problems.push(`${path}: product code imports @quarry/testing`);
  if (!isTest(path) && !isFixture(path)) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > maxLines && !/(\/\/|\*)\s*Longer than 400 lines:/.test(text)) {
      problems.push(`${path}: ${lines} lines; split it, or say why it is one file in a comment beginning "Longer than 400 lines:"`);
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(`check-layout: ${problems.length} problem(s)\n${problems.map((problem) => `  ${problem}`).join('\n')}\n`);
  process.exit(1);
}
