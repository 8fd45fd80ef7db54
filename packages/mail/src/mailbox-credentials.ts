import { sealedColumns, type ColumnSealer } from '@quarry/keyring';
import type { AccountSecret, MailboxCredentials } from './mailbox-login.ts';
import { refreshAccessToken } from './oauth2-token.ts';

/** The keyring's sealing (a mailbox's values are bound to its account's row, the address), a clock, and fetch for OAuth2. */
export type SealPorts = Pick<ColumnSealer, 'seal' | 'open'> & { now: () => Date; fetch?: typeof fetch };

/** A refreshed grant, to store (sealed) beside the account. */
export type RefreshedGrant = { sealedSecret: Buffer; sealedAccessToken: Buffer; expiresAt: Date };

/** An access token is renewed this long before it expires, so a login never races its expiry. */
const tokenMarginMs = 5 * 60_000;

/**
 * The credentials of one login: the password, or an access token that is still good for a while,
 * or else a fresh one from the refresh token (the caller stores what was refreshed).
 */
export async function resolveCredentials(
  ports: SealPorts,
  account: { email: string; sealedSecret: Buffer; sealedAccessToken: Buffer | null; accessTokenExpiresAt: Date | null },
): Promise<{ credentials: MailboxCredentials; refreshed: RefreshedGrant | null }> {
  const secret = JSON.parse(ports.open(sealedColumns.mailboxSecret, account.email, account.sealedSecret)) as AccountSecret;
  if (!secret.oauth2) return { credentials: { password: secret.password ?? '' }, refreshed: null };
  const now = ports.now();
  if (account.sealedAccessToken && account.accessTokenExpiresAt && account.accessTokenExpiresAt.getTime() - tokenMarginMs > now.getTime()) {
    return {
      credentials: { accessToken: ports.open(sealedColumns.mailboxAccessToken, account.email, account.sealedAccessToken) },
      refreshed: null,
    };
  }
  const token = await refreshAccessToken(secret.oauth2, now, ports.fetch);
  const renewed: AccountSecret = { ...secret, oauth2: { ...secret.oauth2, refreshToken: token.refreshToken } };
  return {
    credentials: { accessToken: token.accessToken },
    refreshed: {
      sealedSecret: ports.seal(sealedColumns.mailboxSecret, account.email, JSON.stringify(renewed)),
      sealedAccessToken: ports.seal(sealedColumns.mailboxAccessToken, account.email, token.accessToken),
      expiresAt: token.expiresAt,
    },
  };
}
