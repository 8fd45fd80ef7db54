import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@quarry/testing';
import { cleanUpOnExit, repoRoot } from './harness.ts';
import { processTreeCpuSeconds } from './machine-cpu.ts';
import { procStatFields } from './proc-stat.ts';

const run = promisify(execFile);

/** Debian's package, extracted by scripts/ensure-smtp-source.sh; never installed system-wide. */
export type PostfixPackage = { root: string; env: NodeJS.ProcessEnv };

/**
 * The extracted package (`apt-get download postfix && dpkg -x postfix_*.deb .tools/postfix`): the
 * smtp bench's load generator and sink, and Postfix itself. Its programs find their own libraries
 * only through LD_LIBRARY_PATH.
 */
export function postfixPackage(): PostfixPackage {
  const root = join(repoRoot, '.tools/postfix');
  if (!existsSync(join(root, 'usr/sbin/smtp-source'))) {
    throw new Error("Postfix's package is missing: scripts/ensure-smtp-source.sh fetches it (npm run bench -- smtp runs it)");
  }
  return { root, env: { ...process.env, LD_LIBRARY_PATH: join(root, 'usr/lib/postfix') } };
}

export type PostfixReference = {
  port: number;
  /** CPU used so far by master and every service it spawned (live ones, and the reaped ones through master's child times), in seconds. */
  cpuSeconds: () => number;
  /** Messages Postfix took (one `cleanup` line each in its log) since the last clearLog. */
  acceptedCount: () => Promise<number>;
  clearLog: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * Why the reference cannot run here, or null. Postfix's master insists on starting as root: it
 * binds, then hands each service to the unprivileged mail owner.
 */
export function postfixUnavailable(): string | null {
  return process.getuid?.() === 0 ? null : 'Postfix starts only as root; run the bench as root to measure it beside Quarry';
}

/**
 * Postfix 3.7 configured as the forwarding reference (ADR 0026): virtual aliases to a relay. The same bound
 * recipient forwards to the same destination through `relayhost` (the bench's smtp-sink). Its
 * queue lives in the temporary folder (on this machine the disk that holds Postgres's data) and is
 * fsynced as in any installation. Everything else is Postfix's default: 20 deliveries at once per destination,
 * connection caching, logging (to a file through postlogd, where a host would use syslog). Long
 * queue ids carry the time each message was created, which gives the latency at the sink.
 */
export async function startPostfixReference(
  pkg: PostfixPackage,
  options: {
    relayPort: number;
    port: number;
    aliases: Record<string, string>;
    /** main.cf settings over the ones below, e.g. to compare with a tuned Postfix. */ settings: Record<string, string>;
  },
): Promise<PostfixReference> {
  const folder = await mkdtemp(join(tmpdir(), 'quarry-postfix-'));
  // The services run as `nobody`, which must reach the queue below this folder.
  await chmod(folder, 0o755);
  const config = join(folder, 'etc');
  const maillog = join(folder, 'maillog');
  const data = join(folder, 'data');
  await mkdir(config);
  await mkdir(data);
  // `postfix start` makes the queue's own folders below this one.
  await mkdir(join(folder, 'spool'));
  await chown(data, uidOf('nobody'), -1);
  await writeFile(
    join(config, 'virtual'),
    Object.entries(options.aliases)
      .map(([from, to]) => `${from} ${to}\n`)
      .join(''),
  );
  await writeFile(join(config, 'master.cf'), masterCf(options.port));
  await writeFile(join(config, 'main.cf'), mainCf(pkg.root, folder, options));
  const postfix = (command: string) => run(join(pkg.root, 'usr/sbin/postfix'), ['-c', config, command], { env: pkg.env });
  // Postfix's master detaches into a session of its own: a bench stopped early would leave it running.
  const forget = cleanUpOnExit(() => {
    try {
      execFileSync(join(pkg.root, 'usr/sbin/postfix'), ['-c', config, 'abort'], { env: pkg.env, stdio: 'ignore' });
    } catch {
      // Not running.
    }
    rmSync(folder, { recursive: true, force: true });
  });
  try {
    await postfix('start');
  } catch (error) {
    forget();
    const log = existsSync(maillog) ? readFileSync(maillog, 'utf8').slice(-2000) : '';
    await rm(folder, { recursive: true, force: true });
    throw new Error(`Postfix did not start: ${String(error)}\n${log}`);
  }
  const masterPid = Number(readFileSync(join(folder, 'spool/pid/master.pid'), 'utf8').trim());
  return {
    port: options.port,
    cpuSeconds: () => processTreeCpuSeconds(masterPid),
    // postlogd appends, so truncating in place is safe while it runs.
    clearLog: () => truncate(maillog),
    acceptedCount: async () => (await readFile(maillog, 'utf8')).match(/ postfix\/cleanup\[\d+\]: [0-9A-Za-z]+: message-id=/g)?.length ?? 0,
    stop: async () => {
      await postfix('stop');
      forget();
      await waitFor('Postfix master gone', () => procStatFields(masterPid) === null, { timeoutMs: 20_000, intervalMs: 100 });
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Decodes the creation time, in ms since the epoch, from a Postfix long queue id (`enable_long_queue_ids`): 6 digits of seconds and 4 of microseconds, base 52. */
export function postfixQueueIdTime(queueId: string): number | null {
  const digits = '0123456789BCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz';
  const decode = (text: string) => [...text].reduce((value, digit) => value * 52 + digits.indexOf(digit), 0);
  if (!/^[0-9A-Za-z]{10}z/.test(queueId)) return null;
  return decode(queueId.slice(0, 6)) * 1000 + decode(queueId.slice(6, 10)) / 1000;
}

function masterCf(port: number): string {
  // Debian's master.cf with chroot off (the temporary folder holds no chroot) and only the
  // services a relay uses.
  const services = [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    'pickup unix n - n 60 1 pickup',
    'cleanup unix n - n - 0 cleanup',
    'qmgr unix n - n 300 1 qmgr',
    'rewrite unix - - n - - trivial-rewrite',
    'bounce unix - - n - 0 bounce',
    'defer unix - - n - 0 bounce',
    'trace unix - - n - 0 bounce',
    'verify unix - - n - 1 verify',
    'flush unix n - n 1000? 0 flush',
    'proxymap unix - - n - - proxymap',
    'smtp unix - - n - - smtp',
    'relay unix - - n - - smtp',
    'showq unix n - n - - showq',
    'error unix - - n - - error',
    'retry unix - - n - - error',
    'discard unix - - n - - discard',
    'anvil unix - - n - 1 anvil',
    'scache unix - - n - 1 scache',
    'postlog unix-dgram n - n - 1 postlogd',
  ];
  return `${services.join('\n')}\n`;
}

function mainCf(packageRoot: string, folder: string, options: { relayPort: number; settings: Record<string, string> }): string {
  const settings: Record<string, string> = {
    compatibility_level: '3.6',
    config_directory: join(folder, 'etc'),
    queue_directory: join(folder, 'spool'),
    data_directory: join(folder, 'data'),
    meta_directory: join(packageRoot, 'etc/postfix'),
    daemon_directory: join(packageRoot, 'usr/lib/postfix/sbin'),
    command_directory: join(packageRoot, 'usr/sbin'),
    shlib_directory: join(packageRoot, 'usr/lib/postfix'),
    // The extracted package finds its own libraries only through LD_LIBRARY_PATH.
    import_environment: 'MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH',
    // Existing accounts, so that the bench adds none to the machine.
    mail_owner: 'nobody',
    default_privs: 'daemon',
    setgid_group: 'mail',
    maillog_file: join(folder, 'maillog'),
    maillog_file_prefixes: tmpdir(),
    myhostname: 'postfix.bench.test',
    mydestination: '',
    inet_protocols: 'ipv4',
    mynetworks: '127.0.0.0/8',
    virtual_alias_domains: 'fwd.test',
    virtual_alias_maps: `texthash:${join(folder, 'etc/virtual')}`,
    relayhost: `[127.0.0.1]:${options.relayPort}`,
    enable_long_queue_ids: 'yes',
    smtpd_tls_security_level: 'none',
    smtp_tls_security_level: 'none',
  };
  return Object.entries({ ...settings, ...options.settings })
    .map(([name, value]) => `${name} = ${value}\n`)
    .join('');
}

function uidOf(user: string): number {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${user}:`));
  const uid = Number(line?.split(':')[2]);
  if (!Number.isInteger(uid)) throw new Error(`no ${user} account in /etc/passwd`);
  return uid;
}
