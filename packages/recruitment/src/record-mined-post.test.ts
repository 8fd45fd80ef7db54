import { miningErrorMessages } from '@quarry/contracts';
import { createPool, type Pool } from '@quarry/db';
import type { MineOutcome } from '@quarry/miner';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMinedPost } from './find-mined-form.ts';
import { recordMinedPost } from './record-mined-post.ts';
import { retrieveMining } from './retrieve-mining.ts';

let database: TestDatabase;
let pool: Pool;
const clientId = 'cl_recordminedpost00000';
const post = (jobPostId: string) => ({
  clientId,
  jobPostId,
  url: `https://jobs.example/${jobPostId}`,
  employer: 'Acme',
  jobTitle: 'Engineer',
  country: 'gb',
});
const questions = [
  { id: 'first_name', question: 'First name', inputType: 'Text' as const, label: 'Apply', mandatory: true, category: 'firstName' as const },
];

beforeAll(async () => {
  database = await createTestDatabase('record_mined_post');
  pool = createPool(database.url, 2);
  await pool.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, 'apply', '{recruitment}', 'x', 'x')`,
    [clientId],
  );
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('recordMinedPost', () => {
  it('makes a mined form retrievable like one mined by the mining role, announced after the commit', async () => {
    const announced: string[] = [];
    const mined: MineOutcome = { ok: true, adapter: 'generic', form: { questions, answers: [] } };
    await recordMinedPost(
      {
        pool,
        now: () => new Date('2026-01-02T03:04:05Z'),
        announceOutcome: async (client, jobPostId) => void announced.push(`${client} ${jobPostId}`),
      },
      post('p-1'),
      mined,
      1234,
    );
    expect(JSON.parse(await retrieveMining(pool, clientId, 'p-1', 'v2'))).toEqual({
      jobPostId: 'p-1',
      succeededAt: '2026-01-02T03:04:05.000Z',
      answers: [],
      questions,
    });
    expect(JSON.parse(await retrieveMining(pool, clientId, 'p-1', 'v1')).questions).toEqual([
      { id: 'first_name', question: 'First name', inputType: 'Text', label: 'Apply', mandatory: true },
    ]);
    expect(await findMinedPost(pool, clientId, 'p-1')).toMatchObject({ url: 'https://jobs.example/p-1', questions });
    expect(announced).toEqual([`${clientId} p-1`]);
    const row = (await pool.query('SELECT state, adapter, duration_ms, batch_id FROM submissions WHERE job_post_id = $1', ['p-1'])).rows;
    expect(row).toEqual([{ state: 'completed', adapter: 'generic', duration_ms: 1234, batch_id: null }]);
  });

  it("records a failed mining as the post's failure", async () => {
    await recordMinedPost({ pool }, post('p-2'), { ok: false, adapter: null, errorCode: 'JobExpired', detail: 'closed' }, 10);
    expect(JSON.parse(await retrieveMining(pool, clientId, 'p-2', 'v2'))).toEqual({
      status: 'failed',
      errorCode: 'JobExpired',
      message: miningErrorMessages.JobExpired,
    });
  });
});
