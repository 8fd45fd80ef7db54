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

  it('recovers a crashed process\'s jobs within 15 s by default (lock expiry, then the next stalled check)', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret });
    expect(config.jobLockMs + config.jobStalledIntervalMs).toBeLessThanOrEqual(15_000);
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
    const env = { SMTP_PORT: 'twenty-five', MAIL_DOMAINS: 'not a domain!', MINING_BROWSER: 'maybe', RATES_NIGHTS: 'x', DASHBOARD_OIDC_ISSUER: 'https://idp.example' };
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
    expect(problemsOf(() => loadConfig({ ...env, SMTP_PORT: '25', MAIL_DOMAINS: 'x.example', MINING_BROWSER: 'on', RATES_NIGHTS: '1', QUARRY_SECRET_KEY: secret }, 'api')).join('\n')).toContain(
      'DASHBOARD_OIDC_CLIENT_ID is required',
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://db/q', SMTP_PORT: 'x' }, 'migrate')).toEqual({ databaseUrl: 'postgres://db/q', databasePoolSize: 10 });
  });

  it('reads vendor endpoint overrides for the ATS adapters, naming a bad one', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret, MINING_ATS_ENDPOINTS: '{"greenhouseApi":"https://gw.internal/gh","lever":"http://gw.internal/lever/{host}"}' });
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
    expect(loadConfig({ QUARRY_SECRET_KEY: secret, MAIL_DNS_SERVERS: '10.0.0.2, 127.0.0.1:5353' }).mail.dnsServers).toEqual(['10.0.0.2', '127.0.0.1:5353']);
    expect(loadConfig({ QUARRY_SECRET_KEY: secret }).mail.dnsServers).toBeUndefined();
    expect(() => loadConfig({ QUARRY_SECRET_KEY: secret, MAIL_DNS_SERVERS: 'dns.example.com' })).toThrow(/MAIL_DNS_SERVERS/);
  });

  it('splits the private-URL allow-list', () => {
    const config = loadConfig({ QUARRY_SECRET_KEY: secret, ALLOW_PRIVATE_URLS: '127.0.0.1, 10.0.0.0/8,' });
    expect(config.allowPrivateUrls).toEqual(['127.0.0.1', '10.0.0.0/8']);
  });
});
