import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createJobQueues, createRedis, type JobQueues } from '@quarry/jobs';
import { createTestDatabase, createTestRedis, type TestDatabase, type TestRedis } from '@quarry/testing';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';
import { startEdgeApp } from './test-support/edge-app.ts';

const secretKey = Buffer.alloc(32, 5);
const maxCsvBytes = 100_000;
let database: TestDatabase;
let testRedis: TestRedis;
let db: Pool;
let redis: Redis;
let queues: JobQueues;
let app: Awaited<ReturnType<typeof startEdgeApp>>;
let authorization: string;

type ErrorBody = {
  object?: string;
  name?: string;
  error?: string;
  message: string;
  details?: { messages?: string[]; limitBytes?: number };
};

beforeAll(async () => {
  database = await createTestDatabase('api_edge');
  testRedis = createTestRedis('api-edge');
  db = createPool(database.url, 4);
  redis = createRedis(testRedis.url);
  queues = createJobQueues({ connection: redis, prefix: testRedis.prefix });
  const everything = await createClient(
    { db, secretKey },
    { name: 'everything', scopes: ['admin', 'recruitment', 'forwarding', 'hotels', 'booking'] },
  );
  authorization = `Basic ${Buffer.from(`${everything.secret}:`).toString('base64')}`;
  app = await startEdgeApp({ db, queues, secretKey, maxCsvBytes });
});

afterAll(async () => {
  await app.close();
  await queues.close();
  redis.disconnect();
  await db.end();
  await testRedis.cleanup();
  await database.drop();
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${app.base}${path}`, { ...init, headers: { authorization, ...(init.headers as Record<string, string> | undefined) } });

type Operation = {
  parameters?: Array<{ name: string; in: 'path' | 'query' }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string; properties?: Record<string, unknown> } }> };
};

/** Every operation of the published document, so an endpoint added later is walked too. */
function operations(): Array<{ method: string; path: string; operation: Operation }> {
  const document = buildOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const content = operation.requestBody?.content['application/json'];
      const ref = content?.schema.$ref?.split('/').pop();
      const properties = ref ? document.components?.schemas?.[ref]?.properties : content?.schema.properties;
      return {
        method: method.toUpperCase(),
        path,
        operation: { ...operation, ...(properties ? { bodyFields: Object.keys(properties) } : {}) } as Operation & {
          bodyFields?: string[];
        },
      };
    }),
  );
}

const fill = (path: string, value: string) => path.replace(/\{[^}]+\}/g, value);

describe('NUL characters, on every endpoint of the OpenAPI document', () => {
  const all = operations();

  it('walks a non-trivial document', () => {
    expect(all.length).toBeGreaterThan(40);
  });

  it.each(all.filter(({ path }) => path.includes('{')).map(({ method, path }) => [method, path]))(
    '%s %s: a path id holding a NUL character is a 404',
    async (method, path) => {
      const response = await call(fill(path, 'a%00b'), { method });
      expect(response.status).toBe(404);
    },
  );

  it.each(all.filter(({ path }) => path.includes('{')).map(({ method, path }) => [method, path]))(
    '%s %s: a path id of the wrong shape is no 500',
    async (method, path) => {
      const response = await call(fill(path, 'not-a-uuid'), {
        method,
        ...(method === 'GET' || method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
      });
      expect(response.status).toBeLessThan(500);
    },
  );

  const queried = all.flatMap(({ method, path, operation }) =>
    (operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => [method, path, parameter.name] as const),
  );
  it.each(queried)('%s %s: a NUL in query %s is a 400 naming it', async (method, path, name) => {
    const response = await call(`${fill(path, '00000000-0000-4000-8000-000000000000')}?${name}=a%00b`, { method });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.details?.messages ?? [body.message]).toContain(`${name}: must not contain NUL (\\u0000) characters`);
  });

  const bodied = all.flatMap(({ method, path, operation }) =>
    ((operation as { bodyFields?: string[] }).bodyFields ?? []).slice(0, 1).map((field) => [method, path, field] as const),
  );
  it.each(bodied)('%s %s: a NUL in body field %s is a 400 naming it', async (method, path, field) => {
    const response = await call(fill(path, '00000000-0000-4000-8000-000000000000'), {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ [field]: 'a\u0000b' }),
    });
    expect(response.status).toBe(400);
    // The recruitment surface answers {error, message}: the one problem is the message.
    const body = (await response.json()) as ErrorBody;
    expect(body.details?.messages ?? [body.message]).toContain(`${field}: must not contain NUL (\\u0000) characters`);
  });

  it('names a NUL nested inside a body', async () => {
    const response = await call('/v1/admin/hotel-grants', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'cl_x', hotelIds: ['h1', 'h\u00002'] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).details?.messages).toEqual(['hotelIds.1: must not contain NUL (\\u0000) characters']);
  });

  it('answers the retrieval surface in its own shape', async () => {
    const response = await call('/questions/a%00b');
    expect(response.status).toBe(404);
    expect(Object.keys((await response.json()) as object).sort()).toEqual(['error', 'message']);
  });

  it('refuses a NUL on the unauthenticated redirect', async () => {
    const response = await fetch(`${app.base}/redirect?hotelId=a%00b`, { redirect: 'manual' });
    expect(response.status).toBe(400);
  });

  it('answers a push subscription id that is not a UUID with 404', async () => {
    const response = await call('/v1/hotels/push-subscriptions/not-a-uuid', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
  });
});

describe('bodies of the wrong type', () => {
  it.each([
    ['/Forwarding/bind', 'text/plain'],
    ['/v1/recruitment/job-posts/mine', 'application/x-www-form-urlencoded'],
    ['/v1/admin/canaries', undefined],
  ])('POST %s with %s is a 415 saying what is expected', async (path, type) => {
    const response = await call(path, { method: 'POST', headers: type ? { 'content-type': type } : {}, body: 'jobPostId=1' });
    expect(response.status).toBe(415);
    const body = (await response.json()) as ErrorBody;
    expect(body).toMatchObject({ object: 'error', name: 'UnsupportedMediaType' });
    expect(body.message).toMatch(/^Content-Type: must be application\/json, not /);
  });

  it('calls a batch body of an unknown type a 415 too', async () => {
    const response = await call('/v1/recruitment/job-posts/batch/mine', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as ErrorBody).message).toMatch(/application\/json, text\/csv, application\/octet-stream/);
  });

  it.each(['null', '[]', '"text"', '42'])('answers a JSON body of %s with "must be a JSON object"', async (text) => {
    const response = await call('/Forwarding/bind', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).details?.messages).toEqual(['body: must be a JSON object']);
  });
});

describe('CSV bodies over the limit', () => {
  const csv = `jobPostId,url,employer,jobTitle\n${'x,https://jobs.example/x,Acme,Engineer\n'.repeat(Math.ceil((maxCsvBytes * 3) / 40))}`;

  it('answers 413 with the limit when the length is announced', async () => {
    const response = await call('/v1/recruitment/job-posts/batch/mine', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: csv,
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as ErrorBody;
    expect(body).toMatchObject({ name: 'PayloadTooLarge', details: { limitBytes: maxCsvBytes } });
    expect(body.message).toContain(String(maxCsvBytes));
  });

  it('answers 413 with the limit when the body is streamed without a length', async () => {
    const bytes = new TextEncoder().encode(csv);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 16_384) controller.enqueue(bytes.slice(offset, offset + 16_384));
        controller.close();
      },
    });
    const response = await call('/v1/recruitment/job-posts/batch/mine', {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as ErrorBody).details?.limitBytes).toBe(maxCsvBytes);
  });
});

describe('authentication challenges', () => {
  it.each([
    ['/v1/whoami', 'standard'],
    ['/Pull/Hotels', 'hotels'],
    ['/questions/anything', 'questions'],
  ])('a 401 from %s names Basic and Bearer', async (path) => {
    const response = await fetch(`${app.base}${path}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="quarry", Bearer realm="quarry"');
  });

  it('the dashboard names its sign-in form, not Basic (browsers would prompt)', async () => {
    const response = await fetch(`${app.base}/dashboard/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'secret=wrong',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Cookie realm="quarry dashboard"/);
  });
});

describe('dashboard sign-in', () => {
  it('refuses an opaque Origin (null) with the refused-origin page', async () => {
    const response = await fetch(`${app.base}/dashboard/login`, {
      method: 'POST',
      headers: { origin: 'null', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'secret=x',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Sign-in from another site was refused.');
  });
});
