import { createChromiumPool, type ChromiumPool } from '@quarry/miner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from './applier-port.ts';
import { ashbyHostedCase, bamboohrHostedCase, breezyHostedCase, greenhouseHostedCase, jazzhrHostedCase, leverHostedCase, manatalHostedCase, recruiteeHostedCase, sameValue, smartRecruitersHostedCase, startWorkdayCase, teamtailorHostedCase, workdayHostedCase, workableHostedCase, type ApplyCase, type CaseApplication, type RunningCase } from './hosted-cases.test-support.ts';

let pool: ChromiumPool;
beforeAll(() => {
  pool = createChromiumPool({ executablePath: '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 1 });
});
afterAll(async () => {
  await pool?.close();
});

const code = (outcome: SubmitOutcome) => (outcome.status === 'failed' ? outcome.errorCode : outcome.status);
const message = (outcome: SubmitOutcome) => (outcome.status === 'success' ? outcome.confirmation.text : outcome.message);

async function send(application: CaseApplication): Promise<{ outcome: SubmitOutcome; hookCalls: number }> {
  let hookCalls = 0;
  const outcome = await application.send({
    beforeSubmit: async () => {
      hookCalls += 1;
    },
  });
  return { outcome, hookCalls };
}

// Each application drives Chromium through a whole vendor form: minutes for a vendor on a loaded machine.
describe.each<[string, ApplyCase, string]>([
  ['Greenhouse', greenhouseHostedCase, 'e-mailed security code on the Greenhouse form'],
  ['Lever', leverHostedCase, 'hCaptcha on the Lever form'],
  ['Ashby', ashbyHostedCase, 'Google reCAPTCHA on the Ashby form'],
  ['Workable', workableHostedCase, 'Cloudflare Turnstile on the Workable form'],
  ['JazzHR', jazzhrHostedCase, 'Google reCAPTCHA on the JazzHR form'],
  ['BambooHR', bamboohrHostedCase, 'Google reCAPTCHA on the BambooHR form'],
  ['Breezy', breezyHostedCase, 'e-mailed security code on the Breezy form'],
  // The research found no bot check on Recruitee's careers page: the double has none to show.
  ['Recruitee', recruiteeHostedCase, ''],
  ['SmartRecruiters', smartRecruitersHostedCase, 'DataDome on the SmartRecruiters form'],
  ['Manatal', manatalHostedCase, 'AWS WAF'],
  ['Teamtailor', teamtailorHostedCase, 'proof-of-work wall on the Teamtailor form'],
  // Workday documents no bot check on its steps: the account is its wall.
  ['Workday', workdayHostedCase, ''],
])('%s hosted form', (_name, applyCase, botCheckMessage) => {
  let running: RunningCase;
  beforeAll(async () => {
    running = await applyCase.start(pool);
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });
  const application = (variant: string) => {
    const found = running.applications.find((candidate) => candidate.variant === variant);
    if (!found) throw new Error(`no ${variant} application`);
    return found;
  };

  it('delivers every answer under the vendor field name in its encoding, files byte for byte, the intent recorded before the first write', async () => {
    const accept = application('accept');
    const { outcome, hookCalls } = await send(accept);
    expect(outcome.status, message(outcome)).toBe('success');
    expect(hookCalls).toBe(1);
    expect(accept.writes().beforeIntent).toBe(0);
    const received = accept.received();
    const wrong = accept.fields.filter((field) => !sameValue(field.value, received.get(field.name))).map((field) => ({ name: field.name, expected: field.value, received: received.get(field.name) }));
    expect(wrong).toEqual([]);
  }, 240_000);

  it('maps each of the vendor refusals to its code, and nothing reaches the vendor before the intent', async () => {
    for (const refusal of running.applications.filter((candidate) => candidate.variant !== 'accept')) {
      const { outcome, hookCalls } = await send(refusal);
      expect({ variant: refusal.variant, code: code(outcome), message: message(outcome) }).toMatchObject({ variant: refusal.variant, code: refusal.expected });
      expect(refusal.writes().beforeIntent).toBe(0);
      if (hookCalls === 0) expect(refusal.writes().total).toBe(0);
      if (refusal.variant === 'botCheck') expect(message(outcome)).toContain(botCheckMessage);
      if (refusal.variant === 'closed') expect(hookCalls).toBe(0);
    }
  }, 600_000);
});

it('reports a bot check shown on load before anything is written (Ashby: no answer saved, no file uploaded)', async () => {
  const running = await ashbyHostedCase.start(pool);
  try {
    const wall = running.applications.find((candidate) => candidate.variant === 'botCheck');
    const { outcome, hookCalls } = await send(wall as CaseApplication);
    expect(code(outcome)).toBe('BotDetection');
    expect(outcome).toMatchObject({ submitted: false });
    expect(hookCalls).toBe(0);
    expect(wall?.writes().total).toBe(0);
  } finally {
    await running.close();
  }
}, 180_000);

it('ends a Teamtailor knockout answer as excluded before the first upload: no intent, no file, no post', async () => {
  const running = await teamtailorHostedCase.start(pool);
  try {
    const knockout = running.applications.find((candidate) => candidate.variant === 'knockout') as CaseApplication;
    const { outcome, hookCalls } = await send(knockout);
    expect({ code: code(outcome), submitted: outcome.status === 'failed' && outcome.submitted }).toEqual({ code: 'MandatoryQuestionsNotAnswered', submitted: false });
    expect(message(outcome)).toContain('Teamtailor says "You have to meet these requirements to be able to apply"');
    expect(hookCalls).toBe(0);
    expect(knockout.writes().total).toBe(0);
  } finally {
    await running.close();
  }
}, 180_000);

describe('Workday with the client\'s tenant account', () => {
  let workday: Awaited<ReturnType<typeof startWorkdayCase>>;
  beforeAll(async () => {
    workday = await startWorkdayCase(pool);
  }, 120_000);
  afterAll(async () => {
    await workday?.running.close();
  });
  const application = (variant: string) => workday.running.applications.find((candidate) => candidate.variant === variant) as CaseApplication;
  const cxs = '/wday/cxs/acme/External';

  it('signs in once on the account wall, then saves My Information, My Experience, Application Questions and Voluntary Disclosures in turn and submits from Review', async () => {
    workday.double.events.length = 0;
    const before = workday.signIns().length;
    const { outcome, hookCalls } = await send(application('accept'));
    expect(outcome.status, message(outcome)).toBe('success');
    expect(hookCalls).toBe(1);
    expect(workday.signIns().slice(before)).toEqual([{ email: 'ada@example.com', accepted: true }]);
    expect(workday.double.events.filter((event) => !event.startsWith('GET'))).toEqual([
      `early ${cxs}/jobapplication/myInformation`,
      `early ${cxs}/attachments`,
      `early ${cxs}/jobapplication/myExperience`,
      `early ${cxs}/jobapplication/primaryQuestionnaire`,
      `early ${cxs}/jobapplication/voluntaryDisclosures`,
      `POST ${cxs}/jobapplication/submit`,
    ]);
  }, 240_000);

  it('without an account the wall ends it LoginRequired, before anything is typed or saved', async () => {
    const before = workday.signIns().length;
    const { outcome, hookCalls } = await send(application('noAccount'));
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(message(outcome)).toMatch(/^LoginRequired: Workday asks the candidate to sign in/);
    expect(hookCalls).toBe(0);
    expect(workday.signIns().length).toBe(before);
    expect(application('noAccount').writes().total).toBe(0);
  }, 120_000);

  it('a wrong password is tried once: LoginFailed with the tenant\'s words, and the next application with it signs in no more', async () => {
    const before = workday.signIns().length;
    const first = await send(application('wrongPassword'));
    expect(first.outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(message(first.outcome)).toMatch(/^LoginFailed: Workday refused the client's account for 127\.0\.0\.1:\d+: "Wrong email address or password\."/);
    expect(message(first.outcome)).not.toContain('not the password');
    const second = await send(application('wrongPassword'));
    expect(second.outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed' });
    expect(message(second.outcome)).toMatch(/^LoginFailed: .*refused at an earlier sign-in/);
    expect(workday.signIns().slice(before)).toEqual([{ email: 'ada@example.com', accepted: false }]);
    expect(first.hookCalls + second.hookCalls).toBe(0);
    expect(application('wrongPassword').writes().total).toBe(0);
  }, 180_000);
});
