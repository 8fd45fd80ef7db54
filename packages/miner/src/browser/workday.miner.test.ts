import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Question } from '@quarry/contracts';
import {
  startHostedAtsDouble,
  workdayHostedVendor,
  workdayQuestions,
  workdaySaved,
  workdayWrongPasswordText,
  type HostedAtsDouble,
} from '@quarry/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MineOutcome, TenantAccount } from '../miner-port.ts';
import { syntheticAnswers } from '../synthetic-answers.ts';
import { createChromiumPool, type ChromiumPool } from '@quarry/browser';
import { readStep, stepQuestions } from './workday-steps.ts';
import { createWorkdayMiner } from './workday.miner.ts';

const registered = { email: 'ada@example.com', password: 'correct horse battery staple' };
let pool: ChromiumPool;
let vendor: ReturnType<typeof workdayHostedVendor>;
let double: HostedAtsDouble;
let account: TenantAccount;
// The fixture form served as it was captured, beside the double.
let fixtureSite: Server;
let fixtureOrigin: string;

beforeAll(async () => {
  pool = createChromiumPool({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', recycleAfterJobs: 100, maxContexts: 2 });
  vendor = workdayHostedVendor(registered);
  double = await startHostedAtsDouble(vendor);
  account = { ats: 'workday', board: new URL(double.origin).host, ...registered };
  fixtureSite = createServer((_request, response) => {
    void readFile(new URL('../../fixtures/ats/workday/form.html', import.meta.url)).then((body) =>
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body),
    );
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => fixtureSite.once('listening', resolve));
  fixtureOrigin = `http://127.0.0.1:${(fixtureSite.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await pool?.close();
  await double?.close();
  fixtureSite?.close();
});
beforeEach(() => {
  double.setVariant('accept');
});

const miner = createLazyMiner();
/** One miner (one sign-in memory) for the whole file, made once the pool exists. */
function createLazyMiner() {
  let made: ReturnType<typeof createWorkdayMiner> | null = null;
  return (url: string, withAccount: TenantAccount | undefined): Promise<MineOutcome> => {
    made ??= createWorkdayMiner({ pool, allowPrivate: ['127.0.0.1'], timeoutMs: 60_000 });
    return made({ url, employer: 'Acme', jobTitle: 'Software Developer', country: 'gb' }, AbortSignal.timeout(90_000), {
      account: withAccount,
    });
  };
}

const withoutCategory = (questions: Question[]) => questions.map(({ category: _category, ...question }) => question);
const cxs = '/wday/cxs/acme/External';

describe("mining a Workday posting with the client's tenant account", () => {
  it("signs in once, reads every step's questions by Workday's field keys, and never submits", async () => {
    double.events.length = 0;
    const signInsBefore = vendor.signIns.length;
    const writesBefore = double.earlyWrites.length;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const outcome = await miner(double.url, account);
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    if (!outcome.ok) throw new Error(`${outcome.errorCode}: ${outcome.detail}`);
    console.log(
      `Workday mining: ${Math.round(wallMs)} ms wall, ${Math.round((cpu.user + cpu.system) / 1_000)} ms test-process CPU, ${outcome.form.questions.length} questions`,
    );

    expect(withoutCategory(outcome.form.questions)).toEqual(workdayQuestions());
    expect(outcome.adapter).toBe('workday');
    expect(outcome.form.answers).toEqual(syntheticAnswers(outcome.form.questions));
    // Categories from Workday's keys and labels, as for every vendor.
    const categoryOf = (id: string) => outcome.form.questions.find((question) => question.id === id)?.category;
    expect([categoryOf('firstName'), categoryOf('lastName'), categoryOf('phoneNumber'), categoryOf('resume')]).toEqual([
      'firstName',
      'lastName',
      'phone',
      'resume',
    ]);

    expect(vendor.signIns.slice(signInsBefore)).toEqual([{ email: registered.email, accepted: true }]);
    // Each step saved once, the placeholder résumé uploaded once, Submit never pressed.
    expect(double.events.filter((event) => !event.startsWith('GET'))).toEqual([
      `early ${cxs}/jobapplication/myInformation`,
      `early ${cxs}/attachments`,
      `early ${cxs}/jobapplication/myExperience`,
      `early ${cxs}/jobapplication/primaryQuestionnaire`,
      `early ${cxs}/jobapplication/voluntaryDisclosures`,
    ]);
    expect(double.submissions).toHaveLength(0);
    // The draft holds placeholders in required fields only: values an application must answer anyway.
    const required = new Set(
      workdayQuestions()
        .filter((question) => question.mandatory)
        .map((question) => question.id),
    );
    const saved = [...workdaySaved(double.earlyWrites.slice(writesBefore)).keys()].map((key) =>
      key.replace(/(Month|Day|Year)$/, '').replace(/^upload /, ''),
    );
    expect(new Set(saved)).toEqual(required);
  }, 120_000);

  it('mining again with the account resumes its draft: the placeholder résumé it lists is not uploaded again, and nothing is submitted', async () => {
    double.events.length = 0;
    const submittedBefore = vendor.submitted.length;
    expect(vendor.draftOf(registered.email)).toMatchObject({ resume: [{ name: 'jane-doe-cv.pdf' }] });
    const mined = await miner(double.url, account);
    if (!mined.ok) throw new Error(`${mined.errorCode}: ${mined.detail}`);
    expect(withoutCategory(mined.form.questions)).toEqual(workdayQuestions());
    expect(double.events.filter((event) => !event.startsWith('GET'))).toEqual(
      ['myInformation', 'myExperience', 'primaryQuestionnaire', 'voluntaryDisclosures'].map(
        (step) => `early ${cxs}/jobapplication/${step}`,
      ),
    );
    expect((vendor.draftOf(registered.email)?.resume as unknown[] | undefined)?.length).toBe(1);
    expect(vendor.submitted.length).toBe(submittedBefore);
  }, 120_000);

  it('reads My Experience as the fixture form shows it: the same keys, labels, required marks and lists', async () => {
    const mined = await miner(double.url, account);
    if (!mined.ok) throw new Error(`${mined.errorCode}: ${mined.detail}`);
    const fromDouble = mined.form.questions.filter((question) => question.label === 'My Experience');
    const fromFixture = await pool.withContext(async (context) => {
      const page = await context.newPage();
      await page.goto(`${fixtureOrigin}/form.html`);
      return stepQuestions(page, await readStep(page));
    });
    // The fixture models the step without its Resume/CV box (upload.html models that one).
    expect(withoutCategory(fromDouble.filter((question) => question.id !== 'resume' && question.id !== 'skills'))).toEqual(
      withoutCategory(fromFixture.filter((question) => question.id !== 'skills')),
    );
    // Skills: the fixture's box lists its catalog as `promptOption`s on Enter; the double marks the
    // same box a combobox, which is how the miner knows to list it.
    const fixtureSkills = fromFixture.find((question) => question.id === 'skills');
    expect(fixtureSkills).toMatchObject({ question: 'Type to Add Skills', mandatory: false });
    const fixtureSource = await readFile(new URL('../../fixtures/ats/workday/form.html', import.meta.url), 'utf8');
    const catalog = JSON.parse(/const catalog = (\[[^\]]*\])/.exec(fixtureSource)?.[1]?.replace(/'/g, '"') ?? '[]') as string[];
    expect(
      fromDouble.find((question) => question.id === 'skills')?.options?.map((option) => ('answer' in option ? option.answer : '')),
    ).toEqual(catalog);
    expect(fromDouble.find((question) => question.id === 'resume')).toMatchObject({
      question: 'Resume/CV',
      inputType: 'File',
      mandatory: true,
    });
  }, 120_000);
});

describe('the account wall, without getting through it', () => {
  it('without an account: LoginRequired, and nothing is asked of the tenant', async () => {
    double.events.length = 0;
    const outcome = await miner(double.url, undefined);
    expect(outcome).toMatchObject({ ok: false, errorCode: 'LoginRequired', adapter: 'workday' });
    expect(double.events).toEqual([]);
  });

  it('an account for another tenant: LoginRequired at the wall, and the password is not typed', async () => {
    const before = vendor.signIns.length;
    const outcome = await miner(double.url, { ...account, board: 'globex.wd5.myworkdayjobs.com' });
    expect(outcome).toMatchObject({ ok: false, errorCode: 'LoginRequired' });
    expect(outcome.ok || outcome.detail).toMatch(/account is for globex\.wd5\.myworkdayjobs\.com, this page is on 127\.0\.0\.1:\d+/);
    expect(vendor.signIns.length).toBe(before);
  }, 60_000);

  it('a wrong password is typed once: LoginRequired saying LoginFailed, and later minings with it, parallel ones too, sign in no more', async () => {
    const wrong = { ...account, password: 'Tr0ub4dor&3' };
    const before = vendor.signIns.length;
    const writesBefore = double.earlyWrites.length;
    const [first, second] = await Promise.all([miner(double.url, wrong), miner(double.url, wrong)]);
    const third = await miner(double.url, wrong);
    for (const outcome of [first, second, third]) {
      expect(outcome).toMatchObject({ ok: false, errorCode: 'LoginRequired' });
      expect(outcome.ok || outcome.detail).toMatch(/^LoginFailed: Workday refused the client's account for 127\.0\.0\.1:\d+: "/);
      expect(JSON.stringify(outcome)).not.toMatch(/Tr0ub4dor|ada@example/);
    }
    expect([first, second].filter((outcome) => !outcome.ok && outcome.detail.includes(`"${workdayWrongPasswordText}"`))).toHaveLength(1);
    expect(vendor.signIns.slice(before)).toEqual([{ email: registered.email, accepted: false }]);
    expect(double.earlyWrites.length).toBe(writesBefore);
  }, 120_000);

  it('a closed posting: JobNotFound, before any sign-in', async () => {
    double.setVariant('closed');
    const before = vendor.signIns.length;
    expect(await miner(double.url, account)).toMatchObject({ ok: false, errorCode: 'JobNotFound', adapter: 'workday' });
    expect(vendor.signIns.length).toBe(before);
  }, 60_000);

  it('a posting on an address the allow-list does not name: AddressRefused, nothing fetched', async () => {
    const outcome = await miner(double.url.replace('127.0.0.1', '127.0.0.2'), {
      ...account,
      board: account.board.replace('127.0.0.1', '127.0.0.2'),
    });
    expect(outcome).toMatchObject({ ok: false, errorCode: 'AddressRefused' });
  });
});

describe('a posting on a shared myworkdaysite.com host, whose path names the tenant', () => {
  let sharedVendor: ReturnType<typeof workdayHostedVendor>;
  let shared: HostedAtsDouble;
  beforeAll(async () => {
    sharedVendor = workdayHostedVendor(registered, { address: 'sharedHost' });
    shared = await startHostedAtsDouble(sharedVendor);
  });
  afterAll(async () => {
    await shared?.close();
  });

  it('is mined with the account registered for host and tenant: the same steps and questions', async () => {
    expect(shared.url).toMatch(/\/recruiting\/acme\/External\/job\//);
    const outcome = await miner(shared.url, { ...account, board: `${new URL(shared.origin).host}/acme` });
    if (!outcome.ok) throw new Error(`${outcome.errorCode}: ${outcome.detail}`);
    expect(withoutCategory(outcome.form.questions)).toEqual(workdayQuestions());
    expect(sharedVendor.signIns).toEqual([{ email: registered.email, accepted: true }]);
    expect(shared.submissions).toHaveLength(0);
  }, 120_000);

  it('an account for the host alone, or for another tenant on it: LoginRequired at the wall, the password not typed', async () => {
    const host = new URL(shared.origin).host;
    const before = sharedVendor.signIns.length;
    for (const board of [host, `${host}/globex`]) {
      const outcome = await miner(shared.url, { ...account, board });
      expect(outcome).toMatchObject({ ok: false, errorCode: 'LoginRequired', adapter: 'workday' });
      expect(outcome.ok || outcome.detail).toContain(`account is for ${board}, this page is on ${host}/acme`);
    }
    expect(sharedVendor.signIns.length).toBe(before);
  }, 120_000);
});

describe('a tenant that asks for a code it e-mailed to the account, past its password', () => {
  let codeVendor: ReturnType<typeof workdayHostedVendor>;
  let codeDouble: HostedAtsDouble;
  beforeAll(async () => {
    codeVendor = workdayHostedVendor({ ...registered, emailCode: true });
    codeDouble = await startHostedAtsDouble(codeVendor);
  });
  afterAll(async () => {
    await codeDouble?.close();
  });

  it('ends mining BotDetection naming Workday, nothing saved; later minings with the account sign in no more', async () => {
    const codeAccount = { ...account, board: new URL(codeDouble.origin).host };
    const first = await miner(codeDouble.url, codeAccount);
    expect(first).toMatchObject({ ok: false, errorCode: 'BotDetection', adapter: 'workday' });
    expect(first.ok || first.detail).toMatch(
      /^BotDetection: Workday asks for a verification code it e-mailed to the client's account for 127\.0\.0\.1:\d+; the service reads no mailbox/,
    );
    const second = await miner(codeDouble.url, codeAccount);
    expect(second).toMatchObject({ ok: false, errorCode: 'BotDetection' });
    expect(second.ok || second.detail).toContain('(at an earlier sign-in)');
    expect(codeVendor.signIns).toEqual([{ email: registered.email, accepted: true }]);
    expect(codeDouble.earlyWrites).toEqual([]);
    expect(codeDouble.submissions).toEqual([]);
  }, 120_000);
});
