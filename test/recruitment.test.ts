import { waitFor } from '@quarry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvOf, startRecruitmentStack, type RecruitmentStack } from './support/recruitment-stack.ts';

let stack: RecruitmentStack;

type Completed = {
  jobPostId: string;
  succeededAt: string;
  answers: Array<{ id: string; value: unknown }>;
  questions: Array<Record<string, unknown>>;
};

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function waitForCompleted(path: string): Promise<Completed> {
  return waitFor(
    `completed result at ${path}`,
    async () => {
      const body = await json<Completed & { status?: string }>(await stack.call(path));
      return body.questions ? body : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

beforeAll(async () => {
  stack = await startRecruitmentStack('recruit');
});
afterAll(async () => {
  await stack?.stop();
});

describe('single job posts', () => {
  it('mines a form and serves it on all three retrieval routes', async () => {
    const submitted = await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'single-1', url: `${stack.web.origin}/forms/basic`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    expect(submitted.status).toBe(200);
    expect(await submitted.json()).toEqual({ jobPostId: 'single-1', status: 'queued' });

    const questions = await waitForCompleted('/questions/single-1');
    expect(questions.jobPostId).toBe('single-1');
    expect(Number.isNaN(Date.parse(questions.succeededAt))).toBe(false);
    expect(questions.questions.map((question) => question.id)).toEqual([
      'first_name',
      'last_name',
      'email',
      'phone',
      'resume',
      'cover_letter',
      'source',
    ]);
    expect(questions.questions[2]).toMatchObject({ id: 'email', inputType: 'Text', mandatory: true, category: 'email' });
    expect(questions.answers).toContainEqual({ id: 'email', value: 'jane.doe@example.com' });

    const v2 = await json<Completed>(await stack.call('/v2/recruitment/job-posts/find?jobPostId=single-1'));
    expect(v2).toEqual(questions);
    const v1 = await json<Completed>(await stack.call('/v1/recruitment/job-posts/find/?jobPostId=single-1'));
    expect(v1.questions).toHaveLength(questions.questions.length);
    expect(v1.questions.some((question) => 'category' in question)).toBe(false);
  });

  it('mines a form that only exists once the page script runs, in the browser', async () => {
    await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'scripted', url: `${stack.web.origin}/forms/scripted`, employer: 'Acme', jobTitle: 'Designer' }),
    });
    const result = await waitForCompleted('/questions/scripted');
    expect(result.questions.map((question) => [question.id, question.inputType, question.mandatory])).toEqual([
      ['portfolio', 'Text', true],
      ['tool', 'SelectOne', false],
    ]);
    const adapter = await stack.db.query(`SELECT adapter FROM submissions WHERE job_post_id = 'scripted'`);
    expect(adapter.rows[0]).toEqual({ adapter: 'browser' });
  });

  it.each([
    ['gone', 'JobNotFound'],
    ['error', 'GenericWebsiteError'],
    ['closed', 'JobExpired'],
    ['login', 'LoginRequired'],
  ])('reports a %s site as failed with %s', async (kind, errorCode) => {
    const jobPostId = `fail-${kind}`;
    await stack.call('/v1/recruitment/job-posts/mine', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId, url: `${stack.web.origin}/${kind}/1`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    const body = await waitFor(`failure of ${jobPostId}`, async () => {
      const result = await json<{ status: string; errorCode?: string }>(await stack.call(`/questions/${jobPostId}`));
      return result.status === 'failed' ? result : undefined;
    });
    expect(body).toEqual({ status: 'failed', errorCode, message: expect.stringMatching(/\. .+\.$/) as unknown });
  });

  it.each([
    [
      'a host name that does not resolve',
      'no-such-host',
      'http://careers.quarry-test.invalid/jobs/1',
      'HostNotFound',
      /does not resolve/,
      /careers\.quarry-test\.invalid.*DNS lookup failed/,
    ],
    [
      'a link-local (cloud metadata) address',
      'metadata',
      'http://169.254.169.254/latest/meta-data',
      'AddressRefused',
      /private, loopback/,
      /169\.254\.169\.254 is a linkLocal address/,
    ],
    [
      'a URL with a password in it',
      'with-password',
      'http://user:pw@example.com/jobs/1',
      'UrlInvalid',
      /plain http\(s\) URL/,
      /credentials/,
    ],
  ])(
    'reports %s with its own code, a message saying what to do, and a log line',
    async (_kind, jobPostId, url, errorCode, message, logged) => {
      const submitted = await stack.call('/v1/recruitment/job-posts/mine', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jobPostId, url, employer: 'Acme', jobTitle: 'Engineer' }),
      });
      expect(submitted.status).toBe(200);
      const body = await waitFor(`failure of ${jobPostId}`, async () => {
        const result = await json<{ status: string; errorCode?: string; message?: string }>(await stack.call(`/questions/${jobPostId}`));
        return result.status === 'failed' ? result : undefined;
      });
      expect(body).toEqual({ status: 'failed', errorCode, message: expect.stringMatching(message) as unknown });
      const line = await waitFor('the failure logged', async () =>
        stack.workers[0]
          ?.output()
          .split('\n')
          .find((entry) => entry.includes('mining failed') && entry.includes(`"jobPostId":"${jobPostId}"`)),
      );
      expect(JSON.parse(line)).toMatchObject({ errorCode, detail: expect.stringMatching(logged) as unknown });
    },
  );

  it('keeps the old result readable until a re-submission completes', async () => {
    const first = await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'again', url: `${stack.web.origin}/forms/grouped`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    expect(first.status).toBe(200);
    const old = await waitForCompleted('/questions/again');
    await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'again', url: `${stack.web.origin}/slow/1?ms=1500`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    expect(await json(await stack.call('/questions/again'))).toEqual(old);
    const renewed = await waitFor('the re-submission result', async () => {
      const body = await json<Completed>(await stack.call('/questions/again'));
      return body.succeededAt !== old.succeededAt ? body : undefined;
    });
    expect(renewed.questions.map((question) => question.id)).toContain('first_name');
  });

  it('reports a failed re-submission at once, although the API had just served the old result', async () => {
    await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'then-gone', url: `${stack.web.origin}/forms/basic`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    const old = await waitForCompleted('/questions/then-gone');
    // Served (and kept by the API process) several times over, in both shapes.
    for (const path of [
      '/questions/then-gone',
      '/v1/recruitment/job-posts/find/?jobPostId=then-gone',
      '/v2/recruitment/job-posts/find?jobPostId=then-gone',
    ]) {
      expect((await stack.call(path)).status).toBe(200);
    }
    expect(await json(await stack.call('/questions/then-gone'))).toEqual(old);
    await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: 'then-gone', url: `${stack.web.origin}/gone/1`, employer: 'Acme', jobTitle: 'Engineer' }),
    });
    // Well within the retrieval cache's time to live: only the worker's announcement can do this.
    const failed = await waitFor(
      'the failure to be reported',
      async () => {
        const body = await json<{ status?: string; errorCode?: string }>(
          await stack.call('/v2/recruitment/job-posts/find?jobPostId=then-gone'),
        );
        return body.status === 'failed' ? body : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(failed.errorCode).toBeDefined();
    expect(await json(await stack.call('/questions/then-gone'))).toEqual(failed);
    expect(await json(await stack.call('/v1/recruitment/job-posts/find/?jobPostId=then-gone'))).toEqual(failed);
  });

  it('answers retrieval errors in the {error, message} shape', async () => {
    const missing = await stack.call('/questions/never-submitted');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'NotFound', message: 'jobPostId never-submitted does not exist' });
    const anonymous = await fetch(`${stack.base}/questions/single-1`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: 'AuthenticationRequired',
      message: expect.stringMatching(/^Invalid or missing secret: /) as unknown,
    });
    const noId = await stack.call('/v2/recruitment/job-posts/find');
    expect(noId.status).toBe(400);
    expect(await noId.json()).toMatchObject({ error: 'RequestParametersValidationError' });
  });

  it('names each invalid field of a single submission', async () => {
    const response = await stack.call('/v1/recruitment/job-posts/mine/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jobPostId: '', url: 'ftp://x', employer: 'Acme' }),
    });
    expect(response.status).toBe(400);
    const body = await json<{ details: { messages: string[] } }>(response);
    expect(body.details.messages.join('\n')).toMatch(/jobPostId/);
    expect(body.details.messages.join('\n')).toMatch(/url: must be an absolute http\(s\) URL/);
    expect(body.details.messages.join('\n')).toMatch(/jobTitle/);
  });
});

describe('batches', () => {
  const rows = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => ({ jobPostId: `${prefix}-${index + 1}`, url: `${stack.web.origin}/jobs/${index + 1}` }));

  it('mines 500-row batches sent as text/csv, octet-stream and fileUrl', async () => {
    const fileUrl = stack.web.serveFile('batch.csv', csvOf(rows('file', 500)));
    const responses = await Promise.all([
      stack.submitCsv(csvOf(rows('text', 500)), 'text/csv'),
      stack.submitCsv(csvOf(rows('octet', 500)), 'application/octet-stream'),
      stack.call('/v1/recruitment/job-posts/batch/mine', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileUrl }),
      }),
    ]);
    const batches = await Promise.all(
      responses.map(async (response) => {
        expect(response.status).toBe(200);
        return json<{ batchId: string; jobsCount: number }>(response);
      }),
    );
    for (const batch of batches) expect(batch.jobsCount).toBe(500);
    for (const batch of batches) {
      const status = await stack.waitForBatch(batch.batchId, 'finished', 120_000);
      expect(status).toMatchObject({ processedRate: 1, successRate: 1, jobsCount: 500 });
    }
    for (const prefix of ['text', 'octet', 'file']) {
      // The fixture site alternates form shapes: odd rows are the grouped form, even rows the basic one.
      const rowOne = await json<Completed>(await stack.call(`/questions/${prefix}-1`));
      expect(rowOne.questions.map((question) => question.id)).toContain('work_auth');
      const rowTwo = await json<Completed>(await stack.call(`/v1/recruitment/job-posts/find/?jobPostId=${prefix}-2`));
      expect(rowTwo.questions.map((question) => question.id)).toContain('first_name');
      const rowFive = await json<Completed>(await stack.call(`/v2/recruitment/job-posts/find?jobPostId=${prefix}-500`));
      expect(rowFive.jobPostId).toBe(`${prefix}-500`);
    }
  });

  it('lands quoted, padded and escaped cells exactly as the schema parses them', async () => {
    const url = `${stack.web.origin}/jobs/1`;
    const csv = [
      '\uFEFFjobPostId,url,employer,jobTitle,country',
      `plain-1,${url},Acme,Engineer,`,
      `"  padded-2  ",${url}," Acme, Inc.\r\nLondon ","Tab\there \\\\ back\\\\slash",nl`,
      `é-3,${url},Émile & Co,"Say ""hi""",pt`,
    ].join('\r\n');
    const accepted = await json<{ batchId: string; jobsCount: number }>(await stack.submitCsv(csv));
    expect(accepted.jobsCount).toBe(3);
    const stored = await stack.db.query(
      'SELECT job_post_id, row_no, url, employer, job_title, country FROM submissions WHERE batch_id = $1 ORDER BY row_no',
      [accepted.batchId],
    );
    expect(stored.rows).toEqual([
      { job_post_id: 'plain-1', row_no: 1, url, employer: 'Acme', job_title: 'Engineer', country: 'gb' },
      {
        job_post_id: 'padded-2',
        row_no: 2,
        url,
        employer: 'Acme, Inc.\r\nLondon',
        job_title: 'Tab\there \\\\ back\\\\slash',
        country: 'nl',
      },
      { job_post_id: 'é-3', row_no: 3, url, employer: 'Émile & Co', job_title: 'Say "hi"', country: 'pt' },
    ]);
    await stack.waitForBatch(accepted.batchId, 'finished');
  });

  it('rejects bad CSVs with row numbers and enqueues nothing', async () => {
    const before = await stack.db.query('SELECT count(*)::int AS n FROM batches');
    const cases: Array<[string, string, RegExp]> = [
      ['missing column', 'jobPostId,url,employer\r\na,http://x.example/1,Acme', /header: missing column\(s\) jobTitle/],
      [
        'bad URL',
        csvOf([
          { jobPostId: 'a', url: `${stack.web.origin}/jobs/1` },
          { jobPostId: 'b', url: 'not a url' },
        ]),
        /row 2: url: must be an absolute http\(s\) URL/,
      ],
      [
        'duplicate id',
        csvOf([
          { jobPostId: 'a', url: `${stack.web.origin}/jobs/1` },
          { jobPostId: 'b', url: `${stack.web.origin}/jobs/2` },
          { jobPostId: 'a', url: `${stack.web.origin}/jobs/3` },
        ]),
        /row 3: jobPostId "a" duplicates row 1/,
      ],
      [
        'stray column',
        `${csvOf([{ jobPostId: 'a', url: `${stack.web.origin}/jobs/1` }])}\r\nb,${stack.web.origin}/jobs/2,Acme,Engineer,extra`,
        /row 2: 5 fields, the header has 4/,
      ],
      ['too many rows', csvOf(rows('many', 30_001)), /more than 30000 job posts/],
      ['JSON instead of CSV', '{"jobPostId": "a", "url": "x"}', /not valid CSV: Invalid Opening Quote/],
      ['plain text instead of CSV', 'hello world\nthis is not a batch', /header: missing column\(s\) jobPostId, url, employer, jobTitle/],
      ['unbalanced quotes', 'jobPostId,url,employer,jobTitle\r\n"a,http://x.example,Acme,Eng', /not valid CSV/],
      ['empty', '', /empty/],
    ];
    for (const [label, csv, expected] of cases) {
      const response = await stack.submitCsv(csv);
      expect(response.status, label).toBe(400);
      const body = await json<{ name: string; details: { messages: string[] } }>(response);
      expect(body.name, label).toBe('RequestParametersValidationError');
      expect(body.details.messages.join('\n'), label).toMatch(expected);
    }
    const wrongType = await stack.submitCsv('a,b', 'application/xml');
    expect(wrongType.status).toBe(415);
    // 127.0.0.2 is loopback but not in ALLOW_PRIVATE_URLS (127.0.0.1): the SSRF guard refuses it
    // before connecting, whatever is listening there.
    const refusedFile = await stack.call('/v1/recruitment/job-posts/batch/mine', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileUrl: `${stack.web.origin.replace('127.0.0.1', '127.0.0.2')}/files/batch.csv` }),
    });
    expect(refusedFile.status).toBe(400);
    expect(((await refusedFile.json()) as { details: { messages: string[] } }).details.messages[0]).toMatch(
      /^fileUrl: .*127\.0\.0\.2.*(loopback|private|not allowed|refused)/i,
    );
    const after = await stack.db.query('SELECT count(*)::int AS n FROM batches');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('keeps tenants apart', async () => {
    const other = await stack.newTenant(['recruitment']);
    const accepted = await json<{ batchId: string }>(
      await stack.submitCsv(csvOf([{ jobPostId: 'mine-only', url: `${stack.web.origin}/jobs/1` }])),
    );
    await stack.waitForBatch(accepted.batchId, 'finished');
    expect((await stack.call('/questions/mine-only', { as: other })).status).toBe(404);
    expect((await stack.call(`/v1/recruitment/job-posts/batch/status/?batchId=${accepted.batchId}`, { as: other })).status).toBe(404);
    expect((await stack.call('/v1/admin/batches', { as: other })).status).toBe(403);
  });
});
