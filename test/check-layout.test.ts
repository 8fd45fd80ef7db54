import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../scripts/check-layout.mjs', import.meta.url));
const folders: string[] = [];

/** A repository of its own holding `files`, checked by the guardrail. */
function check(files: Record<string, string>): { status: number | null; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'quarry-layout-'));
  folders.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: root });
  const run = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: run.stderr };
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const lines = (count: number, first = '') => `${first}\n${'export const x = 1;\n'.repeat(count)}`;

describe('the layout guardrail', () => {
  it('passes doubles and test support in the testing package, and long files that say why', () => {
    const result = check({
      'packages/testing/src/vendor.double.ts': 'export {};\n',
      'packages/mail/src/mail.test.ts': "import { x } from '@quarry/testing';\n",
      'apps/api/src/test-support/edge-app.ts': 'export {};\n',
      'packages/config/src/config.ts': lines(450, '// Longer than 400 lines: one schema the roles select from.'),
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('names a double, test support or a testing import in product code, and a long file with no reason', () => {
    const result = check({
      'packages/ats/src/vendor.double.ts': 'export {};\n',
      'packages/mail/src/test-support/smtp.ts': 'export {};\n',
      'packages/rates/src/rates.ts': "import { startHotel } from '@quarry/testing/hotels';\n",
      'packages/bookings/src/bookings.queries.ts': lines(450),
    });
    expect(result.status).toBe(1);
    expect(result.output).toContain('packages/ats/src/vendor.double.ts: a double in product code');
    expect(result.output).toContain('packages/mail/src/test-support/smtp.ts: test support in product code');
    expect(result.output).toContain('packages/rates/src/rates.ts: product code imports @quarry/testing');
    expect(result.output).toContain('packages/bookings/src/bookings.queries.ts: 451 lines');
  });
});
