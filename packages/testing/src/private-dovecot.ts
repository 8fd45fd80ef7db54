import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntilAccepting } from './free-port.ts';

export type DovecotUser = { user: string; password: string };

export type PrivateDovecot = {
  host: string;
  port: number;
  /**
   * Adds a user or changes its password. Resolves once every later login sees it: Dovecot looks at
   * the passwd file at most once a second, so a login in the same second as the last one that read
   * it would still take the old password.
   */
  setUser(user: DovecotUser): Promise<void>;
  /**
   * Gives INBOX of `user` a new UIDVALIDITY, as a server does when it rebuilds its index: the
   * server is stopped, the index files dropped and the uid list renumbered, then started again.
   */
  resetUidValidity(user: string): Promise<void>;
  /** Runs `doveadm` against this server (`['penalty']`: the auth penalties anvil holds). */
  doveadm(args: string[]): string;
  /** Messages in INBOX of `user` (new and cur), and the keywords file of the Maildir. */
  inboxFiles(user: string): string[];
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
};

/**
 * A Dovecot IMAP server of the test's own (Debian's `dovecot-imapd`, installed by
 * scripts/ensure-dovecot.sh): its own config, run folder, passwd file and Maildirs under one temp
 * folder, plain-text logins on loopback without TLS, and never the machine's dovecot service.
 * `idle: false` leaves IDLE out of the capabilities, for the polling path; `config` is appended to
 * the config file (a bench raises the connection limits there). With `oauth2IntrospectionUrl`,
 * XOAUTH2 and OAUTHBEARER logins are offered too, each access token checked by Dovecot's `oauth2`
 * passdb at that RFC 7662 introspection endpoint (POST `token=…`; an answer
 * `{"active":true,"username":"<login>"}` lets the login in); password logins stay as they are.
 */
export async function startPrivateDovecot(
  options: { users?: DovecotUser[]; idle?: boolean; config?: string; oauth2IntrospectionUrl?: string } = {},
): Promise<PrivateDovecot> {
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'quarry-dovecot-'));
  const mail = join(root, 'mail');
  const run = join(root, 'run');
  mkdirSync(mail);
  mkdirSync(run);
  // Dovecot's auth process (user dovecot) reads the passwd file: the folder must be traversable.
  chmodSync(root, 0o711);
  // Mail is read and written as the package's own dovecot user: Dovecot refuses mail access as root.
  const uid = Number(execFileSync('id', ['-u', 'dovecot']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'dovecot']).toString().trim());
  chownSync(mail, uid, gid);
  const users = new Map<string, string>();
  const passwd = join(root, 'passwd');
  // Dovecot reads the file again when its mtime or size changed: each version gets an mtime of its
  // own (1, 2, 3… seconds after the epoch), as two writes in one second would share theirs.
  let version = 0;
  const writePasswd = () => {
    writeFileSync(
      passwd,
      [...users].map(([user, password]) => `${user}:{PLAIN}${password}:${uid}:${gid}::${join(mail, user)}::\n`).join(''),
    );
    version += 1;
    utimesSync(passwd, version, version);
  };
  for (const user of options.users ?? []) users.set(user.user, user.password);
  writePasswd();
  const capabilities =
    options.idle === false
      ? 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE SORT UIDPLUS MOVE NAMESPACE CHILDREN\n'
      : '';
  const config = join(root, 'dovecot.conf');
  const oauth2 = join(root, 'dovecot-oauth2.conf.ext');
  if (options.oauth2IntrospectionUrl) {
    writeFileSync(
      oauth2,
      `introspection_mode = post\nintrospection_url = ${options.oauth2IntrospectionUrl}\nforce_introspection = yes\nusername_attribute = username\nactive_attribute = active\nactive_value = true\n`,
    );
  }
  const oauth2Passdb = options.oauth2IntrospectionUrl
    ? `passdb {\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = ${oauth2}\n}\n`
    : '';
  writeFileSync(
    config,
    `base_dir = ${run}
state_dir = ${join(root, 'state')}
instance_name = quarry-test-${port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login${options.oauth2IntrospectionUrl ? ' xoauth2 oauthbearer' : ''}
# Refused logins are answered at once and never slow down the next ones from loopback (tests refuse
# on purpose): no failure delay, and no auth penalty (anvil's doubling delay per refused login from
# an address, up to 15 s), which is off when the auth process cannot reach its anvil socket.
auth_failure_delay = 0
login_trusted_networks = 127.0.0.0/8
log_path = ${join(root, 'dovecot.log')}
default_internal_user = dovecot
default_login_user = dovenull
default_internal_group = dovecot
mail_location = maildir:~/Maildir
mailbox_idle_check_interval = 1 secs
first_valid_uid = ${uid}
last_valid_uid = ${uid}
${capabilities}service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  chroot =
}
${oauth2Passdb}passdb {
  driver = passwd-file
  args = scheme=PLAIN ${passwd}
}
userdb {
  driver = passwd-file
  args = ${passwd}
}
namespace inbox {
  inbox = yes
  mailbox Junk {
    special_use = \\Junk
    auto = create
  }
}
${options.config ?? ''}
`,
  );
  mkdirSync(join(root, 'state'));
  let server: ChildProcess | null = null;
  const start = async () => {
    const child = spawn('/usr/sbin/dovecot', ['-F', '-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    server = child;
    await waitUntilAccepting(port, 'dovecot', () => (child.exitCode !== null ? stderr || `exit ${child.exitCode}` : undefined));
  };
  const stop = async () => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    await exited;
  };
  const maildir = (user: string) => join(mail, user, 'Maildir');
  await start();
  return {
    host: '127.0.0.1',
    port,
    async setUser(user) {
      users.set(user.user, user.password);
      writePasswd();
      // The auth process's next look at the file is in a later second than its last one.
      await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
    },
    async resetUidValidity(user) {
      await stop();
      const dir = maildir(user);
      const uidList = join(dir, 'dovecot-uidlist');
      const [header = '', ...lines] = readFileSync(uidList, 'utf8').split('\n');
      const old = Number(/ V(\d+)/.exec(header)?.[1] ?? 0);
      // Same messages, numbered from 1 again under a new UIDVALIDITY.
      const files = lines.filter(Boolean).map((line) => line.replace(/^\d+\s+/, ''));
      const renumbered = files.map((rest, index) => `${index + 1} ${rest}`);
      writeFileSync(uidList, [`3 V${old + 1000} N${files.length + 1}`, ...renumbered, ''].join('\n'));
      for (const name of readdirSync(dir))
        if (name.startsWith('dovecot.index') || name.startsWith('dovecot.list.index')) rmSync(join(dir, name));
      await start();
    },
    doveadm(args) {
      return execFileSync('/usr/bin/doveadm', ['-c', config, ...args]).toString();
    },
    inboxFiles(user) {
      return ['new', 'cur'].flatMap((sub) => {
        try {
          return readdirSync(join(maildir(user), sub));
        } catch {
          return [];
        }
      });
    },
    stop,
    start,
    async remove() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
