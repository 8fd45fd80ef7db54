import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedAtsDouble, type HostedAtsDouble } from './hosted-ats.double.ts';
import { workdayHostedVendor, workdayJobPath, workdayQuestions, type WorkdayVendor } from './workday.double.ts';

// What the double serves, against the captures it is built from (the miner's Workday fixtures).
const fixture = (name: string) => readFile(new URL(`../../../miner/fixtures/ats/workday/${name}`, import.meta.url), 'utf8');
let double: HostedAtsDouble;
let vendor: WorkdayVendor;
const ada = { email: 'ada@example.com', password: 'correct horse battery staple' };
const grace = { email: 'grace@example.com', password: 'cobol forever' };

beforeAll(async () => {
  vendor = workdayHostedVendor([ada, grace]);
  double = await startHostedAtsDouble(vendor);
});
afterAll(async () => {
  await double?.close();
});

const page = async (path: string) => (await fetch(`${double.origin}${path}`)).text();

describe('the Workday double against its fixtures', () => {
  it('serves the open posting as captured, with only a canonical link and a style added to its head', async () => {
    double.setVariant('accept');
    const served = await page(new URL(double.url).pathname);
    const added = /<link rel="canonical" href="https:\/\/acme\.wd5\.myworkdayjobs\.com\/[^"]+"><style>[^<]*<\/style>/;
    expect(served).toMatch(added);
    expect(served.replace(added, '')).toBe(await fixture('posting-open-d.html'));
    // Its Apply link is the fixture's own, and leads to the double's "Start Your Application".
    const apply = /data-automation-id="adventureButton" role="button" href="([^"]+)"/.exec(served)?.[1];
    expect(await page(apply ?? '/missing')).toContain('data-automation-id="applyManually"');
  });

  it('words a closed posting as measured: errorContainer > errorMessage, "Search for Jobs", no Apply', async () => {
    double.setVariant('closed');
    const served = await page(new URL(double.url).pathname);
    expect(served).toMatch(
      /data-automation-id="errorContainer"><h2 data-automation-id="errorMessage">The page you are looking for doesn't exist\.<\/h2><button type="button">Search for Jobs<\/button>/,
    );
    expect(served).not.toContain('adventureButton');
    double.setVariant('accept');
  });

  it('models My Experience on form.html: the same field keys, in order, with the same labels and required marks', async () => {
    const form = await fixture('form.html');
    const fields = [...form.matchAll(/data-automation-id="formField-(\w+)"><label[^>]*>([^<]*)<\/label>/g)].map(([, key, label]) => ({
      id: key,
      question: label?.replace(/\*$/, ''),
      mandatory: label?.endsWith('*'),
    }));
    // Plus the Resume/CV box of upload.html.
    const experience = workdayQuestions().filter((question) => question.label === 'My Experience');
    expect(experience.map(({ id, question, mandatory }) => ({ id, question, mandatory }))).toEqual([
      ...fields,
      { id: 'resume', question: 'Resume/CV', mandatory: true },
    ]);
    expect(await fixture('upload.html')).toContain('<h3>Resume/CV</h3>');
    const degree = experience.find((question) => question.id === 'degree');
    const listed = [...form.matchAll(/<div role="option">([^<]+)<\/div>/g)].map(([, option]) => option);
    expect(degree?.options?.map((option) => option.answer)).toEqual(listed);
  });
});

describe('the draft a Workday account keeps of an application (modelled)', () => {
  const cxs = '/wday/cxs/acme/External';
  const call = async (path: string, body: unknown) => {
    const answer = await fetch(`${double.origin}${cxs}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const signIn = async (account: { email: string; password: string }) => String((await call('/signin', account)).body.sessionToken);
  const upload = async (sessionToken: string, name: string, bytes: Buffer) => {
    const form = new FormData();
    form.append('sessionToken', sessionToken);
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
    return String(
      ((await (await fetch(`${double.origin}${cxs}/attachments`, { method: 'POST', body: form })).json()) as { id: string }).id,
    );
  };
  const myInformation = {
    source: 'Job Board',
    previousWorker: true,
    firstName: 'Jane',
    lastName: 'Doe',
    city: 'London',
    phoneNumber: '+44 20 7946 0000',
  };

  it('keeps each accepted save per account and job, shows it at the next sign-in, drops what a later save leaves out, and sends it at Submit', async () => {
    double.setVariant('accept');
    const job = workdayJobPath;
    const session = await signIn(ada);
    expect(
      (
        await call('/jobapplication/myInformation', {
          sessionToken: session,
          job,
          values: { ...myInformation, addressLine1: '1 Example Street' },
        })
      ).status,
    ).toBe(200);
    const placeholder = Buffer.from('%PDF-1.4 placeholder');
    const id = await upload(session, 'jane-doe-cv.pdf', placeholder);
    const experience = {
      jobTitle: 'Yes',
      company: 'Yes',
      startDateMonth: '12',
      startDateYear: '2026',
      school: 'Yes',
      degree: 'H.S. - High School',
      resume: [{ id, name: 'jane-doe-cv.pdf' }],
    };
    expect((await call('/jobapplication/myExperience', { sessionToken: session, job, values: experience })).status).toBe(200);
    // A refused save keeps nothing.
    expect(
      (
        await call('/jobapplication/primaryQuestionnaire', {
          sessionToken: session,
          job,
          values: { motivation: 'Refused with the rest missing' },
        })
      ).status,
    ).toBe(400);

    const again = await signIn(ada);
    // Shown again from the first step (the double's default).
    expect((await call('/jobapplication/draft', { sessionToken: again, job })).body).toEqual({
      values: { ...myInformation, addressLine1: '1 Example Street', ...experience },
      step: 0,
    });
    expect(vendor.draftOf(ada.email)).toMatchObject({ firstName: 'Jane', resume: [{ name: 'jane-doe-cv.pdf', bytes: placeholder }] });
    // Another account, another job: nothing.
    expect((await call('/jobapplication/draft', { sessionToken: await signIn(grace), job })).body.values).toEqual({});
    expect((await call('/jobapplication/draft', { sessionToken: again, job: '/acme/job/Remote/Other_R2' })).body.values).toEqual({});
    expect(vendor.draftOf(grace.email)).toBeUndefined();

    // A save replaces its step: a value it leaves out is gone, the other steps stay.
    const cv = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0d, 0x0a]);
    const cvId = await upload(again, 'ada-cv.pdf', cv);
    expect(
      (
        await call('/jobapplication/myInformation', {
          sessionToken: again,
          job,
          values: { ...myInformation, firstName: 'Ada', lastName: 'Lovelace' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('/jobapplication/myExperience', {
          sessionToken: again,
          job,
          values: { ...experience, resume: [{ id: cvId, name: 'ada-cv.pdf' }] },
        })
      ).status,
    ).toBe(200);
    const submittedBefore = vendor.submitted.length;
    expect((await call('/jobapplication/submit', { sessionToken: again, job })).status).toBe(200);
    expect(vendor.submitted.slice(submittedBefore)).toEqual([
      {
        email: ada.email,
        job,
        values: { ...myInformation, firstName: 'Ada', lastName: 'Lovelace', ...experience, resume: [{ name: 'ada-cv.pdf', bytes: cv }] },
      },
    ]);
    // Submitted: no draft is left to resume.
    expect(vendor.draftOf(ada.email)).toBeUndefined();
    expect((await call('/jobapplication/draft', { sessionToken: again, job })).body.values).toEqual({});
  });

  it('refuses every draft call without a signed-in session', async () => {
    expect(await call('/jobapplication/draft', { sessionToken: 'forged', job: workdayJobPath })).toEqual({
      status: 400,
      body: { errorMessage: 'You are not authorized to this job application' },
    });
  });
});
