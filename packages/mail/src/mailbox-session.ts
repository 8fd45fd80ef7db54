import type { ImapFlow } from 'imapflow';
import { resolveCredentials, type SealPorts } from './mailbox-credentials.ts';
import { createImapClient, describeImapError, isLoginRefused } from './mailbox-login.ts';
import type { Pool } from '@quarry/db';
import type { StoreMailboxBatch } from './mailbox-store.ts';
import {
  readProgress,
  recordLoginFailed,
  type FolderProgress,
  recordLoginSucceeded,
  recordMailboxError,
  storeAccessToken,
  type WatchedAccount,
} from './mailbox-watch.queries.ts';

export type MailboxSessionSettings = {
  /** Folders read, INBOX first in meaning; the server's IDLE watches INBOX, the others are polled. */
  folders: string[];
  /** How often folders are read again without a notification (all of them without IDLE). */
  pollMs: number;
  /** First wait after a refused login; doubled at each refusal in a row. */
  loginRetryMs: number;
  /** Refused logins in a row after which the account is broken. */
  maxLoginFailures: number;
  /**
   * How long the key (Message-ID) of a taken message is kept. A message the server received longer
   * ago than that is never taken: its key may be gone, so a folder read again (a new UIDVALIDITY, a
   * message moved from Junk) could otherwise forward it twice.
   */
  seenRetentionMs: number;
};

export type MailboxSessionPorts = SealPorts & {
  pool: Pool;
  watcherId: string;
  /** Stores a fetch and moves its checkpoint (one store per process: `createMailboxStore`). */
  store: StoreMailboxBatch;
  onError?: (error: unknown, where: string) => void;
  /** Runs a login (token refresh, connect, authenticate) when the process has room for one more in flight. */
  limitLogins?: <T>(login: () => Promise<T>) => Promise<T>;
};

/** Mail from up to this long before the hand-out is the new owner's too (clocks of two servers differ). */
const handOutAllowanceMs = 60_000;
/** Messages whose bytes are fetched in one command. */
const fetchChunk = 50;
/** Bytes of messages stored in one transaction at most (a single larger message goes alone). */
const storeBatchBytes = 8 * 1024 * 1024;
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
export async function watchMailbox(
  ports: MailboxSessionPorts,
  settings: MailboxSessionSettings,
  account: WatchedAccount,
  signal: AbortSignal,
): Promise<void> {
  let failures = 0;
  let current = account;
  while (!signal.aborted) {
    // Set inside the login, which may run later (limitLogins): closed below however the session ends.
    const connection: { client: ImapFlow | null } = { client: null };
    try {
      const login = async () => {
        const { credentials, refreshed } = await resolveCredentials(ports, current);
        if (refreshed) {
          await storeAccessToken(ports.pool, current.email, refreshed);
          current = {
            ...current,
            sealedSecret: refreshed.sealedSecret,
            sealedAccessToken: refreshed.sealedAccessToken,
            accessTokenExpiresAt: refreshed.expiresAt,
          };
        }
        const opened = createImapClient(current, credentials, { socketTimeoutMs: Math.max(5 * 60_000, settings.pollMs * 2) });
        opened.on('error', () => {}); // reported through the command that fails, or 'close'
        connection.client = opened;
        await opened.connect();
        return opened;
      };
      const connected = await (ports.limitLogins ? ports.limitLogins(login) : login());
      if (signal.aborted) break;
      await recordLoginSucceeded(ports.pool, current.email, connected.capabilities.has('IDLE') ? 'idle' : 'poll');
      failures = 0;
      await followMailbox(ports, settings, current, connected, signal);
    } catch (error) {
      if (signal.aborted || error instanceof LeaseLost) break;
      if (isLoginRefused(error)) {
        const retryAt = new Date(ports.now().getTime() + settings.loginRetryMs * 2 ** Math.min(current.loginFailures, 16));
        await recordLoginFailed(ports.pool, {
          email: current.email,
          watcherId: ports.watcherId,
          error: describeImapError(error),
          retryAt,
          maxFailures: settings.maxLoginFailures,
        }).catch((recordError: unknown) => ports.onError?.(recordError, 'mailbox login record'));
        return;
      }
      ports.onError?.(error, `mailbox ${current.email}`);
      await recordMailboxError(ports.pool, current.email, describeImapError(error)).catch(() => {});
      failures += 1;
      await sleep(Math.min(settings.pollMs, 1000 * 2 ** Math.min(failures, 10)), signal);
    } finally {
      const open = connection.client;
      if (open) {
        await Promise.race([open.logout().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
        open.close();
      }
    }
  }
}

/**
 * Reads, waits, reads again, until the connection closes or the session stops. Every folder is
 * read every `pollMs`; in between, the server's IDLE notice of new mail in the selected folder
 * (INBOX) has only that folder read, without selecting it again.
 */
async function followMailbox(
  ports: MailboxSessionPorts,
  settings: MailboxSessionSettings,
  account: WatchedAccount,
  client: ImapFlow,
  signal: AbortSignal,
): Promise<void> {
  const canIdle = client.capabilities.has('IDLE');
  // INBOX is read last so it stays selected: IDLE reports changes of the selected folder only.
  const folders = [...settings.folders.filter((folder) => folder !== 'INBOX'), ...(settings.folders.includes('INBOX') ? ['INBOX'] : [])];
  const watched = folders.at(-1);
  const missing = new Set<string>();
  const memory: FolderMemory = new Map();
  let lastFullRead = -Infinity;
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
      const everyFolder = !canIdle || performance.now() - lastFullRead >= settings.pollMs;
      if (everyFolder) lastFullRead = performance.now();
      for (const folder of everyFolder ? folders : folders.filter((name) => name === watched)) {
        if (!missing.has(folder))
          await readFolder(ports, settings, account, client, folder, { missing, memory }, { reselect: everyFolder });
      }
      if (changed || signal.aborted || !client.usable) continue;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      if (canIdle) void client.idle().catch(() => {});
      // The poll timer goes with the wait it bounds: a session woken by every new message would
      // otherwise leave a timer per message behind, each alive for a whole poll period.
      let pollTimer: NodeJS.Timeout | undefined;
      const pollDue = new Promise<void>(
        (resolve) => (pollTimer = setTimeout(resolve, Math.max(0, lastFullRead + settings.pollMs - performance.now()))),
      );
      try {
        await Promise.race([woken, pollDue]);
      } finally {
        clearTimeout(pollTimer);
      }
    }
  } finally {
    client.off('exists', onChange);
    client.off('close', onChange);
    signal.removeEventListener('abort', onChange);
    // Only the selected folder can owe marks (the others are read in full, which marks at once).
    // Bounded like the logout: a server that does not answer must not hold up a shutdown.
    const selected = client.mailbox || null;
    const owed = selected ? memory.get(selected.path)?.unmarked : undefined;
    if (owed && owed.uidValidity === selected?.uidValidity) {
      await Promise.race([markForwarded(ports, client, owed), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    }
  }
}

/**
 * What a session knows of each folder it reads: the checkpoint as it last stored it (only the
 * lease holder moves it, and a session that lost the lease stores nothing and ends), the folder's
 * message count at its last read, and the forwarded messages not marked `$Forwarded` yet.
 */
type FolderMemory = Map<string, { progress: FolderProgress | null; exists: number; unmarked: Unmarked }>;

/** UIDs of forwarded messages still to be marked, under the UIDVALIDITY they belong to. */
type Unmarked = { uidValidity: bigint; uids: number[] };

/**
 * Marks forwarded messages of the selected folder `$Forwarded` (best effort, never needed for
 * correctness), in one command for all of them. A message woken for by IDLE is not marked at once:
 * that would cost every message a command of its own, and a change the server records (Maildir
 * renames the file). Its mark waits until the folder is read in full (every poll period), until a
 * fetch's worth of them waits, or until the session ends.
 */
async function markForwarded(ports: MailboxSessionPorts, client: ImapFlow, unmarked: Unmarked): Promise<void> {
  if (unmarked.uids.length === 0 || !client.usable) return;
  const uids = unmarked.uids.splice(0);
  await client
    .messageFlagsAdd(uids.join(','), [forwardedKeyword], { uid: true, silent: true })
    .catch((error: unknown) => ports.onError?.(error, 'mailbox keyword'));
}

/**
 * Stores every message of `folder` past its checkpoint, in UID order, up to a fetch's worth (and
 * `storeBatchBytes`) per transaction.
 * Without `reselect`, a folder that is selected already is read as the connection knows it (its
 * message count kept up to date by the server's notices).
 */
async function readFolder(
  ports: MailboxSessionPorts,
  settings: MailboxSessionSettings,
  account: WatchedAccount,
  client: ImapFlow,
  folder: string,
  { missing, memory }: { missing: Set<string>; memory: FolderMemory },
  options: { reselect: boolean },
): Promise<void> {
  const selected = !options.reselect && client.mailbox && client.mailbox.path === folder ? client.mailbox : null;
  let box;
  try {
    box = selected ?? (await client.mailboxOpen(folder));
  } catch (error) {
    // A folder the account does not have (no Junk) is left alone for this connection.
    if (folder !== 'INBOX' && client.usable) {
      missing.add(folder);
      return;
    }
    throw error;
  }
  const known = memory.get(folder);
  const progress = known ? known.progress : await readProgress(ports.pool, account.email, folder);
  const existsAtRead = box.exists;
  // Marks owed under another UIDVALIDITY would land on other messages: they are dropped.
  const unmarked: Unmarked = known?.unmarked.uidValidity === box.uidValidity ? known.unmarked : { uidValidity: box.uidValidity, uids: [] };
  const remember = (stored: FolderProgress | null) => memory.set(folder, { progress: stored, exists: existsAtRead, unmarked });
  remember(progress);
  const takesKeywords = box.permanentFlags?.has('\\*') === true || box.permanentFlags?.has(forwardedKeyword) === true;
  const owedMarks = (forwarded: number[]) => {
    if (takesKeywords) unmarked.uids.push(...forwarded);
    return options.reselect || unmarked.uids.length >= fetchChunk ? markForwarded(ports, client, unmarked) : Promise.resolve();
  };
  const from = progress && progress.uidValidity === box.uidValidity ? progress.lastUid + 1 : 1;
  // The next UID of a folder selected a while ago is stale: only the message count says there is nothing.
  if (box.exists === 0 || (!selected && box.uidNext !== undefined && box.uidNext <= from)) return owedMarks([]);
  // A notice of a few new messages in the selected folder: their bytes come with the listing, in
  // one command instead of two (a larger or unknown gap is listed first, then fetched a chunk at a time).
  const arrived = selected && known ? existsAtRead - known.exists : 0;
  const withSources = arrived > 0 && arrived <= fetchChunk;
  const listed: Array<{ uid: number; takes: boolean; raw?: Buffer }> = [];
  // Mail from before the hand-out belongs to no client; mail older than the retention of the keys cannot be proven new.
  const since = Math.max(
    account.assignedAt.getTime() - handOutAllowanceMs,
    ports.now().getTime() - settings.seenRetentionMs + handOutAllowanceMs,
  );
  for await (const message of client.fetch(`${from}:*`, { uid: true, internalDate: true, source: withSources }, { uid: true })) {
    // `n:*` names the last message even when its UID is below n.
    if (message.uid < from) continue;
    const date = message.internalDate instanceof Date ? message.internalDate.getTime() : Date.parse(String(message.internalDate ?? ''));
    const takes = !(date < since);
    listed.push({ uid: message.uid, takes, ...(takes && message.source ? { raw: message.source } : {}) });
  }
  listed.sort((a, b) => a.uid - b.uid);
  const mailbox = { email: account.email, alias: account.alias, imapHost: account.imap.host };
  for (let start = 0; start < listed.length; start += fetchChunk) {
    const chunk = listed.slice(start, start + fetchChunk);
    const wanted = chunk.filter((message) => message.takes && !message.raw).map((message) => message.uid);
    const sources = new Map<number, Buffer>(chunk.flatMap((message) => (message.raw ? [[message.uid, message.raw] as const] : [])));
    if (wanted.length > 0) {
      for await (const message of client.fetch(wanted.join(','), { uid: true, source: true }, { uid: true })) {
        if (message.source) sources.set(message.uid, message.source);
      }
    }
    const forwarded: number[] = [];
    for (const batch of batchesOf(chunk.map((message) => ({ uid: message.uid, raw: sources.get(message.uid) ?? null })))) {
      const stored = await ports.store({ account: mailbox, folder, uidValidity: box.uidValidity, messages: batch });
      if (stored.leaseLost) throw new LeaseLost(`lease of ${account.email} lost`);
      remember({ uidValidity: box.uidValidity, lastUid: batch.at(-1)?.uid ?? from - 1 });
      forwarded.push(...stored.forwarded);
    }
    await owedMarks(forwarded);
  }
  if (listed.length === 0) await owedMarks([]);
}

/** Consecutive messages whose bytes add up to at most `storeBatchBytes` (one message at least). */
function batchesOf(messages: Array<{ uid: number; raw: Buffer | null }>): Array<Array<{ uid: number; raw: Buffer | null }>> {
  const batches: Array<Array<{ uid: number; raw: Buffer | null }>> = [];
  let current: Array<{ uid: number; raw: Buffer | null }> = [];
  let bytes = 0;
  for (const message of messages) {
    const size = message.raw?.length ?? 0;
    if (current.length > 0 && bytes + size > storeBatchBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
