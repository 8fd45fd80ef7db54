import { createChromiumPool, createSignInMemory, followToForm, signInOnce, type ChromiumPool } from '@quarry/browser';
import { createWorkdayMiner, workdayAccountWall, workdayFormLinks } from '@quarry/miner';
import { workdayJobPath } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedAnswer, SubmitOutcome } from './applier-port.ts';
import {
  ashbyHostedCase,
  candidate,
  hostedApplier,
  bamboohrHostedCase,
  breezyHostedCase,
  greenhouseHostedCase,
  jazzhrHostedCase,
  leverHostedCase,
  manatalHostedCase,
  recruiteeHostedCase,
  sameValue,
  smartRecruitersHostedCase,
  startWorkdayCase,
  teamtailorHostedCase,
  workdayAccount,
  workdayHostedCase,
  workableHostedCase,
  type ApplyCase,
  type CaseApplication,
  type RunningCase,
  type WorkdayCase,
} from '@quarry/testing/hosted-form-apply';

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
    const wrong = accept.fields
      .filter((field) => !sameValue(field.value, received.get(field.name)))
      .map((field) => ({ name: field.name, expected: field.value, received: received.get(field.name) }));
    expect(wrong).toEqual([]);
  }, 240_000);

  it('maps each of the vendor refusals to its code, and nothing reaches the vendor before the intent', async () => {
    for (const refusal of running.applications.filter((candidate) => candidate.variant !== 'accept')) {
      const { outcome, hookCalls } = await send(refusal);
      expect({ variant: refusal.variant, code: code(outcome), message: message(outcome) }).toMatchObject({
        variant: refusal.variant,
        code: refusal.expected,
      });
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
    expect({ code: code(outcome), submitted: outcome.status === 'failed' && outcome.submitted }).toEqual({
      code: 'MandatoryQuestionsNotAnswered',
      submitted: false,
    });
    expect(message(outcome)).toContain('Teamtailor says "You have to meet these requirements to be able to apply"');
    expect(hookCalls).toBe(0);
    expect(knockout.writes().total).toBe(0);
  } finally {
    await running.close();
  }
}, 180_000);

describe("Workday with the client's tenant account", () => {
  let workday: WorkdayCase;
  beforeAll(async () => {
    workday = await startWorkdayCase(pool);
  }, 120_000);
  afterAll(async () => {
    await workday?.running.close();
  });
  const application = (variant: string) =>
    workday.running.applications.find((candidate) => candidate.variant === variant) as CaseApplication;
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

  it("a wrong password is tried once: LoginFailed with the tenant's words, and the next application with it signs in no more", async () => {
    const before = workday.signIns().length;
    const first = await send(application('wrongPassword'));
    expect(first.outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(message(first.outcome)).toMatch(
      /^LoginFailed: Workday refused the client's account for 127\.0\.0\.1:\d+: "Wrong email address or password\."/,
    );
    expect(message(first.outcome)).not.toContain('not the password');
    const second = await send(application('wrongPassword'));
    expect(second.outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed' });
    expect(message(second.outcome)).toMatch(/^LoginFailed: .*refused at an earlier sign-in/);
    expect(workday.signIns().slice(before)).toEqual([{ email: 'ada@example.com', accepted: false }]);
    expect(first.hookCalls + second.hookCalls).toBe(0);
    expect(application('wrongPassword').writes().total).toBe(0);
  }, 180_000);

  // Mining saves every step with placeholders (the placeholder PDF in the Resume/CV box): the account's draft.
  const mine = async (tenant: WorkdayCase = workday) => {
    const mined = await createWorkdayMiner({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 60_000 })(
      { url: tenant.double.url, employer: 'Acme', jobTitle: 'Software Developer', country: 'gb' },
      AbortSignal.timeout(90_000),
      { account: tenant.account },
    );
    if (!mined.ok) throw new Error(`${mined.errorCode}: ${mined.detail}`);
  };
  /** The application as the account sees it when it opens it again: boxes, lists, ticks, pills and listed files of the draft. */
  const resumedPage = () =>
    pool.withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(workday.double.url);
      await followToForm(page, workdayFormLinks, workdayAccountWall);
      expect(await signInOnce(page, workdayAccountWall, workday.account, createSignInMemory())).toEqual({ signedIn: true });
      const field = (key: string) => page.locator(`[data-automation-id="formField-${key}"]`);
      const trimmed = (texts: string[]) => texts.map((text) => text.replace(/\s+/g, ' ').trim());
      return {
        firstName: await field('firstName').locator('input').inputValue(),
        source: (await field('source').locator('button').textContent())?.trim(),
        gender: (await field('gender').locator('button').textContent())?.trim(),
        startDate: [
          await field('startDate').locator('[aria-label="Month"]').inputValue(),
          await field('startDate').locator('[aria-label="Year"]').inputValue(),
        ],
        terms: await field('termsAndConditions').locator('input').isChecked(),
        offices: await field('offices')
          .locator('input:checked')
          .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value)),
        skills: trimmed(await field('skills').locator('[data-automation-id="selectedItem"]').allTextContents()),
        skillCharms: await field('skills').locator('[data-automation-id="selectedItem"] [data-automation-id="DELETE_charm"]').count(),
        files: trimmed(await field('resume').locator('[data-automation-id="file-upload-item"]').allTextContents()),
      };
    });
  /** Files as their name and bytes (base64) in one line, so a wrong one reads in the diff. */
  const readable = (values: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(values).map(([key, value]) => [
        key,
        Array.isArray(value)
          ? value.map((entry: unknown) =>
              Buffer.isBuffer((entry as { bytes?: unknown })?.bytes)
                ? `${(entry as { name: string }).name}: ${(entry as { bytes: Buffer }).bytes.toString('base64')}`
                : entry,
            )
          : value,
      ]),
    );
  /** What Submit must have sent: the candidate's answers as the tenant keeps them, the résumé by name and bytes, nothing else. */
  const applicationOf = (fields: CaseApplication['fields']) =>
    readable(Object.fromEntries(fields.filter((field) => field.name !== 'submitted').map((field) => [field.name, field.value])));
  const submittedSince = (count: number) =>
    workday.vendor.submitted.slice(count).map((sent) => ({ ...sent, values: readable(sent.values) }));

  it("resumes the draft mining left with the same account, and the employer gets exactly the candidate's answers and résumé, submitted once", async () => {
    await mine();
    const email = workdayAccount.email;
    expect(workday.vendor.draftOf(email)).toMatchObject({
      firstName: 'Jane',
      lastName: 'Doe',
      source: 'Job Board',
      resume: [{ name: 'jane-doe-cv.pdf' }],
    });
    // Opened again, the application shows the placeholders and lists the placeholder résumé with its Delete button.
    expect(await resumedPage()).toEqual({
      firstName: 'Jane',
      source: 'Job Board',
      gender: 'Select One',
      startDate: ['12', '2026'],
      terms: true,
      offices: [],
      skills: [],
      skillCharms: 0,
      files: ['jane-doe-cv.pdf Delete'],
    });

    const submittedBefore = workday.vendor.submitted.length;
    const accept = application('accept');
    const { outcome, hookCalls } = await send(accept);
    expect(outcome.status, message(outcome)).toBe('success');
    expect(hookCalls).toBe(1);
    expect(accept.writes().beforeIntent).toBe(0);
    expect(workday.double.submissions).toHaveLength(1);
    expect(submittedSince(submittedBefore)).toEqual([{ email, job: workdayJobPath, values: applicationOf(accept.fields) }]);
    expect(workday.vendor.draftOf(email)).toBeUndefined();
  }, 300_000);

  it('empties what an earlier attempt left in the draft that the candidate does not give: typed boxes, ticks, pills, files', async () => {
    await mine();
    const email = workdayAccount.email;
    const olderCv = { name: 'old-cv.pdf', bytes: Buffer.from('%PDF-1.4\nan older résumé\n%%EOF\n') };
    workday.vendor.keepInDraft(
      email,
      {
        addressLine1: '1 Draft Lane',
        postalCode: 'DR4 FT1',
        location: 'Draftford',
        current: true,
        roleDescription: 'Left in the draft.',
        skills: ['Excel', 'SQL'],
        offices: ['Manchester', 'London'],
        motivation: 'Draft motivation.',
        gender: 'Male',
        veteranStatus: 'I am a veteran',
      },
      { resume: [olderCv] },
    );
    expect(await resumedPage()).toMatchObject({
      offices: ['London', 'Manchester'],
      skills: ['Excel', 'SQL'],
      skillCharms: 2,
      files: ['jane-doe-cv.pdf Delete', 'old-cv.pdf Delete'],
      gender: 'Male',
    });

    // The candidate leaves the optional boxes, the tick, the motivation and the "Select One" lists
    // unanswered, and chooses other skills and offices.
    const unanswered = ['addressLine1', 'postalCode', 'location', 'current', 'roleDescription', 'motivation', 'gender', 'veteranStatus'];
    const chosen: Record<string, string[]> = { skills: ['Python'], offices: ['Remote'] };
    const answers: ResolvedAnswer[] = workday.answers
      .filter((answer) => !unanswered.includes(answer.id))
      .map((answer) => ({ ...answer, value: chosen[answer.id] ?? answer.value }));
    const writes = () => workday.double.earlyWrites.length + workday.double.submissions.length;
    const writesBefore = writes();
    const submitsBefore = workday.double.submissions.length;
    const submittedBefore = workday.vendor.submitted.length;
    const intents: number[] = [];
    const outcome = await hostedApplier(pool)(
      { url: workday.double.url, questions: workday.questions, answers, candidate, account: workday.account },
      { beforeSubmit: async () => void intents.push(writes()) },
      new AbortController().signal,
    );
    expect(outcome.status, message(outcome)).toBe('success');
    // The intent once, before the first write; one Submit.
    expect(intents).toEqual([writesBefore]);
    expect(workday.double.submissions.length - submitsBefore).toBe(1);
    const expected = applicationOf(
      application('accept')
        .fields.filter((field) => !unanswered.includes(field.name))
        .map((field) => ({ ...field, value: chosen[field.name] ?? field.value })),
    );
    expect(submittedSince(submittedBefore)).toEqual([{ email, job: workdayJobPath, values: expected }]);
    expect(workday.vendor.draftOf(email)).toBeUndefined();
  }, 300_000);

  it('a Yes/No the draft answered and the candidate leaves unanswered has no way back to none on its radios: the application stops before Submit, saying which', async () => {
    await mine();
    const email = workdayAccount.email;
    workday.vendor.keepInDraft(email, { relocation: true });
    const answers: ResolvedAnswer[] = workday.answers.filter((answer) => answer.id !== 'relocation');
    const submitsBefore = workday.double.submissions.length;
    const outcome = await hostedApplier(pool)(
      { url: workday.double.url, questions: workday.questions, answers, candidate, account: workday.account },
      { beforeSubmit: async () => {} },
      new AbortController().signal,
    );
    expect(outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
    expect(message(outcome)).toMatch(
      /question relocation: the resumed draft answers it, the candidate does not, and its radios offer no way back to no answer/,
    );
    expect(workday.double.submissions.length - submitsBefore).toBe(0);
    // The draft stays the account's, with the earlier answer, for the candidate to answer or the next attempt.
    expect(workday.vendor.draftOf(email)).toMatchObject({ relocation: true });
  }, 300_000);

  it('a tenant that resumed the draft past its saved steps (unmeasured) would show none of their placeholders to replace: the application stops before Submit', async () => {
    const later = await startWorkdayCase(pool, { resume: 'afterLastSaved' });
    try {
      await mine(later);
      // Mining saved every step: the draft opens on Review, whose Submit would send the placeholders.
      const accept = later.running.applications.find((candidate) => candidate.variant === 'accept') as CaseApplication;
      const { outcome, hookCalls } = await send(accept);
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
      expect(message(outcome)).toBe('no application form on the page');
      expect(hookCalls).toBe(0);
      expect(later.double.submissions).toHaveLength(0);
      expect(later.vendor.submitted).toEqual([]);
    } finally {
      await later.running.close();
    }
  }, 300_000);
});

describe('Workday on a shared myworkdaysite.com host, whose path names the tenant', () => {
  let shared: WorkdayCase;
  beforeAll(async () => {
    shared = await startWorkdayCase(pool, { address: 'sharedHost' });
  }, 120_000);
  afterAll(async () => {
    await shared?.running.close();
  });
  const application = (variant: string) =>
    shared.running.applications.find((candidate) => candidate.variant === variant) as CaseApplication;

  it('signs in with the account registered for host and tenant, and the employer gets every answer, submitted once', async () => {
    expect(shared.double.url).toMatch(/\/recruiting\/acme\/External\/job\//);
    const accept = application('accept');
    const { outcome, hookCalls } = await send(accept);
    expect(outcome.status, message(outcome)).toBe('success');
    expect(hookCalls).toBe(1);
    expect(shared.signIns()).toEqual([{ email: 'ada@example.com', accepted: true }]);
    expect(shared.double.submissions).toHaveLength(1);
    expect(accept.received()).toEqual(new Map(accept.fields.map((field) => [field.name, field.value])));
  }, 240_000);

  it('an account for the host alone, or for another tenant on it, is not typed: LoginRequired, nothing saved', async () => {
    const host = new URL(shared.double.origin).host;
    const before = shared.signIns().length;
    const writesBefore = shared.double.earlyWrites.length + shared.double.submissions.length;
    for (const board of [host, `${host}/globex`]) {
      const outcome = await hostedApplier(pool)(
        { url: shared.double.url, questions: shared.questions, answers: shared.answers, candidate, account: { ...shared.account, board } },
        { beforeSubmit: async () => {} },
        new AbortController().signal,
      );
      expect(outcome).toMatchObject({ status: 'failed', errorCode: 'ApplicationFailed', submitted: false });
      expect(message(outcome)).toContain(
        `LoginRequired: Workday asks the candidate to sign in to an account before the form (the client's Workday account is for ${board}, this page is on ${host}/acme)`,
      );
    }
    expect(shared.signIns().length).toBe(before);
    expect(shared.double.earlyWrites.length + shared.double.submissions.length).toBe(writesBefore);
  }, 240_000);
});

describe('Workday asking for a code it e-mailed to the account, past its password', () => {
  let asking: WorkdayCase;
  beforeAll(async () => {
    asking = await startWorkdayCase(pool, { emailCode: true });
  }, 120_000);
  afterAll(async () => {
    await asking?.running.close();
  });

  it('ends the application BotDetection naming Workday before anything is filled or recorded; the next one with the account signs in no more', async () => {
    const accept = asking.running.applications.find((candidate) => candidate.variant === 'accept') as CaseApplication;
    const first = await send(accept);
    expect(first.outcome).toMatchObject({ status: 'failed', errorCode: 'BotDetection', submitted: false });
    expect(message(first.outcome)).toMatch(
      /^BotDetection: Workday asks for a verification code it e-mailed to the client's account for 127\.0\.0\.1:\d+; the service reads no mailbox/,
    );
    const second = await send(accept);
    expect(second.outcome).toMatchObject({ status: 'failed', errorCode: 'BotDetection', submitted: false });
    expect(first.hookCalls + second.hookCalls).toBe(0);
    expect(asking.signIns()).toEqual([{ email: 'ada@example.com', accepted: true }]);
    expect(accept.writes().total).toBe(0);
    expect(asking.vendor.submitted).toEqual([]);
  }, 240_000);
});
