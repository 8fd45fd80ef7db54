import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Question } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import { createSealer } from '@quarry/keyring';
import { createSafeFetch } from '@quarry/safe-fetch';
import { createTestDatabase, startPrivatePostgres, type PrivatePostgres, type TestDatabase } from '@quarry/testing';
import type { FakeApplier } from '@quarry/testing/hosted-form-apply';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunPorts, Sealer } from './applications-ports.ts';
import { findApplication } from './find-application.ts';
import { runApplication } from './run-application.ts';
import { submitApplication } from './submit-application.ts';

/**
 * A definite answer read from the site exists nowhere else once the run that read it gives up.
 * These runs read it while the database cannot take it: the server stopped, or another run holding
 * the application now. A private PostgreSQL, which this file stops and starts.
 */
const key = Buffer.alloc(32, 7);
const sealer: Sealer = createSealer(key);
const questions: Question[] = [
  { id: 'first', question: 'First name', inputType: 'Text', label: 'Apply', mandatory: true, category: 'firstName' },
];

let postgres: PrivatePostgres;
let database: TestDatabase;
let db: Pool;
let files: Server;
let cvUrl: string;

beforeAll(async () => {
  postgres = await startPrivatePostgres();
  database = await createTestDatabase('applications-record-outcome', postgres.url);
  db = createPool(database.url, 4);
  files = createServer((_request, response) => void response.end('%PDF-1.7\nCV')).listen(0, '127.0.0.1');
  await once(files, 'listening');
  cvUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/cv.pdf`;
  await db.query(
    `INSERT INTO clients (client_id, name, secret_hash, jwt_secret_ciphertext, scopes) VALUES ('cl_test', 'test', '\\x00', '\\x00', '{recruitment}')`,
  );
}, 60_000);

afterAll(async () => {
  files?.close();
  await db?.end();
  await postgres?.remove();
});

async function apply(applier: FakeApplier) {
  const ports = {
    pool: db,
    sealer,
    findMinedPost: async () => ({
      url: 'https://careers.example.com/apply',
      employer: 'Acme',
      jobTitle: 'Engineer',
      country: 'gb',
      questions,
    }),
    enqueueApply: async () => 'job',
  };
  const { applicationId } = await submitApplication(ports, 'cl_test', {
    jobPostId: `post-${randomBytes(4).toString('hex')}`,
    candidate: { email: `c${Math.random()}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
    files: { cv: { type: 'File', url: cvUrl, filename: 'cv.pdf' } },
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
    run: (context: Partial<Parameters<typeof runApplication>[2]> = {}) =>
      runApplication(runPorts, applicationId, { signal: new AbortController().signal, finalAttempt: false, ...context }),
  };
}

const answered = (during: () => Promise<void>): FakeApplier =>
  Object.assign(
    async (_application: Parameters<FakeApplier>[0], hooks: Parameters<FakeApplier>[1]) => {
      await hooks.beforeSubmit();
      await during();
      return { status: 'success' as const, confirmation: { text: 'Thank you for applying', reference: 'ref-1' } };
    },
    { calls: [], script: [] },
  );

describe('a definite answer read from the site', () => {
  it('is recorded once PostgreSQL is back when it stopped while the site answered, not left for a run that can only say unknown', async () => {
    let restarted: Promise<void> = Promise.resolve();
    const { applicationId, run } = await apply(
      answered(async () => {
        await postgres.stop();
        restarted = new Promise((resolve, reject) => setTimeout(() => postgres.start().then(resolve, reject), 6_000));
      }),
    );
    expect(await run()).toEqual({ applicationId, status: 'success' });
    await restarted;
    expect(await findApplication({ pool: db, sealer }, 'cl_test', { applicationId })).toMatchObject({
      status: 'success',
      confirmation: { reference: 'ref-1' },
    });
  }, 60_000);

  it('is recorded by the run that recorded the intent even when another run took the application over and has not ended it yet', async () => {
    const { applicationId, run } = await apply(
      answered(async () => {
        // The lease lapsed (a pause) and another run claimed the application; it will find the intent and say unknown.
        await db.query(
          `UPDATE applications SET run_owner = 'another-run', run_expires_at = now() + interval '30 seconds' WHERE state = 'submitting'`,
        );
      }),
    );
    expect(await run()).toEqual({ applicationId, status: 'success' });
    expect(await findApplication({ pool: db, sealer }, 'cl_test', { applicationId })).toMatchObject({ status: 'success' });
  });

  it('is not what an engine pulled away before the intent reports: the run records nothing and the application waits for the run that holds it', async () => {
    const job = new AbortController();
    const lockLost = new AbortController();
    const pulledAway: FakeApplier = Object.assign(
      async (_application: Parameters<FakeApplier>[0], _hooks: Parameters<FakeApplier>[1], signal: AbortSignal) => {
        // The queue's lock is lost while the page loads (Redis restarted, the worker cut off).
        lockLost.abort(new Error('lock lost'));
        job.abort(new Error('lock lost'));
        expect(signal.aborted).toBe(true);
        return {
          status: 'failed' as const,
          errorCode: 'ApplicationFailed' as const,
          message: 'no application form on the page',
          submitted: false,
        };
      },
      { calls: [], script: [] },
    );
    const { applicationId, run } = await apply(pulledAway);
    await expect(run({ signal: job.signal, lockLost: lockLost.signal, finalAttempt: true })).rejects.toThrow('lock lost');
    const row = (
      await db.query<{ state: string; run_owner: string | null }>('SELECT state, run_owner FROM applications WHERE application_id = $1', [
        applicationId,
      ])
    ).rows[0];
    expect(row).toEqual({ state: 'processing', run_owner: null });
  });
});
