import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mailProcessNodeOptions } from './mail-process.ts';

const repoFile = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The young generation's size once it has had reason to grow: many objects surviving scavenges. */
const grownYoungGeneration = `
  const kept = [];
  for (let i = 0; i < 3e6; i += 1) { kept.push({ i, text: 'x' + i }); if (kept.length > 200000) kept.splice(0, 100000); }
  const young = require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  process.stdout.write(String(young.space_size));
`;

describe("the mail process's Node options", () => {
  it('are those its compose and Kubernetes services and `npm start` run with', () => {
    // The mail service, and the one process of every role.
    for (const service of ['mail', 'all']) {
      const composeService = new RegExp(`\\n {2}${service}:\\n((?: {4}.*\\n|\\n)*)`).exec(repoFile('docker-compose.yml'))?.[1] ?? '';
      expect(/^ {6}NODE_OPTIONS: (.+)$/m.exec(composeService)?.[1]).toBe(mailProcessNodeOptions);
    }
    expect(/- name: NODE_OPTIONS\n\s+value: (.+)\n/.exec(repoFile('infra/k8s/mail.yaml'))?.[1]).toBe(mailProcessNodeOptions);
    expect(/^exec node (.+) apps\/quarry\/src\/main\.ts start/m.exec(repoFile('scripts/start.sh'))?.[1]).toBe(mailProcessNodeOptions);
  });

  it('keep the young generation within two 16 MB semi-spaces, whatever the memory of the host', () => {
    const bytes = Number(
      execFileSync(process.execPath, [...mailProcessNodeOptions.split(' '), '-e', grownYoungGeneration], { encoding: 'utf8' }),
    );
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(2 * 16 * 1024 * 1024);
  });
});
