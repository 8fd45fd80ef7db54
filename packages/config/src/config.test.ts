import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const secret = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret });
    expect(config.port).toBe(8080);
    expect(config.smtpPort).toBe(2525);
    expect(config.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/quarry');
    expect(config.allowPrivateUrls).toEqual([]);
  });

  it('starts Chromium as an unprivileged user when root (65534:65534 unless CHROMIUM_RUN_AS says), never as root', () => {
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'bookings-worker').chromiumRunAs).toEqual({ uid: 65534, gid: 65534 });
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, CHROMIUM_RUN_AS: '1001:1002' }, 'mining-worker').chromiumRunAs).toEqual({
      uid: 1001,
      gid: 1002,
    });
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, CHROMIUM_RUN_AS: '0:0' }, 'rates-worker')).toThrow(
      /CHROMIUM_RUN_AS must be uid:gid of an unprivileged user/,
    );
  });

  it("reads the browser pools' limits as BROWSER_*, and still under their deprecated MINING_BROWSER_* names when the new one is unset", () => {
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'applications-worker').browser).toEqual({
      chromiumPath: '/usr/bin/chromium-headless-shell',
      recycleAfterJobs: 50,
      recycleAboveMb: 1024,
      maxContexts: 5,
    });
    const renamed = { BROWSER_RECYCLE_JOBS: '7', BROWSER_RECYCLE_MB: '300', BROWSER_CONTEXTS: '3' };
    const deprecated = { MINING_BROWSER_RECYCLE_JOBS: '9', MINING_BROWSER_RECYCLE_MB: '400', MINING_BROWSER_CONTEXTS: '2' };
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, ...deprecated }, 'bookings-worker').browser).toMatchObject({
      recycleAfterJobs: 9,
      recycleAboveMb: 400,
      maxContexts: 2,
    });
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, ...deprecated, ...renamed }, 'mining-worker').browser).toMatchObject({
      recycleAfterJobs: 7,
      recycleAboveMb: 300,
      maxContexts: 3,
    });
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, MINING_BROWSER_CONTEXTS: '0' }, 'mining-worker')).toThrow(
      /MINING_BROWSER_CONTEXTS/,
    );
  });

  it("leaves mining's browser switch to mining: the bookings worker does not read MINING_BROWSER", () => {
    const bookings = loadConfig({ QUARRY_SECRET_KEY: secret, MINING_BROWSER: 'maybe' }, 'bookings-worker');
    expect('mining' in bookings).toBe(false);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, MINING_BROWSER: 'off' }, 'mining-worker').mining.browser.enabled).toBe(false);
  });

  it('sends card data over plain http: to no hotel unless ALLOW_LOOPBACK_HTTP_HOTELS says true', () => {
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }).allowLoopbackHttpHotels).toBe(false);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'api').allowLoopbackHttpHotels).toBe(false);
    expect(loadConfig({}, 'hotels').allowLoopbackHttpHotels).toBe(false);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, ALLOW_LOOPBACK_HTTP_HOTELS: 'true' }, 'api').allowLoopbackHttpHotels).toBe(true);
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, ALLOW_LOOPBACK_HTTP_HOTELS: 'yes' }, 'api')).toThrow(
      /ALLOW_LOOPBACK_HTTP_HOTELS must be true or false/,
    );
  });

  it("recovers a crashed process's jobs within 15 s by default (lock expiry, then the next stalled check)", () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret });
    expect(config.jobLockMs + config.jobStalledIntervalMs).toBeLessThanOrEqual(15_000);
  });

  it("gives a browser checkout a lease of its own, longer than the job lock, so a store outage of the lock's length does not hand it on", () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret }, 'bookings-worker');
    expect(config.bookings.checkoutLeaseMs).toBe(60_000);
    expect(config.bookings.checkoutLeaseMs).toBeGreaterThan(config.jobLockMs);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, BOOKING_CHECKOUT_LEASE_MS: '3000' }, 'bookings-worker').bookings.checkoutLeaseMs).toBe(
      3_000,
    );
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, BOOKING_CHECKOUT_LEASE_MS: '500' }, 'bookings-worker')).toThrow(
      /BOOKING_CHECKOUT_LEASE_MS/,
    );
  });

  it('names every bad variable at once', () => {
    let thrown: unknown;
    try {
      loadConfig({ PORT: 'eighty', REDIS_URL: 'http://nope', LOG_LEVEL: 'loud' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    const problems = (thrown as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'REDIS_URL', 'LOG_LEVEL', 'QUARRY_SECRET_KEY']) expect(problems).toContain(name);
  });

  it('validates only what a role reads; all validates the union', () => {
    const env = {
      SMTP_PORT: 'twenty-five',
      MAIL_DOMAINS: 'not a domain!',
      MINING_BROWSER: 'maybe',
      RATES_NIGHTS: 'x',
      DASHBOARD_OIDC_ISSUER: 'https://idp.example',
    };
    const problemsOf = (run: () => unknown) => {
      try {
        run();
        return [];
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
    };
    const rates = loadConfig({ ...env, MINING_BROWSER: 'on', RATES_NIGHTS: '1,2', QUARRY_SECRET_KEY: secret }, 'rates-worker');
    expect(rates.rates.nights).toEqual([1, 2]);
    expect('smtp' in rates || 'mail' in rates || 'mining' in rates).toBe(false);
    // A mining worker decrypts nothing, so it needs no secret key.
    expect(loadConfig({ RATES_NIGHTS: 'x', SMTP_PORT: 'x' }, 'mining-worker').mining.browser.enabled).toBe(true);
    expect(problemsOf(() => loadConfig(env, 'mining-worker')).join('\n')).toMatch(/^MINING_BROWSER /);
    const mail = problemsOf(() => loadConfig(env, 'mail')).join('\n');
    for (const name of ['SMTP_PORT', 'MAIL_DOMAINS', 'QUARRY_SECRET_KEY']) expect(mail).toContain(name);
    expect(mail).not.toMatch(/MINING_BROWSER|RATES_NIGHTS/);
    const all = problemsOf(() => loadConfig(env)).join('\n');
    for (const name of ['SMTP_PORT', 'MAIL_DOMAINS', 'MINING_BROWSER', 'RATES_NIGHTS', 'QUARRY_SECRET_KEY']) expect(all).toContain(name);
    expect(
      problemsOf(() =>
        loadConfig(
          { ...env, SMTP_PORT: '25', MAIL_DOMAINS: 'x.example', MINING_BROWSER: 'on', RATES_NIGHTS: '1', QUARRY_SECRET_KEY: secret },
          'api',
        ),
      ).join('\n'),
    ).toContain('DASHBOARD_OIDC_CLIENT_ID is required');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/q', SMTP_PORT: 'x' }, 'migrate')).toEqual({
      databaseUrl: 'postgres://db/q',
      databasePoolSize: 10,
    });
  });

  it('lets a mining worker start without QUARRY_SECRET_KEY, and open tenant accounts with it', () => {
    expect(loadConfig({}, 'mining-worker').accountsKey).toBeUndefined();
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'mining-worker').accountsKey).toEqual(Buffer.from(secret, 'base64'));
    expect(() => loadConfig({ QUARRY_SECRET_KEY: 'short' }, 'mining-worker')).toThrow(/QUARRY_SECRET_KEY must be 32 bytes/);
    // Every other role that reads it still requires it, `all` included.
    expect(() => loadConfig({}, 'all')).toThrow(/QUARRY_SECRET_KEY is required/);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }).accountsKey).toEqual(loadConfig({ QUARRY_SECRET_KEY: secret }).secretKey);
  });

  it('reads VAULT_KEY only in the roles that use the vault, as a key of its own', () => {
    const vaultKey = Buffer.alloc(32, 8).toString('base64');
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: vaultKey }, 'api').vault).toEqual({
      key: Buffer.alloc(32, 8),
      keys: [],
      currentKeyId: undefined,
      tokenKey: undefined,
      cvvTtlMs: 900_000,
      cvvBookingHoldMs: 3_600_000,
      cardRetentionMs: 86_400_000,
    });
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'api').vault.key).toBeUndefined();
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: vaultKey }).vault.key).toEqual(Buffer.alloc(32, 8));
    // The workers that never open a card do not read it: a bad value there does not stop them.
    expect('vault' in loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: 'short' }, 'rates-worker')).toBe(false);
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: 'short' }, 'api')).toThrow(/VAULT_KEY must be 32 bytes/);
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: secret }, 'api')).toThrow(
      /VAULT_KEY must differ from QUARRY_SECRET_KEY/,
    );
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: vaultKey, VAULT_CVV_TTL_SECONDS: '86400' }, 'api')).toThrow(
      /VAULT_CVV_TTL_SECONDS/,
    );
  });

  it('reads VAULT_KEYS, VAULT_CURRENT_KEY_ID and VAULT_TOKEN_KEY beside VAULT_KEY, and refuses a set that could not seal or check a token', () => {
    const vaultKey = Buffer.alloc(32, 8).toString('base64');
    const k2 = Buffer.alloc(32, 9).toString('base64');
    const tokenKey = Buffer.alloc(32, 10).toString('base64');
    expect(
      loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEY: vaultKey, VAULT_KEYS: `k2:${k2}`, VAULT_CURRENT_KEY_ID: 'k2' }, 'bookings-worker')
        .vault,
    ).toMatchObject({
      key: Buffer.alloc(32, 8),
      keys: [{ id: 'k2', material: Buffer.alloc(32, 9) }],
      currentKeyId: 'k2',
      tokenKey: undefined,
    });
    expect(
      loadConfig({ QUARRY_SECRET_KEY: secret, VAULT_KEYS: `k2:${k2}`, VAULT_CURRENT_KEY_ID: 'k2', VAULT_TOKEN_KEY: tokenKey }, 'vault')
        .vault,
    ).toMatchObject({ key: undefined, tokenKey: Buffer.alloc(32, 10) });
    const problems = (env: Record<string, string>) => () => loadConfig({ QUARRY_SECRET_KEY: secret, ...env }, 'api');
    expect(problems({ VAULT_KEY: vaultKey, VAULT_KEYS: `k2:${k2}` })).toThrow(/VAULT_CURRENT_KEY_ID is required with VAULT_KEYS/);
    expect(problems({ VAULT_KEY: vaultKey, VAULT_KEYS: `k2:${k2}`, VAULT_CURRENT_KEY_ID: 'k3' })).toThrow(
      /VAULT_CURRENT_KEY_ID k3 is not a key of VAULT_KEYS/,
    );
    expect(problems({ VAULT_KEYS: `k2:${k2}`, VAULT_CURRENT_KEY_ID: 'k2' })).toThrow(/VAULT_TOKEN_KEY is required/);
    expect(problems({ VAULT_KEYS: `vault:${k2}`, VAULT_CURRENT_KEY_ID: 'vault', VAULT_TOKEN_KEY: tokenKey })).toThrow(
      /the id "vault" is the key of VAULT_KEY/,
    );
    expect(problems({ VAULT_KEYS: `k2:${secret}`, VAULT_CURRENT_KEY_ID: 'k2', VAULT_TOKEN_KEY: tokenKey })).toThrow(
      /VAULT_KEYS must differ from QUARRY_SECRET_KEY/,
    );
    expect(problems({ VAULT_KEYS: `k2:${k2}`, VAULT_CURRENT_KEY_ID: 'k2', VAULT_TOKEN_KEY: secret })).toThrow(
      /VAULT_TOKEN_KEY must differ from QUARRY_SECRET_KEY/,
    );
  });

  it('validates, for the API, only the mail domains of the mail settings and only the batch settings of the mining ones', () => {
    const problemsOf = (env: Record<string, string>, scope: 'api' | 'mining-worker' | 'mail') => {
      try {
        loadConfig({ QUARRY_SECRET_KEY: secret, ...env }, scope);
        return '';
      } catch (error) {
        return (error as ConfigError).problems.join('\n');
      }
    };
    // What only the mail and mining roles read: the API starts with any of it wrong.
    const workersOnly = {
      MAIL_RELAY_URL: 'http://not-smtp',
      MAIL_DNS_SERVERS: 'dns.example.com',
      MINING_BROWSER: 'maybe',
      MINING_PAGE_TIMEOUT_MS: 'soon',
    };
    const api = loadConfig(
      {
        QUARRY_SECRET_KEY: secret,
        ...workersOnly,
        MAIL_DOMAINS: 'A.example, b.example',
        MINING_BATCH_CONCURRENCY: '7',
        MINING_CSV_MAX_BYTES: '2048',
      },
      'api',
    );
    expect(api.mailDomains).toEqual(['a.example', 'b.example']);
    expect(api.batches).toEqual({
      batch: { concurrency: 7, ratePerMinute: 120 },
      autoPause: { window: 50, minSuccessRate: 0.2 },
      maxCsvBytes: 2048,
    });
    expect('mail' in api || 'mining' in api).toBe(false);
    // What the API does read is still checked, and by the roles that read it too.
    const batchAndDomains = { MAIL_DOMAINS: 'not a domain!', MINING_BATCH_CONCURRENCY: 'many', MINING_AUTOPAUSE_MIN_SUCCESS_RATE: '2' };
    for (const name of Object.keys(batchAndDomains)) expect(problemsOf(batchAndDomains, 'api')).toContain(name);
    expect(problemsOf({ ...workersOnly, ...batchAndDomains }, 'api')).not.toMatch(
      /MAIL_RELAY_URL|MAIL_DNS_SERVERS|MINING_BROWSER|MINING_PAGE_TIMEOUT_MS/,
    );
    const miningWorker = problemsOf({ ...workersOnly, ...batchAndDomains }, 'mining-worker');
    for (const name of ['MINING_BATCH_CONCURRENCY', 'MINING_AUTOPAUSE_MIN_SUCCESS_RATE', 'MINING_BROWSER', 'MINING_PAGE_TIMEOUT_MS'])
      expect(miningWorker).toContain(name);
    expect(miningWorker).not.toContain('MAIL_');
    const mail = problemsOf({ ...workersOnly, ...batchAndDomains }, 'mail');
    for (const name of ['MAIL_DOMAINS', 'MAIL_RELAY_URL', 'MAIL_DNS_SERVERS']) expect(mail).toContain(name);
    expect(mail).not.toContain('MINING_');
    const worker = loadConfig({ MINING_BATCH_RATE_PER_MINUTE: '30' }, 'mining-worker');
    expect(worker.batches.batch).toEqual({ concurrency: 4, ratePerMinute: 30 });
    expect(worker.mining.pageTimeoutMs).toBe(30_000);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, MAIL_DOMAINS: 'fwd.example' }, 'mail').mailDomains).toEqual(['fwd.example']);
  });

  it('reads vendor endpoint overrides for the ATS adapters, naming a bad one', () => {
    const config = loadConfig({
      QUARRY_SECRET_KEY: secret,
      MINING_ATS_ENDPOINTS: '{"greenhouseApi":"https://gw.internal/gh","lever":"http://gw.internal/lever/{host}"}',
    });
    expect(config.mining.atsEndpoints).toEqual({ greenhouseApi: 'https://gw.internal/gh', lever: 'http://gw.internal/lever/{host}' });
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }).mining.atsEndpoints).toEqual({});
    const problems = (input: string) => {
      try {
        loadConfig({ QUARRY_SECRET_KEY: secret, MINING_ATS_ENDPOINTS: input });
      } catch (error) {
        return (error as ConfigError).problems.join('\n');
      }
      return '';
    };
    expect(problems('{"greenhouse":"https://x"}')).toMatch(/MINING_ATS_ENDPOINTS.*greenhouse/);
    expect(problems('{"ashby":"ftp://x"}')).toMatch(/MINING_ATS_ENDPOINTS\.ashby must be an http\(s\) URL/);
    expect(problems('not json')).toMatch(/MINING_ATS_ENDPOINTS must be a JSON object/);
  });

  it('reads the mail DNS servers, naming a bad list', () => {
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, MAIL_DNS_SERVERS: '10.0.0.2, 127.0.0.1:5353' }).mail.dnsServers).toEqual([
      '10.0.0.2',
      '127.0.0.1:5353',
    ]);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }).mail.dnsServers).toBeUndefined();
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, MAIL_DNS_SERVERS: 'dns.example.com' })).toThrow(/MAIL_DNS_SERVERS/);
  });

  it('splits the private-URL allow-list', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret, ALLOW_PRIVATE_URLS: '127.0.0.1, 10.0.0.0/8,' });
    expect(config.allowPrivateUrls).toEqual(['127.0.0.1', '10.0.0.0/8']);
  });

  it('builds the keyring from QUARRY_KEYS and QUARRY_CURRENT_KEY_ID, QUARRY_SECRET_KEY alone being its default', () => {
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }, 'api').keyring).toEqual({
      secretKey: Buffer.from(secret, 'base64'),
      keys: [],
      currentKeyId: undefined,
      openSecretKeySeals: true,
    });
    const k2 = Buffer.alloc(32, 2);
    const keyring = loadConfig(
      {
        QUARRY_SECRET_KEY: secret,
        QUARRY_KEYS: ` k2:${k2.toString('base64')} ,`,
        QUARRY_CURRENT_KEY_ID: 'k2',
        QUARRY_OPEN_SECRET_KEY_SEALS: 'false',
      },
      'bookings-worker',
    ).keyring;
    expect(keyring).toEqual({
      secretKey: Buffer.from(secret, 'base64'),
      keys: [{ id: 'k2', material: k2 }],
      currentKeyId: 'k2',
      openSecretKeySeals: false,
    });
    // A key staged on every role before it seals anything.
    expect(
      loadConfig({ QUARRY_SECRET_KEY: secret, QUARRY_KEYS: `k2:${k2.toString('base64')}`, QUARRY_CURRENT_KEY_ID: 'secret' }, 'keys').keyring
        .currentKeyId,
    ).toBe('secret');
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ QUARRY_SECRET_KEY: secret, ...env }, 'api');
      } catch (error) {
        return (error as ConfigError).problems.join('\n');
      }
      return '';
    };
    expect(problems({ QUARRY_KEYS: `k2:${k2.toString('base64')}` })).toMatch(/QUARRY_CURRENT_KEY_ID is required with QUARRY_KEYS/);
    expect(problems({ QUARRY_KEYS: `k2:${k2.toString('base64')}`, QUARRY_CURRENT_KEY_ID: 'k3' })).toMatch(
      /QUARRY_CURRENT_KEY_ID k3 is not a key of QUARRY_KEYS/,
    );
    expect(problems({ QUARRY_KEYS: `k2:${Buffer.alloc(16).toString('base64')}`, QUARRY_CURRENT_KEY_ID: 'k2' })).toMatch(
      /QUARRY_KEYS key k2: must be 32 bytes/,
    );
    expect(problems({ QUARRY_KEYS: `secret:${k2.toString('base64')}`, QUARRY_CURRENT_KEY_ID: 'secret' })).toMatch(
      /QUARRY_KEYS the id "secret"/,
    );
    expect(problems({ QUARRY_KEYS: `k2:${k2.toString('base64')},k2:${k2.toString('base64')}`, QUARRY_CURRENT_KEY_ID: 'k2' })).toMatch(
      /k2: given twice/,
    );
    expect(problems({ QUARRY_OPEN_SECRET_KEY_SEALS: 'false' })).toMatch(/QUARRY_OPEN_SECRET_KEY_SEALS=false needs QUARRY_KEYS/);
  });
});
