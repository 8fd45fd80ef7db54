import type { SealPorts } from './mailbox-credentials.ts';
import { watchMailbox, type MailboxSessionPorts, type MailboxSessionSettings } from './mailbox-session.ts';
import { createMailboxStore, type MailboxStorePorts } from './mailbox-store.ts';
import {
  claimAccounts,
  countWatchableAccounts,
  forgetWatcher,
  heartbeatWatcher,
  releaseLeases,
  renewLeases,
} from './mailbox-watch.queries.ts';

export type MailboxWatcherSettings = MailboxSessionSettings & {
  /** A dead process's accounts are watched by another within this long. */
  leaseMs: number;
  /** Mailbox connections this process holds at most. */
  maxConnections: number;
};

export type MailboxWatcher = {
  /** Accounts this process watches now. */
  watching(): string[];
  /** Stops every session and gives the accounts back for the other processes to take at once. */
  stop(): Promise<void>;
};

export type MailboxWatcherPorts = MailboxStorePorts & SealPorts & Pick<MailboxSessionPorts, 'onError' | 'limitLogins'>;

type Session = { abort: AbortController; done: Promise<void> };

/**
 * Logins one process has in flight at most. A process that claims a thousand accounts at once
 * would otherwise open a thousand TLS handshakes and logins at once: the mailboxes bench saw
 * Dovecot's master time out handing such a burst of logins to its imap processes, and a provider
 * may throttle the address that does it.
 */
const loginsInFlight = 32;

/** Runs at most `limit` of the given tasks at once, the others in arrival order. */
function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running < limit) running += 1;
    // A finishing task hands its slot straight to the next waiting one.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/**
 * Shares the handed-out accounts among every mail process with leases in Postgres. Every quarter
 * of `leaseMs` each process renews its leases for three quarters of it, so a process that stops
 * renewing (SIGKILL, a lost network) has its leases expire and its accounts claimed by another
 * within `leaseMs`. Each takes its fair share (accounts ÷ live processes, at most
 * `maxConnections`): a process that starts later gets accounts handed over by the others.
 */
export function startMailboxWatcher(ports: MailboxWatcherPorts, settings: MailboxWatcherSettings): MailboxWatcher {
  const sessions = new Map<string, Session>();
  const sessionPorts: MailboxSessionPorts = {
    ...ports,
    store: createMailboxStore(ports),
    limitLogins: ports.limitLogins ?? createLimiter(loginsInFlight),
  };
  const leaseLengthMs = Math.round((settings.leaseMs * 3) / 4);
  const tickMs = Math.max(50, Math.round(settings.leaseMs / 4));
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> = Promise.resolve();

  const end = async (emails: string[]) => {
    const ending = emails.flatMap((email) => {
      const session = sessions.get(email);
      sessions.delete(email);
      session?.abort.abort();
      return session ? [session.done] : [];
    });
    await Promise.all(ending);
  };

  const tick = async () => {
    const alive = await heartbeatWatcher(ports.pool, ports.watcherId, settings.leaseMs);
    const held = await renewLeases(ports.pool, ports.watcherId, leaseLengthMs);
    // Sessions whose lease is gone (broken, taken over after a pause) stop at once.
    await end([...sessions.keys()].filter((email) => !held.has(email)));
    // Leases whose session ended on its own (a lost connection it gave up on) go back to the pool.
    await releaseLeases(
      ports.pool,
      ports.watcherId,
      [...held].filter((email) => !sessions.has(email)),
    );
    const share = Math.min(settings.maxConnections, Math.ceil((await countWatchableAccounts(ports.pool)) / alive));
    if (sessions.size > share) {
      const excess = [...sessions.keys()].slice(share);
      await end(excess);
      await releaseLeases(ports.pool, ports.watcherId, excess);
      return;
    }
    for (const account of await claimAccounts(ports.pool, ports.watcherId, leaseLengthMs, share - sessions.size)) {
      const abort = new AbortController();
      const done = watchMailbox(sessionPorts, settings, account, abort.signal)
        .catch((error: unknown) => ports.onError?.(error, `mailbox ${account.email}`))
        .finally(() => {
          if (sessions.get(account.email)?.abort === abort) sessions.delete(account.email);
        });
      sessions.set(account.email, { abort, done });
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      ticking = tick()
        .catch((error: unknown) => ports.onError?.(error, 'mailbox leases'))
        .finally(schedule);
    }, tickMs);
  };
  ticking = tick()
    .catch((error: unknown) => ports.onError?.(error, 'mailbox leases'))
    .finally(schedule);

  return {
    watching: () => [...sessions.keys()],
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
      const emails = [...sessions.keys()];
      await end(emails);
      await releaseLeases(ports.pool, ports.watcherId, emails).catch(() => {});
      await forgetWatcher(ports.pool, ports.watcherId).catch(() => {});
    },
  };
}
