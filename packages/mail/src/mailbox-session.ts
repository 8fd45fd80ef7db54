import type { ImapFlow } from 'imapflow';
import { resolveCredentials, type SealPorts } from './mailbox-credentials.ts';
import { createImapClient, describeImapError, isLoginRefused } from './mailbox-login.ts';
import { storeMailboxMessage, type MailboxStorePorts } from './mailbox-store.ts';
import { readProgress, recordLoginFailed, recordLoginSucceeded, recordMailboxError, storeAccessToken, type WatchedAccount } from './mailbox-watch.queries.ts';

export type MailboxSessionSettings = {
  /** Folders read, INBOX first in meaning; the server's IDLE watches INBOX, the others are polled. */
  folders: string[];
  /** How often folders are read again without a notification (all of them without IDLE). */
  pollMs: number;
  /** First wait after a refused login; doubled at each refusal in a row. */
  loginRetryMs: number;
  /** Refused logins in a row after which the account is broken. */
  maxLoginFailures: number;
};

export type MailboxSessionPorts = MailboxStorePorts & SealPorts & { onError?: (error: unknown, where: string) => void };

/** Mail from up to this long before the hand-out is the new owner's too (clocks of two servers differ). */
const handOutAllowanceMs = 60_000;
/** Messages whose bytes are fetched in one command. */
const fetchChunk = 50;
const forwardedKeyword = '$Forwarded';

class LeaseLost extends Error {}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * Watches one account while this process holds its lease: logs in (password or XOAUTH2), reads
 * every new message of each folder into the delivery pipeline, then waits in IDLE (or polls) and
 * reads again. Never deletes or moves a message; a forwarded one gets the `$Forwarded` keyword
 * where the folder takes keywords. A refused login ends the session (the account waits out its
 * backoff, or is broken); a dropped connection is reconnected with backoff. Ends when `signal`
 * aborts or the lease turns out lost.
 */
export async function watchMailbox(ports: MailboxSessionPorts, settings: MailboxSessionSettings, account: WatchedAccount, signal: AbortSignal): Promise<void> {
  let failures = 0;
  let current = account;
  while (!signal.aborted) {
    let client: ImapFlow | null = null;
    try {
      const { credentials, refreshed } = await resolveCredentials(ports, current);
      if (refreshed) {
        await storeAccessToken(ports.pool, current.email, refreshed);
        current = { ...current, sealedSecret: refreshed.sealedSecret, sealedAccessToken: refreshed.sealedAccessToken, accessTokenExpiresAt: refreshed.expiresAt };
      }
      client = createImapClient(current, credentials, { socketTimeoutMs: Math.max(5 * 60_000, settings.pollMs * 2) });
      client.on('error', () => {}); // reported through the command that fails, or 'close'
      await client.connect();
      if (signal.aborted) break;
      await recordLoginSucceeded(ports.pool, current.email);
      failures = 0;
      await followMailbox(ports, settings, current, client, signal);
    } catch (error) {
      if (signal.aborted || error instanceof LeaseLost) break;
      if (isLoginRefused(error)) {
        const retryAt = new Date(ports.now().getTime() + settings.loginRetryMs * 2 ** Math.min(current.loginFailures, 16));
        await recordLoginFailed(ports.pool, { email: current.email, watcherId: ports.watcherId, error: describeImapError(error), retryAt, maxFailures: settings.maxLoginFailures }).catch(
          (recordError: unknown) => ports.onError?.(recordError, 'mailbox login record'),
        );
        return;
      }
      ports.onError?.(error, `mailbox ${current.email}`);
      await recordMailboxError(ports.pool, current.email, describeImapError(error)).catch(() => {});
      failures += 1;
      await sleep(Math.min(settings.pollMs, 1000 * 2 ** Math.min(failures, 10)), signal);
    } finally {
      if (client) {
        const open = client;
        await Promise.race([open.logout().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
        open.close();
      }
    }
  }
}

/** Reads, waits, reads again, until the connection closes or the session stops. */
async function followMailbox(ports: MailboxSessionPorts, settings: MailboxSessionSettings, account: WatchedAccount, client: ImapFlow, signal: AbortSignal): Promise<void> {
  const canIdle = client.capabilities.has('IDLE');
  // INBOX is read last so it stays selected: IDLE reports changes of the selected folder only.
  const folders = [...settings.folders.filter((folder) => folder !== 'INBOX'), ...(settings.folders.includes('INBOX') ? ['INBOX'] : [])];
  const missing = new Set<string>();
  let changed = false;
  let wake = () => {};
  const onChange = () => {
    changed = true;
    wake();
  };
  client.on('exists', onChange);
  client.on('close', onChange);
  signal.addEventListener('abort', onChange, { once: true });
  try {
    while (!signal.aborted && client.usable) {
      changed = false;
      for (const folder of folders) {
        if (!missing.has(folder)) await readFolder(ports, account, client, folder, missing);
      }
      if (changed || signal.aborted || !client.usable) continue;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      if (canIdle) void client.idle().catch(() => {});
      await Promise.race([woken, sleep(settings.pollMs, signal)]);
    }
  } finally {
    client.off('exists', onChange);
    client.off('close', onChange);
    signal.removeEventListener('abort', onChange);
  }
}

/** Stores every message of `folder` past its checkpoint, in UID order, each in its own transaction. */
async function readFolder(ports: MailboxSessionPorts, account: WatchedAccount, client: ImapFlow, folder: string, missing: Set<string>): Promise<void> {
  let box;
  try {
    box = await client.mailboxOpen(folder);
  } catch (error) {
    // A folder the account does not have (no Junk) is left alone for this connection.
    if (folder !== 'INBOX' && client.usable) {
      missing.add(folder);
      return;
    }
    throw error;
  }
  const progress = await readProgress(ports.pool, account.email, folder);
  const from = progress && progress.uidValidity === box.uidValidity ? progress.lastUid + 1 : 1;
  if (box.exists === 0 || (box.uidNext !== undefined && box.uidNext <= from)) return;
  const listed: Array<{ uid: number; takes: boolean }> = [];
  const since = account.assignedAt.getTime() - handOutAllowanceMs;
  for await (const message of client.fetch(`${from}:*`, { uid: true, internalDate: true }, { uid: true })) {
    // `n:*` names the last message even when its UID is below n.
    if (message.uid < from) continue;
    const date = message.internalDate instanceof Date ? message.internalDate.getTime() : Date.parse(String(message.internalDate ?? ''));
    listed.push({ uid: message.uid, takes: !(date < since) });
  }
  listed.sort((a, b) => a.uid - b.uid);
  const mailbox = { email: account.email, alias: account.alias, imapHost: account.imap.host };
  const takesKeywords = box.permanentFlags?.has('\\*') === true || box.permanentFlags?.has(forwardedKeyword) === true;
  for (let start = 0; start < listed.length; start += fetchChunk) {
    const chunk = listed.slice(start, start + fetchChunk);
    const wanted = chunk.filter((message) => message.takes).map((message) => message.uid);
    const sources = new Map<number, Buffer>();
    if (wanted.length > 0) {
      for await (const message of client.fetch(wanted.join(','), { uid: true, source: true }, { uid: true })) {
        if (message.source) sources.set(message.uid, message.source);
      }
    }
    const forwarded: number[] = [];
    for (const [index, message] of chunk.entries()) {
      const raw = sources.get(message.uid) ?? null;
      // Mail from before the hand-out only moves the checkpoint, once per run of it.
      const last = index === chunk.length - 1;
      if (!raw && !last) continue;
      const outcome = await storeMailboxMessage(ports, { account: mailbox, folder, uidValidity: box.uidValidity, uid: message.uid, raw });
      if (outcome === 'lease-lost') throw new LeaseLost(`lease of ${account.email} lost`);
      if (outcome === 'forwarded') forwarded.push(message.uid);
    }
    if (forwarded.length > 0 && takesKeywords) {
      await client.messageFlagsAdd(forwarded.join(','), [forwardedKeyword], { uid: true }).catch((error: unknown) => ports.onError?.(error, 'mailbox keyword'));
    }
  }
}
