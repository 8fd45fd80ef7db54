import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createClient } from '@quarry/auth';
import { createSealer } from '@quarry/keyring';
import { createPool, type Pool } from '@quarry/db';
import { loadOutlookAccounts, mailProcessNodeOptions, retrieveOutlookAccount, type AccountPorts } from '@quarry/mail';
import { createTestDatabase, createTestRedis, quarryEnv, startPrivateDovecot, waitFor, type PrivateDovecot } from '@quarry/testing';
import { ImapFlow } from 'imapflow';
import { cleanUpOnExit, printTable, repoRoot } from './harness.ts';
import { busySeconds, childPids, databaseCpuSeconds, processCpuSeconds, processTreeCpuSeconds } from './machine-cpu.ts';
import { startPostfixSink, type PostfixSink } from './postfix-sink.ts';
import { rssMb } from './process-tree-rss.ts';

const quarryMain = `${repoRoot}apps/quarry/src/main.ts`;
const password = 'bench-password';
const receivingDomain = 'fwd.test';

/**
 * Dovecot's limits for a thousand watched accounts and the bench's own APPEND connections: one
 * `imap` process per connection (its default cap is 1,024), logins served by a few long-lived
 * login processes, and room at anvil, auth and stats, which every imap process talks to (each
 * refuses clients past 1,000 by default). Dovecot stands in for the accounts' own provider, which
 * runs on its own machines: it is set up to cost this one as little as it can, since its CPU is
 * taken from the cores Quarry is measured on.
 */
function dovecotSettings(inotify: boolean): string {
  return `
service imap {
  process_limit = 4000
  vsz_limit = 256M
  # An imap process serves the next connection after its last one ends, instead of a new process
  # started per login: every account's share of the bench's mail arrives over a login of its own.
  service_count = 1000
}
service imap-login {
  service_count = 0
  process_min_avail = 2
  client_limit = 4000
}
service anvil {
  client_limit = 10000
}
service auth {
  client_limit = 10000
}
service stats {
  client_limit = 10000
}
default_client_limit = 10000
# The bench measures Quarry, not the mail server's disk: an APPEND is not flushed to disk first.
mail_fsync = never
# An IDLE session hears of new mail from inotify at once; the timed look at its mailbox is only a
# fallback (Dovecot's default interval, not the tests' 1 s). Without an inotify instance per
# session, new mail is noticed only by that look, so the tests' interval stays.
mailbox_idle_check_interval = ${inotify ? '30' : '1'} secs
# Messages and their keywords in Dovecot's multi-dbox files and indexes, as a provider keeps mail in
# a store of its own, rather than a file per message renamed at each keyword ($Forwarded) as in
# the tests' Maildir: about half of Dovecot's CPU per message in this bench.
mail_location = mdbox:~/mdbox
`;
}

const inotifyInstancesFile = '/proc/sys/fs/inotify/max_user_instances';

/**
 * Every imap process of Dovecot's runs as one user and needs an inotify instance to hear of new
 * mail in IDLE; the kernel's default allows a user 128. Raises the limit to `needed` where the
 * bench may (root, a writable /proc/sys); reports whether each session has its instance.
 */
function ensureInotifyInstances(needed: number): boolean {
  try {
    if (Number(readFileSync(inotifyInstancesFile, 'utf8').trim()) >= needed) return true;
    writeFileSync(inotifyInstancesFile, String(needed));
    return true;
  } catch {
    return false;
  }
}

type Options = { accounts: number; messages: number; rate: number; appenders: number };

type Appended = Map<number, number>;

/**
 * `npm run bench -- mailboxes`: `accounts` pool accounts on a private Dovecot, loaded through the
 * operator's load call (one login each) and handed out, watched by ONE `mail` process over IMAP
 * (IDLE); `messages` messages appended across them by IMAP APPEND at `rate` per second (each
 * account gets its share in a burst from one of `appenders` connections), forwarded through the
 * delivery queue to Postfix's smtp-sink (C, so that both cores stay with Dovecot, Quarry and the
 * appenders). Prints the time from the APPEND's OK to the end of the message at the sink,
 * messages/s from the first APPEND to the last forward, the CPU time per message of the machine
 * and of each part (the mail process, the bench database's Postgres backends, Dovecot, the bench
 * with its sink: less disturbed than the rates when other work shares the machine, though such
 * load raises them too, as caches and cores are shared), the mail process's peak RSS, and the
 * messages lost and forwarded twice. Targets: p99 < 5 s, ≥ 200 messages/s, RSS < 500 MB, 0 lost,
 * 0 duplicated.
 */
export async function benchMailboxes(options: Options): Promise<void> {
  const users = Array.from({ length: options.accounts }, (_, index) => ({
    user: `bench-${String(index).padStart(5, '0')}@pool.test`,
    password,
  }));
  // Each watched account's session, each APPEND connection, and Dovecot's own services.
  const inotify = ensureInotifyInstances(options.accounts + options.appenders + 64);
  const dovecot = await startPrivateDovecot({ users, config: dovecotSettings(inotify) });
  const forgetDovecot = cleanUpOnExit(() => void dovecot.stop());
  const database = await createTestDatabase('bench_mailboxes');
  const redis = createTestRedis('bench-mailboxes');
  const secretKey = Buffer.alloc(32, 7);
  const db = createPool(database.url, 4);
  const sink = await startPostfixSink();
  let mail: ChildProcess | null = null;
  try {
    const loadStarted = performance.now();
    await handOutAll(
      db,
      secretKey,
      dovecot,
      users.map((user) => user.user),
    );
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    mail = await startMailRole({
      ...quarryEnv({ database, redis, secretKey }),
      LOG_LEVEL: 'info',
      SMTP_PORT: '0',
      SMTP_HOST: '127.0.0.1',
      MAIL_DOMAINS: receivingDomain,
      MAIL_RELAY_SENDER: 'forwarder@relay.test',
      MAIL_RELAY_URL: sink.url,
      DATABASE_POOL_SIZE: '10',
    });
    const pid = mail.pid ?? 0;
    const watchStarted = performance.now();
    // Dovecot's own count of logged-in IMAP sessions: every account's watcher is connected.
    await waitFor(`${options.accounts} accounts watched`, () => imapSessions(dovecot) >= options.accounts, {
      timeoutMs: 300_000,
      intervalMs: 500,
    });
    // The last ones to connect read their (empty) folders and enter IDLE.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const watchSeconds = (performance.now() - watchStarted) / 1000;
    const idleRssMb = rssMb(pid);
    // What a thousand sessions waiting in IDLE (and their leases) cost with no mail at all.
    const idleCpuBefore = [processCpuSeconds(pid), databaseCpuSeconds(database.name)];
    const idleSampleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idleCpuPercent = [processCpuSeconds(pid), databaseCpuSeconds(database.name)].map(
      (seconds, index) => (100 * (seconds - (idleCpuBefore[index] ?? 0))) / ((performance.now() - idleSampleStarted) / 1000),
    );
    let peakRssMb = idleRssMb;
    const rssTimer = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb(pid))), 100);

    const appended: Appended = new Map();
    // CPU per message says what the throughput asks of the machine, whatever else shares it: the
    // whole machine's, and that of each part of the system measured (the bench's own process
    // appends and counts; the sink is Postfix's).
    const [dovecotMaster = 0] = childPids(process.pid, 'dovecot');
    const [sinkPid = 0] = childPids(process.pid, 'smtp-sink');
    const parts = {
      mail: () => processCpuSeconds(pid),
      postgres: () => databaseCpuSeconds(database.name),
      dovecot: () => processTreeCpuSeconds(dovecotMaster),
      benchAndSink: () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6 + processCpuSeconds(sinkPid),
    };
    const machineCpuBefore = busySeconds();
    const partsBefore = Object.values(parts).map((read) => read());
    const started = performance.now();
    const appendErrors = await appendAll(
      dovecot,
      users.map((user) => user.user),
      options,
      appended,
    );
    const appendSeconds = (performance.now() - started) / 1000;
    // Everything forwarded, or nothing new for 30 s.
    const forwarded = forwardedTracker(sink);
    let seen = -1;
    let lastChange = performance.now();
    while ((await forwarded()).byNumber.size < options.messages && performance.now() - lastChange < 30_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const files = (await forwarded()).files;
      if (files !== seen) {
        seen = files;
        lastChange = performance.now();
      }
    }
    const machineCpuSeconds = busySeconds() - machineCpuBefore;
    const partsCpuSeconds = Object.values(parts).map((read, index) => read() - (partsBefore[index] ?? 0));
    // Late duplicates would show up here.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    clearInterval(rssTimer);

    const { byNumber, files } = await forwarded();
    const latencies: number[] = [];
    for (const [number, acceptedAt] of byNumber) {
      const appendedAt = appended.get(number);
      if (appendedAt !== undefined) latencies.push(acceptedAt - appendedAt);
    }
    latencies.sort((a, b) => a - b);
    // When the watcher stored each message (its key's row is written in the storing transaction):
    // append → stored is the IMAP side alone, the rest up to the sink is the delivery queue.
    const storedAt = await db.query<{ message_key: string; at: number }>(
      'SELECT message_key, extract(epoch FROM seen_at) * 1000 AS at FROM mail_mailbox_seen',
    );
    const storeLatencies = storedAt.rows
      .flatMap((row) => {
        const number = /^mid:<bench-(\d+)@origin\.test>$/.exec(row.message_key)?.[1];
        const appendedAt = number === undefined ? undefined : appended.get(Number(number));
        return appendedAt === undefined ? [] : [Number(row.at) - appendedAt];
      })
      .sort((a, b) => a - b);
    const firstAppend = Math.min(...appended.values());
    const lastForward = Math.max(...byNumber.values());
    const perMessage = (seconds: number) => ((1000 * seconds) / Math.max(1, byNumber.size)).toFixed(2);
    const lost = [...appended.keys()].filter((number) => !byNumber.has(number)).length;
    const duplicated = files - byNumber.size;
    printTable(
      `Mailboxes: ${options.accounts} Dovecot accounts watched by one mail process (IDLE), ${options.messages} messages appended at ${options.rate}/s over ${options.appenders} IMAP connections, forwarded to an SMTP sink${inotify ? '' : ` (Dovecot looks for new mail every second: ${inotifyInstancesFile} is below one instance per session and could not be raised)`}`,
      [
        'load + hand out s',
        'all watched s',
        'append s',
        'append errors',
        'p50 / p99 append → stored ms',
        'p50 append → forward ms',
        'p99 ms',
        'max ms',
        'messages/s',
        'CPU ms per message: machine; mail / Postgres / Dovecot / bench + sink',
        'CPU % idle: mail / Postgres',
        'RSS idle MB',
        'peak RSS MB',
        'lost',
        'duplicated',
      ],
      [
        [
          loadSeconds.toFixed(1),
          watchSeconds.toFixed(1),
          appendSeconds.toFixed(1),
          appendErrors,
          `${Math.round(percentile(storeLatencies, 0.5))} / ${Math.round(percentile(storeLatencies, 0.99))}`,
          percentile(latencies, 0.5),
          percentile(latencies, 0.99),
          latencies.at(-1) ?? 0,
          Math.round(byNumber.size / ((lastForward - firstAppend) / 1000)),
          `${perMessage(machineCpuSeconds)}; ${partsCpuSeconds.map(perMessage).join(' / ')}`,
          idleCpuPercent.map((percent) => percent.toFixed(1)).join(' / '),
          Math.round(idleRssMb),
          Math.round(peakRssMb),
          lost,
          duplicated,
        ],
      ],
    );
  } finally {
    if (mail && mail.exitCode === null) {
      const exited = new Promise((resolve) => mail?.once('exit', resolve));
      mail.kill('SIGTERM');
      await exited;
    }
    await sink.close();
    await db.end();
    await redis.cleanup();
    await database.drop();
    await dovecot.remove();
    forgetDovecot();
  }
}

/** The operator's load call (each account logged in to once), then one hand-out per account with its own alias. */
async function handOutAll(db: Pool, secretKey: Buffer, dovecot: PrivateDovecot, emails: string[]): Promise<void> {
  const ports: AccountPorts = {
    pool: db,
    ...createSealer(secretKey),
    domains: [receivingDomain],
    now: () => new Date(),
  };
  const loaded = await loadOutlookAccounts(ports, {
    accounts: emails.map((email) => ({ email, password, imap: { host: dovecot.host, port: dovecot.port, secure: false } })),
  });
  if (loaded.refused.length > 0) throw new Error(`accounts refused at load: ${JSON.stringify(loaded.refused.slice(0, 3))}`);
  const client = await createClient({ db, secretKey }, { name: 'bench', scopes: ['forwarding'] });
  for (const email of emails) {
    const local = email.split('@')[0] ?? email;
    await retrieveOutlookAccount(ports, client.clientId, { alias: `${local}@${receivingDomain}`, forwardsTo: `${local}@dest.test` });
  }
}

/**
 * Appends message n (0…messages-1) to account n mod accounts… grouped per account: each of
 * `appenders` connections logs in to one account, appends its share at its pace, and moves on.
 * The pace across all connections is `rate` messages per second. Records when each APPEND's OK came.
 */
async function appendAll(dovecot: PrivateDovecot, emails: string[], options: Options, appended: Appended): Promise<number> {
  const perAccount = new Map<string, number[]>();
  for (let number = 0; number < options.messages; number += 1) {
    const email = emails[number % emails.length] as string;
    perAccount.set(email, [...(perAccount.get(email) ?? []), number]);
  }
  const queue = [...perAccount];
  const intervalMs = (1000 * options.appenders) / options.rate;
  let errors = 0;
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [email, numbers] = next;
      const client = new ImapFlow({
        host: dovecot.host,
        port: dovecot.port,
        secure: false,
        auth: { user: email, pass: password },
        logger: false,
      });
      client.on('error', () => {});
      try {
        await client.connect();
        for (const number of numbers) {
          const due = performance.now() + intervalMs;
          const raw = `From: Sender <sender@origin.test>\r\nTo: ${email}\r\nSubject: bench ${number}\r\nMessage-ID: <bench-${number}@origin.test>\r\nDate: ${new Date().toUTCString()}\r\n\r\nMessage ${number} of the mailboxes bench.\r\n`;
          await client.append('INBOX', raw);
          appended.set(number, Date.now());
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        }
      } catch {
        errors += 1;
      } finally {
        await client.logout().catch(() => client.close());
      }
    }
  };
  await Promise.all(Array.from({ length: options.appenders }, lane));
  return errors;
}

/**
 * Each bench message the sink took, by its number, with when the sink finished taking it first,
 * and the count of messages taken; each call reads only the files that arrived since the last one.
 */
function forwardedTracker(sink: PostfixSink): () => Promise<{ byNumber: Map<number, number>; files: number }> {
  const byNumber = new Map<number, number>();
  const known = new Set<string>();
  return async () => {
    for (const message of await sink.messages(known, 4096)) {
      const number = /^Subject: bench (\d+)\r?$/m.exec(message.head)?.[1];
      // A file read while the sink is still writing it is read again on the next call.
      if (number === undefined) continue;
      known.add(message.file);
      if ((byNumber.get(Number(number)) ?? Infinity) > message.at) byNumber.set(Number(number), Math.round(message.at));
    }
    return { byNumber, files: known.size };
  };
}

/** IMAP sessions logged in at Dovecot, by its own count (`doveadm who`, one line per connection). */
function imapSessions(dovecot: PrivateDovecot): number {
  return dovecot
    .doveadm(['who', '-1'])
    .split('\n')
    .filter((line) => line.includes('imap')).length;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0);
}

/**
 * The mail process as it is deployed (docker-compose.yml, infra/k8s/mail.yaml), with its Node
 * options: without them V8 would size its young generation from this machine's memory.
 */
function startMailRole(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...mailProcessNodeOptions.split(' '), quarryMain, 'start', '--role', 'mail'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const forget = cleanUpOnExit(() => child.kill('SIGKILL'));
  child.once('exit', forget);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('"smtp listening"')) {
        buffered = '';
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`quarry mail exited with ${code}`)));
  });
}
