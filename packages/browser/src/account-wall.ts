import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { waitForQuietDom } from './quiet-dom.ts';

/** The account a client registered for one board of a vendor (`ats`), typed into that vendor's sign-in form only. Never logged. */
export type TenantAccount = { ats: string; board: string; email: string; password: string };

/** A vendor's account wall and its sign-in form, as CSS selectors. */
export type AccountWall = {
  ats: string;
  /** The vendor's name, for messages. */
  vendor: string;
  /** Present while the page asks for a sign-in (the wall, or the link that opens its form). */
  wall: string;
  /** What shows the sign-in form when the wall opens on another one (Workday's "Create Account" page). */
  open: string;
  email: string;
  password: string;
  submit: string;
  /** Where the vendor says why it refused the sign-in. */
  error: string;
  /**
   * What the vendor shows when, past the password, it asks for a code it sent to the account's
   * e-mail (no mailbox is read: the sign-in stops there).
   */
  emailCode?: string;
  /** The board a page is on, as accounts are registered for it (the page's host unless given: Workday's shared hosts add the tenant). */
  boardOf?: (url: URL) => string;
};

/**
 * Accounts a tenant refused, accounts it asked for an e-mailed code, by fingerprint, and the
 * sign-ins under way. Kept by one engine (the miner of a process, the applier of a process) for its life.
 */
export type SignInMemory = { refused: Set<string>; codeAsked: Set<string>; pending: Map<string, Promise<unknown>> };

export const createSignInMemory = (): SignInMemory => ({ refused: new Set(), codeAsked: new Set(), pending: new Map() });

export type SignInVerdict =
  { signedIn: true } | { signedIn: false; reason: 'noAccount' | 'otherHost' | 'refused' | 'emailCode' | 'noAnswer'; message: string };

const signInWaitMs = 15_000;

/**
 * Follows the links a person follows from a posting to its form while the page shows them
 * (Workday's Apply, then Apply Manually); stops at the account wall or when the next link never
 * comes. Workday draws its posting ~1.5 s after load.
 */
export async function followToForm(page: Page, links: readonly string[], wall: AccountWall | null): Promise<void> {
  for (const link of links) {
    const next = page.locator(link).filter({ visible: true }).first();
    const arrived = wall ? next.or(page.locator(wall.wall)).first() : next;
    await arrived.waitFor({ state: 'attached', timeout: 8_000 }).catch(() => {});
    if ((await next.count()) === 0) return;
    await next.click({ timeout: 10_000 });
    await page.waitForLoadState('domcontentloaded', { timeout: 10_000 }).catch(() => {});
    await waitForQuietDom(page, 250, 3_000);
  }
}

/** Says whether the page shows the vendor's account wall. */
export const showsWall = async (page: Page, wall: AccountWall): Promise<boolean> => (await page.locator(wall.wall).count()) > 0;

/**
 * Signs in on the vendor's account wall with the account the client registered for this tenant,
 * once. The password is typed only when the account is for this vendor and the page is on the
 * account's board (its host, or what the wall's `boardOf` says). A refusal is remembered by a fingerprint of the account (password
 * included, so registering a new one clears it) and never typed again by this engine: a wrong
 * password typed by every queued job would lock the account. A sign-in with an account that is
 * already being tried waits for that attempt's verdict first, so parallel jobs never type the
 * same wrong password together. A vendor that answers the password by asking for a code it
 * e-mailed to the account stops the sign-in (`emailCode`, which callers report as a bot check:
 * no mailbox is read); that too is remembered, so queued jobs do not each have a code sent. The
 * messages never carry the email or the password.
 */
export async function signInOnce(
  page: Page,
  wall: AccountWall,
  account: TenantAccount | undefined,
  memory: SignInMemory,
): Promise<SignInVerdict> {
  const asks = `LoginRequired: ${wall.vendor} asks the candidate to sign in to an account before the form`;
  if (!account || account.ats !== wall.ats) return { signedIn: false, reason: 'noAccount', message: asks };
  const url = new URL(page.url());
  const board = wall.boardOf ? wall.boardOf(url) : url.host.toLowerCase();
  if (account.board.toLowerCase() !== board) {
    return {
      signedIn: false,
      reason: 'otherHost',
      message: `${asks} (the client's ${wall.vendor} account is for ${account.board}, this page is on ${board})`,
    };
  }
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([account.ats, account.board, account.email, account.password]))
    .digest('hex');
  const refused = (said: string): SignInVerdict => ({
    signedIn: false,
    reason: 'refused',
    message: `LoginFailed: ${wall.vendor} refused the client's account for ${account.board}: "${said}". Nothing was filled; the account is not tried again until the client registers it anew`,
  });
  const earlier = memory.pending.get(fingerprint);
  if (earlier) await earlier.catch(() => {});
  if (memory.refused.has(fingerprint)) return refused('refused at an earlier sign-in');
  const codeAsked = (when: string): SignInVerdict => ({
    signedIn: false,
    reason: 'emailCode',
    message: `BotDetection: ${wall.vendor} asks for a verification code it e-mailed to the client's account for ${account.board}${when}; the service reads no mailbox. Nothing was filled; the account is not tried again until the client registers it anew`,
  });
  if (memory.codeAsked.has(fingerprint)) return codeAsked(' (at an earlier sign-in)');
  const asksForCode = async () => Boolean(wall.emailCode) && (await page.locator(wall.emailCode ?? '').count()) > 0;

  const attempt = (async (): Promise<SignInVerdict> => {
    const email = page.locator(wall.email).filter({ visible: true }).first();
    if ((await email.count()) === 0) await page.locator(wall.open).filter({ visible: true }).first().click({ timeout: 10_000 });
    await email.fill(account.email, { timeout: 10_000 });
    await page.locator(wall.password).filter({ visible: true }).first().fill(account.password, { timeout: 10_000 });
    await page.locator(wall.submit).filter({ visible: true }).first().click({ timeout: 10_000 });
    const refusal = page.locator(wall.error).filter({ visible: true }).first();
    const stoppedForCode = () => {
      memory.codeAsked.add(fingerprint);
      return codeAsked('');
    };
    for (const until = Date.now() + signInWaitMs; Date.now() < until; await page.waitForTimeout(150)) {
      if (await asksForCode()) return stoppedForCode();
      if (!(await showsWall(page, wall))) {
        await waitForQuietDom(page, 250, 3_000);
        // The wall may go a moment before the code's page is drawn.
        return (await asksForCode()) ? stoppedForCode() : { signedIn: true };
      }
      if ((await refusal.count()) > 0) {
        memory.refused.add(fingerprint);
        return refused(((await refusal.textContent()) ?? '').trim());
      }
    }
    return {
      signedIn: false,
      reason: 'noAnswer',
      message: `LoginFailed: ${wall.vendor} neither signed the client's account in nor said why within ${signInWaitMs / 1_000} s`,
    };
  })();
  memory.pending.set(fingerprint, attempt);
  try {
    return await attempt;
  } finally {
    if (memory.pending.get(fingerprint) === attempt) memory.pending.delete(fingerprint);
  }
}
