import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Question } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createSealer } from '@quarry/keyring';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { createFakeApplier, type FakeApplier } from '@quarry/testing/hosted-form-apply';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MineOutcome } from '@quarry/miner';
import type { RecordMining, RunPorts, Sealer } from './applications-ports.ts';
import { registerAtsCredential } from './ats-credentials.ts';
import { claimApplication } from './applications.queries.ts';
import { findApplication } from './find-application.ts';
import { reconcileApplications } from './reconcile-applications.ts';
import { RunLater } from '@quarry/jobs';
import { purgeApplications } from './purge-applications.ts';
import { runApplication } from './run-application.ts';
import { submitApplication } from './submit-application.ts';

const key = Buffer.alloc(32, 4);
const sealer: Sealer = createSealer(key);

let database: TestDatabase;
let db: Pool;
let files: Server;
let origin: string;
const seenHeaders: string[] = [];
const q = (id: string, inputType: Question['inputType'], extra: Partial<Question> = {}): Question => ({
  id,
  question: id,
  inputType,
  label: 'Apply',
  mandatory: true,
  ...extra,
});
const questions = [q('resume', 'File', { category: 'resume', accept: ['.pdf'] }), q('first', 'Text', { category: 'firstName' })];

beforeAll(async () => {
  database = await createTestDatabase('applications-run');
  db = createPool(database.url, 4);
  await db.query(
    `INSERT INTO clients (client_id, name, secret_hash, jwt_secret_ciphertext, scopes) VALUES ('cl_test', 'test', '\\x00', '\\x00', '{recruitment}')`,
  );
  files = createServer((request, response) => {
    seenHeaders.push(String(request.headers.authorization));
    if (request.url === '/cv.pdf') return void response.end('%PDF-1.7\nCV');
    if (request.url === '/cv.png') return void response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1]));
    if (request.url === '/big.pdf') return void response.end(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 0x41)]));
    response.writeHead(404).end();
  });
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  files.close();
  await db.end();
  await database.drop();
});

async function apply(
  cvPath: string,
  applier: FakeApplier,
  email = `c${Math.random()}@example.com`,
  post: { jobPostId: string; url: string } = { jobPostId: 'post', url: `${origin}/apply` },
) {
  const ports = {
    pool: db,
    sealer,
    findMinedPost: async () => ({ url: post.url, employer: 'Acme', jobTitle: 'Engineer', country: 'gb', questions }),
    enqueueApply: async () => 'job',
  };
  const { applicationId } = await submitApplication(ports, 'cl_test', {
    jobPostId: post.jobPostId,
    candidate: { email, firstName: 'Ada', lastName: 'Lovelace' },
    files: { cv: { type: 'File', url: `${origin}${cvPath}`, filename: 'cv.pdf', headers: { authorization: 'Bearer storage-token' } } },
  });
  const runPorts: RunPorts = {
    ...ports,
    applier,
    miner: async () => {
      throw new Error('mined already');
    },
    recordMining: async () => {
      throw new Error('mined already');
    },
    fetchFile: createSafeFetch({ allowPrivate: ['127.0.0.1'] }),
    limitHost: (_host, work) => work(),
    maxFileBytes: 1024,
  };
  return {
    applicationId,
    run: (finalAttempt = true) => runApplication(runPorts, applicationId, { signal: new AbortController().signal, finalAttempt }),
  };
}
const stateOf = async (id: string) =>
  (
    await db.query<{ state: string; error_code: string | null }>('SELECT state, error_code FROM applications WHERE application_id = $1', [
      id,
    ])
  ).rows[0];

describe('runApplication', () => {
  it("gives the engine the files as bytes, fetched with the client's headers, and the candidate details placed", async () => {
    const applier = createFakeApplier();
    const { run } = await apply('/cv.pdf', applier);
    expect((await run()).status).toBe('success');
    expect(seenHeaders).toContain('Bearer storage-token');
    const answers = applier.calls[0]!.answers;
    expect(answers.find((answer) => answer.id === 'first')?.value).toBe('Ada');
    expect(answers.find((answer) => answer.id === 'resume')?.value).toMatchObject({
      type: 'File',
      filename: 'cv.pdf',
      contentType: 'application/pdf',
      bytes: Buffer.from('%PDF-1.7\nCV'),
    });
  });

  it("gives the engine the client's Workday account for a posting on its tenant, and none for another tenant", async () => {
    await registerAtsCredential({ pool: db, sealer }, 'cl_test', {
      ats: 'workday',
      board: 'acme.wd5.myworkdayjobs.com',
      email: 'ada@example.com',
      password: 'correct horse',
    });
    const onTenant = createFakeApplier();
    await (
      await apply('/cv.pdf', onTenant, undefined, {
        jobPostId: 'wd-post',
        url: 'https://acme.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R1',
      })
    ).run();
    expect(onTenant.calls[0]?.account).toEqual({
      ats: 'workday',
      board: 'acme.wd5.myworkdayjobs.com',
      email: 'ada@example.com',
      password: 'correct horse',
    });
    expect(onTenant.calls[0]?.credential).toBeUndefined();
    const elsewhere = createFakeApplier();
    await (
      await apply('/cv.pdf', elsewhere, undefined, {
        jobPostId: 'wd-other',
        url: 'https://globex.wd5.myworkdayjobs.com/en-US/External/job/London/Engineer_R2',
      })
    ).run();
    expect(elsewhere.calls[0]?.account).toBeUndefined();
  });

  it('fails FileTypeNotSupported when the bytes are not an accepted type, FileFailedToUpload when they cannot be fetched or are too big', async () => {
    for (const [path, code] of [
      ['/cv.png', 'FileTypeNotSupported'],
      ['/missing.pdf', 'FileFailedToUpload'],
      ['/big.pdf', 'FileFailedToUpload'],
    ] as const) {
      const applier = createFakeApplier();
      const { applicationId, run } = await apply(path, applier);
      expect(await run(), path).toEqual({ applicationId, status: 'failed', errorCode: code });
      expect(applier.calls, path).toHaveLength(0);
    }
  });

  it('an unknown outcome ends SubmissionOutcomeUnknown; so does an error after beforeSubmit', async () => {
    for (const outcome of [{ status: 'unknown', message: 'no confirmation seen' } as const, 'throw-after-submit' as const]) {
      const { applicationId, run } = await apply('/cv.pdf', createFakeApplier([outcome]));
      expect(await run(false)).toEqual({ applicationId, status: 'failed', errorCode: 'SubmissionOutcomeUnknown' });
    }
  });

  it('says in the status which transport sent the application, and why one went to the hosted form', async () => {
    const viaApi = {
      status: 'success',
      confirmation: { text: 'Submitted' },
      transport: { kind: 'vendorApi', vendor: 'greenhouse' },
    } as const;
    const handedOver = {
      status: 'failed',
      errorCode: 'BotDetection',
      message: 'reCAPTCHA',
      submitted: false,
      transport: { kind: 'hostedForm', handedOverBecause: "Greenhouse's Job Board API has no field for location" },
    } as const;
    for (const outcome of [viaApi, handedOver]) {
      const { applicationId, run } = await apply('/cv.pdf', createFakeApplier([outcome]));
      await run();
      const status = await findApplication({ pool: db, sealer }, 'cl_test', { applicationId });
      expect(status).toMatchObject({ status: outcome.status, transport: outcome.transport });
    }
  });

  it('an error before beforeSubmit is retried by the queue, and on the last attempt ends ApplicationFailed', async () => {
    const applier = createFakeApplier(['throw-before-submit', 'throw-before-submit']);
    const { applicationId, run } = await apply('/cv.pdf', applier);
    await expect(run(false)).rejects.toThrow('before the final step');
    expect(await stateOf(applicationId)).toEqual({ state: 'processing', error_code: null });
    expect(await run(true)).toEqual({ applicationId, status: 'failed', errorCode: 'ApplicationFailed' });
  });

  it('mines a post not mined yet and records that mining for the client, whether it succeeded or not', async () => {
    const outcomes: MineOutcome[] = [
      { ok: true, adapter: 'generic', form: { questions, answers: [] } },
      { ok: false, adapter: null, errorCode: 'JobExpired', detail: 'closed' },
    ];
    for (const mined of outcomes) {
      const recorded: Array<Parameters<RecordMining>> = [];
      const ports = { pool: db, sealer, findMinedPost: async () => null, enqueueApply: async () => 'job' };
      const { applicationId } = await submitApplication(ports, 'cl_test', {
        jobPostId: 'unmined-post',
        url: `${origin}/apply`,
        employer: 'Acme',
        jobTitle: 'Engineer',
        candidate: { email: `c${Math.random()}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
        files: { cv: { type: 'File', url: `${origin}/cv.pdf`, filename: 'cv.pdf' } },
      });
      const runPorts: RunPorts = {
        ...ports,
        applier: createFakeApplier(),
        miner: async () => mined,
        recordMining: async (...call) => void recorded.push(call),
        fetchFile: createSafeFetch({ allowPrivate: ['127.0.0.1'] }),
        limitHost: (_host, work) => work(),
        maxFileBytes: 1024,
      };
      const summary = await runApplication(runPorts, applicationId, { signal: new AbortController().signal, finalAttempt: true });
      expect(summary.status).toBe(mined.ok ? 'success' : 'failed');
      expect(recorded).toEqual([
        [
          { clientId: 'cl_test', jobPostId: 'unmined-post', url: `${origin}/apply`, employer: 'Acme', jobTitle: 'Engineer', country: 'gb' },
          mined,
          expect.any(Number),
        ],
      ]);
    }
  });

  it('never submits the same candidate to the same post twice', async () => {
    const applier = createFakeApplier();
    const first = await apply('/cv.pdf', applier, 'same@example.com');
    const second = await apply('/cv.pdf', applier, 'same@example.com');
    await first.run();
    expect(await second.run()).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied' });
    expect(applier.calls).toHaveLength(1);
  });

  it('refuses the candidate to the same ATS job under another job post (keyed by client, ATS, job, email) before anything is sent', async () => {
    const applier = createFakeApplier();
    const email = 'same-job@example.com';
    const first = await apply('/cv.pdf', applier, email, {
      jobPostId: 'board-post',
      url: 'https://job-boards.greenhouse.io/acme/jobs/4012345',
    });
    // Queued before the first succeeded: the run finds the success and never calls the engine.
    const embedded = await apply('/cv.pdf', applier, email.toUpperCase(), {
      jobPostId: 'embed-post',
      url: 'https://boards.greenhouse.io/embed/job_app?for=acme&token=4012345',
    });
    expect(await first.run()).toMatchObject({ status: 'success' });
    expect(await embedded.run()).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied' });
    // Asked for after the success: answered at once, never queued to the engine.
    const employerPage = await apply('/cv.pdf', applier, email, {
      jobPostId: 'careers-post',
      url: 'https://careers.acme.example/jobs?gh_jid=4012345',
    });
    expect(await stateOf(employerPage.applicationId)).toEqual({ state: 'failed', error_code: 'AlreadyApplied' });
    // Another job of the same board, or another candidate, is not a repeat.
    const otherJob = await apply('/cv.pdf', applier, email, {
      jobPostId: 'other-post',
      url: 'https://job-boards.greenhouse.io/acme/jobs/4012346',
    });
    expect(await otherJob.run()).toMatchObject({ status: 'success' });
    expect(applier.calls.map((call) => call.url)).toEqual([
      'https://job-boards.greenhouse.io/acme/jobs/4012345',
      'https://job-boards.greenhouse.io/acme/jobs/4012346',
    ]);
  });

  it('lets only one of two applications racing to the same ATS job under different posts reach the engine', async () => {
    const email = 'racing@example.com';
    const a = await apply('/cv.pdf', createFakeApplier(), email, {
      jobPostId: 'race-a',
      url: 'https://jobs.lever.co/acme/0b6d1c6e-7f3a-4c1e-9a55-2d8f00c0ffee',
    });
    const b = await apply('/cv.pdf', createFakeApplier(), email, {
      jobPostId: 'race-b',
      url: 'https://jobs.lever.co/acme/0B6D1C6E-7F3A-4C1E-9A55-2D8F00C0FFEE/apply',
    });
    // Both pass the ledger check; the intent of the first holds the job, the second's is refused.
    await db.query(`UPDATE applications SET state = 'processing' WHERE application_id = $1`, [a.applicationId]);
    await db.query(`UPDATE applications SET state = 'submitting', submitting_at = now() WHERE application_id = $1`, [a.applicationId]);
    expect(await b.run()).toMatchObject({ status: 'failed', errorCode: 'AlreadyApplied' });
  });
});

describe('purgeApplications', () => {
  it('removes the sealed data of applications ended before the retention period, keeping status and error code', async () => {
    const { applicationId, run } = await apply('/cv.png', createFakeApplier());
    await run();
    await purgeApplications(db, { retentionDays: 30, now: new Date(Date.now() + 29 * 86_400_000) });
    expect(
      (await db.query('SELECT 1 FROM applications WHERE application_id = $1 AND sealed IS NOT NULL', [applicationId])).rows,
    ).toHaveLength(1);
    await purgeApplications(db, { retentionDays: 30, now: new Date(Date.now() + 31 * 86_400_000) });
    const row = (
      await db.query<{ sealed: Buffer | null; state: string; error_code: string; purged_at: Date | null }>(
        'SELECT sealed, state, error_code, purged_at FROM applications WHERE application_id = $1',
        [applicationId],
      )
    ).rows[0]!;
    expect(row).toMatchObject({ sealed: null, state: 'failed', error_code: 'FileTypeNotSupported' });
    expect(row.purged_at).not.toBeNull();
  });

  it("removes a failed application's message with the candidate's data: a vendor's refusal can echo the candidate's answers", async () => {
    const echoed = 'Field "salary_expectations" must be a number, got "about 85k, negotiable; my manager at Initech knows"';
    const { applicationId, run } = await apply(
      '/cv.pdf',
      createFakeApplier([{ status: 'failed', errorCode: 'ApplicationFailed', message: echoed, submitted: false }]),
    );
    await run();
    const messageOf = async () =>
      (
        await db.query<{ message: string | null; error_code: string }>(
          'SELECT message, error_code FROM applications WHERE application_id = $1',
          [applicationId],
        )
      ).rows[0];
    expect((await messageOf())?.message).toBe(echoed);
    await purgeApplications(db, { retentionDays: 30, now: new Date(Date.now() + 31 * 86_400_000) });
    const purged = await messageOf();
    expect(purged?.error_code).toBe('ApplicationFailed');
    expect(purged?.message).not.toContain('Initech');
    expect(purged?.message).toMatch(/removed with the candidate's data/);
  });
});

describe('the run lease', () => {
  const ownerOf = async (id: string) =>
    (
      await db.query<{ run_owner: string | null; state: string }>('SELECT run_owner, state FROM applications WHERE application_id = $1', [
        id,
      ])
    ).rows[0];

  it('makes a second run wait while the first holds the application, and lets it run once the first lease lapsed before the intent', async () => {
    const { applicationId, run } = await apply('/cv.pdf', createFakeApplier());
    // A first run that is still alive (a paused worker whose queue lock lapsed) holds the lease.
    expect(await claimApplication(db, applicationId, 'first-run', 60_000)).toMatchObject({ kind: 'claimed' });
    await expect(run()).rejects.toBeInstanceOf(RunLater);
    expect(await ownerOf(applicationId)).toEqual({ run_owner: 'first-run', state: 'processing' });
    // Its lease lapsed before it recorded any intent: the second run takes the application over.
    await db.query(`UPDATE applications SET run_expires_at = now() - interval '1 second' WHERE application_id = $1`, [applicationId]);
    expect(await run()).toMatchObject({ status: 'success' });
  });

  it('never lets a run that lost the application record the intent, so it never submits', async () => {
    const applier = createFakeApplier();
    const { applicationId, run } = await apply(
      '/cv.pdf',
      Object.assign(
        async (application: Parameters<FakeApplier>[0], hooks: Parameters<FakeApplier>[1], signal: AbortSignal) => {
          // While this run filled the form, its lease lapsed and another run took the application.
          await db.query(
            `UPDATE applications SET run_owner = 'second-run', run_expires_at = now() + interval '1 minute' WHERE application_id = $1`,
            [applicationId],
          );
          return applier(application, hooks, signal);
        },
        { calls: applier.calls, script: applier.script },
      ),
    );
    expect(await run()).toEqual({ applicationId, status: 'skipped' });
    // The engine was called, but its beforeSubmit was refused: nothing reached the final step, and the other run keeps it.
    expect(applier.calls).toHaveLength(1);
    expect(await ownerOf(applicationId)).toEqual({ run_owner: 'second-run', state: 'processing' });
  });

  it("replaces the SubmissionOutcomeUnknown that a second run recorded with the first run's late, definite answer", async () => {
    let second: (() => Promise<unknown>) | null = null;
    const paused: FakeApplier = Object.assign(
      async (_application: Parameters<FakeApplier>[0], hooks: Parameters<FakeApplier>[1]) => {
        await hooks.beforeSubmit();
        // Paused past its lease while the site took the application: another run finds the intent with no live lease.
        await db.query(
          `UPDATE applications SET run_expires_at = now() - interval '1 second' WHERE state = 'submitting' AND run_owner IS NOT NULL`,
        );
        expect(await second?.()).toMatchObject({ status: 'failed', errorCode: 'SubmissionOutcomeUnknown' });
        return { status: 'success' as const, confirmation: { text: 'Thank you for applying', reference: 'late-42' } };
      },
      { calls: [], script: [] },
    );
    const { applicationId, run } = await apply('/cv.pdf', paused);
    second = run;
    expect(await run()).toMatchObject({ status: 'success' });
    const status = await findApplication({ pool: db, sealer }, 'cl_test', { applicationId });
    expect(status).toMatchObject({ status: 'success', confirmation: { reference: 'late-42' } });
  });
});

describe('application.ended callbacks', () => {
  it('owes one in the transaction of each outcome, and a new one saying what it replaces when a late definite answer replaces SubmissionOutcomeUnknown', async () => {
    await db.query(
      `INSERT INTO callback_clients (client_id, default_url, secret_sealed) VALUES ('cl_test', 'https://hooks.example/quarry', '\\x00') ON CONFLICT (client_id) DO UPDATE SET default_url = EXCLUDED.default_url`,
    );
    let second: (() => Promise<unknown>) | null = null;
    const paused: FakeApplier = Object.assign(
      async (_application: Parameters<FakeApplier>[0], hooks: Parameters<FakeApplier>[1]) => {
        await hooks.beforeSubmit();
        await db.query(
          `UPDATE applications SET run_expires_at = now() - interval '1 second' WHERE state = 'submitting' AND run_owner IS NOT NULL`,
        );
        expect(await second?.()).toMatchObject({ status: 'failed', errorCode: 'SubmissionOutcomeUnknown' });
        return { status: 'success' as const, confirmation: { text: 'Thank you for applying', reference: 'late-43' } };
      },
      { calls: [], script: [] },
    );
    const email = `owed${Math.random()}@example.com`;
    const { applicationId, run } = await apply('/cv.pdf', paused, email, { jobPostId: 'post-owed', url: `${origin}/apply-owed` });
    second = run;
    expect(await run()).toMatchObject({ status: 'success' });
    const owed = await db.query<{ event_type: string; url: string; body: string }>(
      'SELECT event_type, url, body FROM callback_outbox WHERE subject_id = $1 ORDER BY event_id',
      [applicationId],
    );
    const events = owed.rows.map((row) => JSON.parse(row.body) as { type: string; data: Record<string, unknown> });
    expect(owed.rows.map((row) => [row.event_type, row.url])).toEqual([
      ['application.ended', 'https://hooks.example/quarry'],
      ['application.ended', 'https://hooks.example/quarry'],
    ]);
    expect(events[0]?.data).toMatchObject({ applicationId, status: 'failed', errorCode: 'SubmissionOutcomeUnknown' });
    expect(events[0]?.data.replaces).toBeUndefined();
    expect(events[1]?.data).toMatchObject({
      applicationId,
      status: 'success',
      replaces: { status: 'failed', errorCode: 'SubmissionOutcomeUnknown' },
    });
    // Never the candidate's data, nor the site's words.
    expect(owed.rows.map((row) => row.body).join()).not.toMatch(/owed0|Ada|Lovelace|Thank you|late-43/);
    // A repeated outcome owes nothing more.
    expect(await run()).toMatchObject({ status: 'skipped' });
    expect((await db.query('SELECT 1 FROM callback_outbox WHERE subject_id = $1', [applicationId])).rows).toHaveLength(2);
    await db.query(`DELETE FROM callback_clients WHERE client_id = 'cl_test'`);
    await db.query('DELETE FROM callback_outbox');
  });
});

describe('reconcileApplications', () => {
  it('enqueues again an application whose job was lost, and ends and purges one abandoned past the retention period', async () => {
    const stranded = await apply('/cv.pdf', createFakeApplier());
    const abandoned = await apply('/cv.pdf', createFakeApplier());
    await db.query(`UPDATE applications SET created_at = now() - interval '40 days' WHERE application_id = $1`, [abandoned.applicationId]);
    const enqueued: string[] = [];
    const later = new Date(Date.now() + 120_000);
    const enqueueApply = async (payload: { applicationId: string }, options?: { jobId?: string }) => {
      enqueued.push(`${payload.applicationId} ${options?.jobId}`);
      return 'job';
    };
    const result = await reconcileApplications({ pool: db, enqueueApply }, { strandedAfterMs: 60_000, retentionDays: 30, now: later });
    expect(enqueued).toContain(`${stranded.applicationId} apply-${stranded.applicationId}`);
    expect(enqueued.join()).not.toContain(abandoned.applicationId);
    expect(result.abandoned).toBeGreaterThanOrEqual(1);
    const ended = (
      await db.query<{ state: string; error_code: string; sealed: Buffer | null }>(
        'SELECT state, error_code, sealed FROM applications WHERE application_id = $1',
        [abandoned.applicationId],
      )
    ).rows[0];
    expect(ended).toEqual({ state: 'failed', error_code: 'ApplicationFailed', sealed: null });
    // A job that still exists runs the application once: the enqueued job finds it ended, or runs it.
    expect(await stranded.run()).toMatchObject({ status: 'success' });
  });
});
