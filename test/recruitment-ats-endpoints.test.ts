import { readFileSync } from 'node:fs';
import { fixtureCases, fixturesDir, minerEndpointsFor, startAtsFixtureServer, type AtsFixtureServer } from '@quarry/testing/miner';
import { waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

// A deployment routes the ATS adapters' vendor calls through MINING_ATS_ENDPOINTS (a gateway);
// here the "vendors" are a loopback server, and the mining worker is a real quarry process.
let ats: AtsFixtureServer;
let stack: RecruitmentStack;

beforeAll(async () => {
  ats = await startAtsFixtureServer();
  stack = await startRecruitmentStack('ats-endpoints', { MINING_ATS_ENDPOINTS: JSON.stringify(minerEndpointsFor(ats.origin)) });
});
afterAll(async () => {
  await stack?.stop();
  await ats?.close();
});

describe('ATS endpoints from the environment', () => {
  it('mines JSON-defined forms through the configured vendor endpoints', async () => {
    for (const ats of ['workable', 'ashby', 'smartrecruiters']) {
      const found = fixtureCases.find((candidate) => candidate.ats === ats && !candidate.partial);
      if (!found) throw new Error(`no ${ats} fixture case`);
      const jobPostId = `ats-${ats}`;
      const submitted = await stack.call('/v1/recruitment/job-posts/mine/', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobPostId, url: found.url(stack.web.origin), employer: 'Acme', jobTitle: 'Engineer' }),
      });
      expect(submitted.status).toBe(200);
      const result = await waitFor(
        `${ats} mined`,
        async () => {
          const body = (await (await stack.call(`/questions/${jobPostId}`)).json()) as {
            questions?: Array<{ id: string }>;
            status?: string;
          };
          return body.questions || body.status === 'failed' ? body : undefined;
        },
        { timeoutMs: 20_000 },
      );
      const golden = JSON.parse(readFileSync(`${fixturesDir}expected/${found.fixture.replace(/\.\w+$/, '.json')}`, 'utf8')) as {
        questions: Array<{ id: string }>;
      };
      expect(result.questions?.map((question) => question.id)).toEqual(golden.questions.map((question) => question.id));
    }
  });
});
