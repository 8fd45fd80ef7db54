import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, type Logger } from './logger.ts';

const redacted = '[Redacted]';

/** A logger writing into memory; `lines()` parses what it wrote so far. */
function capture(): { logger: Logger; raw: () => string; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = createLogger({ level: 'info', name: 'logger-test', destination });
  const raw = () => {
    logger.flush?.();
    return chunks.join('');
  };
  const lines = () =>
    raw()
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, raw, lines };
}

function only(lines: Array<Record<string, unknown>>): Record<string, unknown> {
  expect(lines).toHaveLength(1);
  return lines[0] ?? {};
}

// Deterministic stand-ins for card tokens, in the token alphabet (base64 and base64url characters).
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const tokenOf = (length: number, seed: number) => Array.from({ length }, (_, index) => alphabet[(index * 7 + seed) % 64]).join('');
const cardToken = `Q${tokenOf(162, 3)}z`;
const cardTokenV2 = `v2:Q${tokenOf(294, 11)}z`;

describe('createLogger', () => {
  it('writes JSON lines with the level, name and message', () => {
    const { logger, lines } = capture();
    logger.info({ jobPostId: 'jp_1' }, 'hello');
    logger.debug('below the level');
    const line = only(lines());
    expect(line).toMatchObject({ level: 30, name: 'logger-test', msg: 'hello', jobPostId: 'jp_1' });
  });
});

describe('redaction by path', () => {
  it('redacts credential headers of a request', () => {
    const { logger, lines, raw } = capture();
    logger.info(
      {
        req: {
          method: 'GET',
          url: '/v1/whoami',
          headers: {
            authorization: 'Basic cXNfc2VjcmV0Og==',
            cookie: 'session=s3cr3t-cookie',
            'x-api-key': 'key-123456789',
            accept: 'application/json',
          },
        },
      },
      'request',
    );
    const line = only(lines());
    expect(line.req).toEqual({
      method: 'GET',
      url: '/v1/whoami',
      headers: { authorization: redacted, cookie: redacted, 'x-api-key': redacted, accept: 'application/json' },
    });
    for (const leaked of ['cXNfc2VjcmV0Og', 's3cr3t-cookie', 'key-123456789']) expect(raw()).not.toContain(leaked);
  });

  it('redacts credential fields at the top level', () => {
    const { logger, lines, raw } = capture();
    const secrets = {
      authorization: 'Bearer top-level-token-value',
      secret: 'qs_top-secret-value',
      jwtSecret: 'qj_top-jwt-secret-value',
      password: 'hunter2-password',
      apiKey: 'api-key-value-42',
      panToken: 'pan-token-value-7',
      cookies: { session: 'cookie-value-9' },
    };
    logger.info({ ...secrets, jobPostId: 'jp_42' }, 'fields');
    const line = only(lines());
    for (const key of Object.keys(secrets)) expect(line[key]).toBe(redacted);
    expect(line.jobPostId).toBe('jp_42');
    for (const leaked of [
      'top-level-token-value',
      'top-secret-value',
      'top-jwt-secret-value',
      'hunter2',
      'api-key-value-42',
      'pan-token-value-7',
      'cookie-value-9',
    ]) {
      expect(raw()).not.toContain(leaked);
    }
  });

  it('redacts credential fields one level down, and x-api-key headers of a response', () => {
    const { logger, lines, raw } = capture();
    logger.info(
      {
        client: {
          clientId: 'cl_1',
          secret: 'nested-secret-1',
          jwtSecret: 'nested-jwt-2',
          password: 'nested-pass-3',
          apiKey: 'nested-key-4',
          panToken: 'nested-pan-5',
        },
        upstream: { authorization: 'Basic bmVzdGVkLWF1dGg=', cookies: ['nested-cookie-6'] },
        headers: { 'x-api-key': 'header-key-7' },
        response: { status: 200, headers: { 'x-api-key': 'header-key-8', 'content-type': 'text/html' } },
      },
      'nested',
    );
    const line = only(lines());
    expect(line.client).toEqual({
      clientId: 'cl_1',
      secret: redacted,
      jwtSecret: redacted,
      password: redacted,
      apiKey: redacted,
      panToken: redacted,
    });
    expect(line.upstream).toEqual({ authorization: redacted, cookies: redacted });
    expect(line.headers).toEqual({ 'x-api-key': redacted });
    expect(line.response).toEqual({ status: 200, headers: { 'x-api-key': redacted, 'content-type': 'text/html' } });
    expect(raw()).not.toMatch(/nested-|header-key-|bmVzdGVkLWF1dGg/);
  });

  it('redacts fields bound to a child logger', () => {
    const { logger, lines, raw } = capture();
    logger.child({ apiKey: 'child-bound-key' }).info({ jobPostId: 'jp_7' }, 'child');
    const line = only(lines());
    expect(line.apiKey).toBe(redacted);
    expect(line.jobPostId).toBe('jp_7');
    expect(raw()).not.toContain('child-bound-key');
  });
});

describe('redaction by name, at any depth', () => {
  // Each kind of secret a log object can carry, under its own name, three levels down.
  const secrets: Record<string, string> = {
    key: 'lever-posting-key-31',
    otp: '482915',
    webhookSecret: 'whsec_MfKQ9r2GKadM',
    refreshToken: 'rt-sh0rt-9',
    accessToken: 'at-sh0rt-4',
    clientSecret: 'cs-sh0rt-8',
    password: 'correct horse',
    apiKey: 'ak-sh0rt-2',
    secret: 'plain-secret-5',
    jwtSecret: 'jwt-sh0rt-6',
    panToken: 'tok-sh0rt-7',
    cvv: '123',
    authorization: 'Token abc',
    cookie: 'session=abc',
  };

  it('redacts every secret kind nested three deep, and leaves the fields beside them', () => {
    const { logger, raw, lines } = capture();
    logger.info({ job: { attempt: { request: { ...secrets, host: 'api.lever.co' } } } }, 'nested');
    const line = only(lines()) as { job: { attempt: { request: Record<string, unknown> } } };
    for (const name of Object.keys(secrets)) expect(line.job.attempt.request[name], name).toBe(redacted);
    expect(line.job.attempt.request.host).toBe('api.lever.co');
    for (const value of Object.values(secrets)) expect(raw()).not.toContain(value);
  });

  it('strips secrets from the query strings of logged URLs, in fields and messages', () => {
    const { logger, raw, lines } = capture();
    logger.info(
      { call: { url: 'https://api.lever.co/v0/postings/acme/0f3e?key=lever-posting-key-31&mode=json' } },
      'GET https://x.example/cb?token=t0k3n-22&api_key=ak-99#f',
    );
    const line = only(lines()) as { call: { url: string }; msg: string };
    expect(line.call.url).toBe('https://api.lever.co/v0/postings/acme/0f3e?key=[Redacted]&mode=json');
    expect(line.msg).toBe('GET https://x.example/cb?token=[Redacted]&api_key=[Redacted]#f');
    for (const value of ['lever-posting-key-31', 't0k3n-22', 'ak-99']) expect(raw()).not.toContain(value);
  });
});

describe('masking by shape', () => {
  it('uses tokens of the documented lengths', () => {
    expect(cardToken).toHaveLength(164);
    expect(cardTokenV2).toHaveLength(3 + 296);
    expect(cardToken).toMatch(/[+/]/);
  });

  it('masks card tokens inside a free-text message', () => {
    const { logger, lines, raw } = capture();
    logger.info(`charge failed for ${cardToken} at PSP`);
    logger.info(`charge failed for ${cardTokenV2}, retrying`);
    expect(lines().map((line) => line.msg)).toEqual([`charge failed for ${redacted} at PSP`, `charge failed for ${redacted}, retrying`]);
    expect(raw()).not.toContain(cardToken.slice(20, 60));
    expect(raw()).not.toContain(cardTokenV2.slice(20, 60));
  });

  it('masks card tokens inside message format arguments', () => {
    const { logger, lines } = capture();
    logger.info('token %s rejected', cardToken);
    expect(only(lines()).msg).toBe(`token ${redacted} rejected`);
  });

  it('masks card tokens inside nested object strings and arrays', () => {
    const { logger, lines, raw } = capture();
    logger.info(
      {
        booking: { note: `guest card ${cardToken}`, history: [`old card ${cardTokenV2}`, 'no card here'] },
        body: `{"card":"${cardToken}"}`,
      },
      'booking',
    );
    const line = only(lines());
    expect(line.booking).toEqual({ note: `guest card ${redacted}`, history: [`old card ${redacted}`, 'no card here'] });
    expect(line.body).toBe(`{"card":"${redacted}"}`);
    expect(raw()).not.toContain(cardToken.slice(20, 60));
    expect(raw()).not.toContain(cardTokenV2.slice(20, 60));
  });

  it.each([
    ['a v1 token that starts with "/"', `/${tokenOf(163, 5)}`],
    ['a v1 token that ends with "+"', `${tokenOf(163, 5)}+`],
    ['a v1 base64url token that ends with "-"', `${tokenOf(163, 9).replace(/[+/]/g, '_')}-`],
    ['a v2 token that ends with "/"', `v2:${tokenOf(295, 2)}/`],
  ])('masks %s', (_label, token) => {
    const { logger, lines, raw } = capture();
    logger.info(`card ${token} declined`);
    logger.info({ payment: { card: `card=${token}` } }, 'declined');
    const [first, second] = lines();
    expect(first?.msg).toBe(`card ${redacted} declined`);
    expect(second?.payment).toEqual({ card: `card=${redacted}` });
    expect(raw()).not.toContain(token.slice(10, 100));
  });

  it('masks Basic and Bearer credentials inside a message string', () => {
    const { logger, lines, raw } = capture();
    logger.error('upstream rejected Authorization: Basic dXNlcjpwYXNzd29yZA== for /v1/jobs');
    logger.error('upstream rejected bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbF8xIn0.c2lnbmF0dXJl');
    expect(lines().map((line) => line.msg)).toEqual([
      `upstream rejected Authorization: ${redacted} for /v1/jobs`,
      `upstream rejected ${redacted}`,
    ]);
    expect(raw()).not.toMatch(/dXNlcjpwYXNzd29yZA|eyJzdWIiOiJjbF8xIn0/);
  });

  it('masks Basic and Bearer credentials inside the message of an error string field', () => {
    const { logger, lines, raw } = capture();
    logger.error({ error: 'fetch failed: Bearer abcdefgh12345678 was refused', url: 'https://example.com/jobs/1' }, 'call failed');
    const line = only(lines());
    expect(line.error).toBe(`fetch failed: ${redacted} was refused`);
    expect(line.url).toBe('https://example.com/jobs/1');
    expect(raw()).not.toContain('abcdefgh12345678');
  });

  it('masks Basic and Bearer credentials inside a logged Error', () => {
    const { logger, lines, raw } = capture();
    logger.error({ err: new Error('request failed: Authorization: Basic dXNlcjpwYXNzd29yZA==') }, 'call failed');
    logger.error(new Error('request failed: Bearer abcdefgh12345678'));
    const [withMessage, bare] = lines();
    expect(withMessage?.msg).toBe('call failed');
    expect(withMessage?.err).toMatchObject({ type: 'Error', message: `request failed: Authorization: ${redacted}` });
    expect(bare?.err).toMatchObject({ type: 'Error', message: `request failed: ${redacted}` });
    expect(bare?.msg).toBe(`request failed: ${redacted}`);
    expect(raw()).not.toMatch(/dXNlcjpwYXNzd29yZA|abcdefgh12345678/);
    // The stack is still logged, only masked.
    expect(String((bare?.err as { stack?: unknown }).stack)).toContain('logger.test.ts');
  });
});

describe('masking card numbers by shape', () => {
  it.each([
    ['16 digits', '4242424242424242'],
    ['grouped by spaces', '4242 4242 4242 4242'],
    ['grouped by dashes', '4000-0566-5566-5556'],
    ['13 digits', '4222222222222'],
    ['19 digits', '6011 0009 9013 9424 123'],
    ['failing the Luhn check', '4242424242424241'],
  ])('masks a PAN (%s) in messages, fields and errors', (_label, pan) => {
    const { logger, lines, raw } = capture();
    logger.info(`charge with ${pan} declined`);
    logger.info({ booking: { note: `card=${pan}`, cards: [pan] } }, 'declined');
    logger.error({ err: new Error(`gateway said: card ${pan} is blocked`) }, 'payment failed');
    const [message, fields, error] = lines();
    expect(message?.msg).toBe(`charge with ${redacted} declined`);
    expect(fields?.booking).toEqual({ note: `card=${redacted}`, cards: [redacted] });
    expect(error?.err).toMatchObject({ message: `gateway said: card ${redacted} is blocked` });
    expect(raw()).not.toContain(pan);
    expect(raw()).not.toContain(pan.replace(/[ -]/g, '').slice(0, 12));
  });

  it('redacts pan and cvv fields whatever their type', () => {
    const { logger, lines, raw } = capture();
    logger.info({ pan: 4242424242424242, cvv: 737, body: { pan: 4242424242424242, cvv: '737' } }, 'body');
    const line = only(lines());
    expect(line).toMatchObject({ pan: redacted, cvv: redacted, body: { pan: redacted, cvv: redacted } });
    expect(raw()).not.toContain('4242424242');
    // The line's clock and process id may hold any three digits: the CVV is looked for in the rest.
    const { time: _time, pid: _pid, ...logged } = line;
    expect(JSON.stringify(logged)).not.toContain('737');
  });

  it('keeps runs of 12 digits or fewer, dates, phone numbers and UUIDs, all-digit groups included', () => {
    const { logger, lines } = capture();
    const text = 'order 123456789012 on 2026-03-10T12:00:00Z, call +44 20 7946 0958, batch 44444444-4444-4444-8444-444444444444';
    logger.info({ note: text }, text);
    const line = only(lines());
    expect(line.msg).toBe(text);
    expect(line.note).toBe(text);
  });
});

describe('ordinary fields', () => {
  it('keeps ids, URLs, numbers and ordinary text unchanged', () => {
    const { logger, lines } = capture();
    const longId = 'x'.repeat(200);
    const fields = {
      jobPostId: 'jp_01HZX3Q9V7',
      url: 'https://careers.example.com/jobs/123?ref=abc&utm_source=board',
      attempts: 3,
      ok: true,
      tags: ['remote', 'full-time'],
      nested: { title: 'Senior Bearer of Good News', longId },
      shortish: tokenOf(163, 1).replace(/[+/]/g, 'a'),
    };
    logger.info(fields, 'job post fetched from https://careers.example.com/jobs/123');
    const line = only(lines());
    expect(line).toMatchObject({ ...fields, msg: 'job post fetched from https://careers.example.com/jobs/123' });
  });
});
