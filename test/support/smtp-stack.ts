import { generateKeyPairSync } from 'node:crypto';
import { createClient } from '@quarry/auth';
import { createPool, type Pool } from '@quarry/db';
import {
  createTestDatabase,
  createTestRedis,
  quarryEnv,
  startSmtpSink,
  waitFor,
  type SmtpSink,
  type TestDatabase,
  type TestRedis,
} from '@quarry/testing';
import { startQuarry, type QuarryProcess } from './quarry-process.ts';
import { startDnsServer, type DnsServer } from './dns-server.ts';

export const receivingDomain = 'fwd.test';
export const relaySender = 'forwarder@relay.test';

/** DNS as mailauth asks it, from a map: tests never use real DNS. */
export function stubResolver(records: Record<string, string>) {
  return async (name: string, type: string): Promise<string[][]> => {
    const value = records[`${type.toUpperCase()}:${name.toLowerCase()}`];
    if (value === undefined) throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
    return [[value]];
  };
}

export function dkimKeyPair(): { privateKey: string; dnsRecord: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    dnsRecord: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
  };
}

export type MailStack = {
  db: Pool;
  sink: SmtpSink;
  env: Record<string, string>;
  api: QuarryProcess;
  mail: QuarryProcess;
  smtpPort: number;
  relayKey: { privateKey: string; dnsRecord: string };
  /** The DNS the mail process asks (MAIL_DNS_SERVERS): empty until a test serves records. */
  dns: DnsServer;
  secret: string;
  startMail(): Promise<{ process: QuarryProcess; smtpPort: number }>;
  post(path: string, body: unknown, secret?: string): Promise<{ status: number; body: Record<string, unknown> }>;
  bind(recipient: string, forwardsTo: string, keepSender?: boolean): Promise<void>;
  stop(): Promise<void>;
};

const basic = (secret: string) => `Basic ${Buffer.from(`${secret}:`).toString('base64')}`;

/**
 * An `api` and a `mail` process on their own database and queue prefix, delivering to a sink:
 * as their smarthost, or (`'direct-mx'`) as the MX host the DNS names, listening on IPv6 loopback.
 */
export async function startMailStack(
  label: string,
  extraEnv: Record<string, string> = {},
  route: 'smarthost' | 'direct-mx' = 'smarthost',
): Promise<MailStack> {
  const database: TestDatabase = await createTestDatabase(label);
  const redis: TestRedis = createTestRedis(label);
  const db = createPool(database.url, 4);
  const sink = await startSmtpSink({ host: route === 'direct-mx' ? '::1' : '127.0.0.1' });
  const dns = await startDnsServer();
  const secretKey = Buffer.alloc(32, 5);
  const relayKey = dkimKeyPair();
  const client = await createClient({ db, secretKey }, { name: `${label} tenant`, scopes: ['forwarding'] });
  const env: Record<string, string> = {
    ...quarryEnv({ database, redis, secretKey }),
    DATABASE_POOL_SIZE: '8',
    AUTH_CACHE_MS: '0',
    JOB_LOCK_MS: '2000',
    JOB_STALLED_INTERVAL_MS: '1000',
    SMTP_PORT: '0',
    SMTP_HOST: '127.0.0.1',
    MAIL_DOMAINS: receivingDomain,
    MAIL_RELAY_SENDER: relaySender,
    ...(route === 'smarthost' ? { MAIL_RELAY_URL: sink.url } : { MAIL_MX_PORT: String(sink.port) }),
    MAIL_HOSTNAME: 'mx.quarry.test',
    MAIL_DKIM_SELECTOR: 'quarry',
    MAIL_DKIM_PRIVATE_KEY: relayKey.privateKey,
    MAIL_DNS_SERVERS: dns.address,
    MAIL_RETRY_BASE_MS: '300',
    MAIL_RETRY_MAX_MS: '1000',
    ...extraEnv,
  };
  const processes: QuarryProcess[] = [];
  const startMail = async () => {
    const process = await startQuarry('mail', env);
    processes.push(process);
    const line = await waitFor('smtp listening', () =>
      process
        .output()
        .split('\n')
        .find((candidate) => candidate.includes('"smtp listening"')),
    );
    return { process, smtpPort: (JSON.parse(line) as { smtpPort: number }).smtpPort };
  };
  const api = await startQuarry('api', env);
  processes.push(api);
  const mail = await startMail();
  const post = async (path: string, body: unknown, secret = client.secret) => {
    const response = await fetch(`http://127.0.0.1:${api.port}${path}`, {
      method: 'POST',
      headers: { authorization: basic(secret), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    db,
    sink,
    env,
    api,
    mail: mail.process,
    smtpPort: mail.smtpPort,
    relayKey,
    dns,
    secret: client.secret,
    startMail,
    post,
    async bind(recipient, forwardsTo, keepSender = false) {
      const response = await post('/Forwarding/bind', { recipient, forwardsTo, keepSender });
      if (response.status !== 200) throw new Error(`bind ${recipient} failed: ${JSON.stringify(response.body)}`);
    },
    async stop() {
      for (const process of processes) {
        if (process.child.exitCode === null && process.child.signalCode === null) process.child.kill('SIGKILL');
        await process.exited;
      }
      await sink.close();
      await dns.close();
      await db.end();
      await redis.cleanup();
      await database.drop();
    },
  };
}
