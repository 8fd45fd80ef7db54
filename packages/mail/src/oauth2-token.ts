import { z } from 'zod';
import { MailboxLoginRefused } from './mailbox-login.ts';

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().default(3600),
  refresh_token: z.string().min(1).optional(),
});

export type FreshToken = { accessToken: string; expiresAt: Date; refreshToken: string };

/**
 * Exchanges a refresh token for an access token (RFC 6749 §6, as Microsoft's identity platform
 * takes it: a public client, no secret). Providers may rotate the refresh token: the answer's one
 * replaces the old, which the caller stores sealed. A 400/401 (revoked, expired grant) is a refused
 * login; anything else is a passing failure.
 */
export async function refreshAccessToken(
  grant: { tokenUrl: string; clientId: string; refreshToken: string },
  now: Date,
  fetchImpl: typeof fetch = fetch,
): Promise<FreshToken> {
  const response = await fetchImpl(grant.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: grant.clientId, refresh_token: grant.refreshToken }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status === 400 || response.status === 401) {
    throw new MailboxLoginRefused(`token refresh refused (${response.status}): ${text.slice(0, 300)}`);
  }
  if (!response.ok) throw new Error(`token refresh failed (${response.status}): ${text.slice(0, 300)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('token refresh answered something that is not JSON');
  }
  const parsed = TokenAnswer.safeParse(body);
  if (!parsed.success)
    throw new Error(`token refresh answer: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  return {
    accessToken: parsed.data.access_token,
    expiresAt: new Date(now.getTime() + parsed.data.expires_in * 1000),
    refreshToken: parsed.data.refresh_token ?? grant.refreshToken,
  };
}
