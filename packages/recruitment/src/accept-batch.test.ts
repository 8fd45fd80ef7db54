import { Readable } from 'node:stream';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptBatch } from './accept-batch.ts';
import type { MiningQueuePort } from './recruitment-ports.ts';

let database: TestDatabase;
let pool: Pool;
const admitted: string[] = [];
// Our own port: the batch's admission request is all acceptBatch asks of the queue.
const queue = { requestAdmission: async (batchId: string) => void admitted.push(batchId) } as unknown as MiningQueuePort;
const settings = { batch: { concurrency: 2, ratePerMinute: 60 }, autoPause: { window: 10, minSuccessRate: 0.2 }, maxCsvBytes: 1_000_000 };
const clientId = 'cl_acceptbatchtest000000';

beforeAll(async () => {
  database = await createTestDatabase('accept_batch');
  pool = createPool(database.url, 2);
  await pool.query(
    `INSERT INTO clients (client_id, name, scopes, secret_hash, jwt_secret_ciphertext) VALUES ($1, 'csv', '{recruitment}', 'x', 'x')`,
    [clientId],
  );
});
afterAll(async () => {
  await pool.end();
  await database.drop();
});

async function rejection(csv: string): Promise<string[]> {
  const error = await acceptBatch({ pool, queue, settings }, clientId, Readable.from([csv]), { maxRows: 1000, source: 'text/csv' }).then(
    () => null,
    (failure: unknown) => failure as { details?: { messages?: string[] } },
  );
  expect(error, 'the batch should have been rejected').not.toBeNull();
  return error?.details?.messages ?? [];
}

const header = 'jobPostId,url,employer,jobTitle';
const good = (id: string) => `${id},https://jobs.example/${id},Acme,Engineer`;

describe('CSV intake errors', () => {
  it('lists every bad row, not the first fifty', async () => {
    const rows = Array.from({ length: 80 }, (_, index) => `p${index + 1},not a url,Acme,Engineer`);
    const messages = await rejection([header, ...rows].join('\n'));
    expect(messages).toHaveLength(80);
    expect(messages[0]).toBe('row 1: url: must be an absolute http(s) URL');
    expect(messages[79]).toBe('row 80: url: must be an absolute http(s) URL');
  });

  it('names the row where an unclosed quote starts, after the rows before it', async () => {
    const messages = await rejection(
      [header, good('a'), 'b,not a url,Acme,Engineer', good('c'), '"d,https://jobs.example/d,Acme,Engineer', good('e')].join('\n'),
    );
    expect(messages).toEqual(['row 2: url: must be an absolute http(s) URL', expect.stringMatching(/^row 4: not valid CSV: .*quote/i)]);
  });

  it('reports each row with broken quoting and keeps checking the rows after it', async () => {
    const messages = await rejection(
      [header, good('a'), 'b"x,https://jobs.example/b,Acme,Engineer', good('c'), 'd,not a url,Acme,Engineer'].join('\n'),
    );
    expect(messages).toEqual([
      expect.stringMatching(/^row 2: not valid CSV: Invalid Opening Quote/),
      'row 4: url: must be an absolute http(s) URL',
    ]);
  });

  it('reports a duplicate of an invalid row', async () => {
    const messages = await rejection([header, 'x,not a url,Acme,Engineer', good('y'), good('x')].join('\n'));
    expect(messages).toEqual(['row 1: url: must be an absolute http(s) URL', 'row 3: jobPostId "x" duplicates row 1']);
  });

  it('refuses a NUL byte in a cell, naming the row and column', async () => {
    const messages = await rejection([header, good('a'), 'b,https://jobs.example/b,Ac\u0000me,Engineer'].join('\n'));
    expect(messages).toEqual(['row 2: employer: must not contain NUL (\\u0000) characters']);
  });

  it('stops at a header it cannot read, and at an empty body', async () => {
    expect(await rejection('{"jobPostId": "a", "url": "x"}')).toEqual([
      expect.stringMatching(/^header: not valid CSV: Invalid Opening Quote/),
    ]);
    expect(await rejection(`jobPostId,url\n"a,b`)).toEqual([expect.stringMatching(/^header: missing column\(s\) employer, jobTitle/)]);
    expect(await rejection('')).toEqual([expect.stringMatching(/empty/)]);
  });

  it('still accepts a good batch', async () => {
    const accepted = await acceptBatch(
      { pool, queue, settings },
      clientId,
      Readable.from([[header, good('g1'), good('g2')].join('\r\n')]),
      { maxRows: 1000, source: 'text/csv' },
    );
    expect(accepted.jobsCount).toBe(2);
    expect(admitted).toContain(accepted.batchId);
  });
});
