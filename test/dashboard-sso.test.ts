import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import { createTestDatabase, createTestRedis, freePort, quarryEnv, type TestDatabase, type TestRedis } from '@quarry/testing';
import Provider from 'oidc-provider';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type QuarryProcess } from './support/quarry-process.ts';

const secretKey = Buffer.alloc(32, 8);
let database: TestDatabase;
let redis: TestRedis;
let db: Pool;
let api: QuarryProcess;
let browser: Browser;
let providerServer: ReturnType<Provider['listen']>;
let base: string;

beforeAll(async () => {
  database = await createTestDatabase('sso');
  redis = createTestRedis('sso');
  db = createPool(database.url, 2);
  const operators = await createClient({ db, secretKey }, { name: 'operators (sso)', scopes: ['admin'] });
  const [apiPort, providerPort] = [await freePort(), await freePort()];
  base = `http://127.0.0.1:${apiPort}`;
  const issuer = `http://127.0.0.1:${providerPort}`;
  // A real OpenID Connect provider; its development login and consent pages accept any user name.
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'quarry-dashboard',
        client_secret: 'dashboard-secret',
        redirect_uris: [`${base}/dashboard/sso/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { email: ['email', 'email_verified'] },
    findAccount: (_context: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, email: id, email_verified: true }) }),
    cookies: { keys: ['sso-test-cookie-key'] },
  });
  providerServer = provider.listen(providerPort, '127.0.0.1');
  api = await startQuarry('api', {
    PORT: String(apiPort),
    ...quarryEnv({ database, redis, secretKey }),
    DASHBOARD_OIDC_ISSUER: issuer,
    DASHBOARD_OIDC_CLIENT_ID: 'quarry-dashboard',
    DASHBOARD_OIDC_CLIENT_SECRET: 'dashboard-secret',
    DASHBOARD_OIDC_ADMIN_CLIENT_ID: operators.clientId,
    DASHBOARD_PUBLIC_URL: base,
    DASHBOARD_OIDC_ALLOWED_EMAILS: '@ops.example.com',
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  api?.child.kill('SIGKILL');
  await api?.exited;
  providerServer?.close();
  await db?.end();
  await redis?.cleanup();
  await database?.drop();
});

async function signInAs(email: string) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${base}/dashboard/login`);
  await page.click('text=Sign in with single sign-on');
  await page.fill('input[name=login]', email);
  await page.fill('input[name=password]', 'anything');
  await page.click('button[type=submit]');
  await page.click('button[type=submit]'); // consent
  await page.waitForLoadState('networkidle');
  return page;
}

describe('dashboard single sign-on', () => {
  it('signs an allowed user in through the OpenID Connect provider', async () => {
    const page = await signInAs('alice@ops.example.com');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await expect(page.locator('header .muted').textContent()).resolves.toBe('operators (sso)');
    await page.context().close();
  });

  it('refuses a user outside the allowed emails', async () => {
    const page = await signInAs('mallory@elsewhere.example.com');
    await expect(page.locator('.error').textContent()).resolves.toBe('mallory@elsewhere.example.com may not use this dashboard.');
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await page.context().close();
  });

  it('refuses a callback that was not started here', async () => {
    const response = await fetch(`${base}/dashboard/sso/callback?code=forged&state=forged`);
    expect(response.status).toBe(400);
  });
});
