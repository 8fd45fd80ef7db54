import { dashboardSessionCookie, type Authenticator, type SessionCodec } from '@quarry/auth';
import type { OidcSettings } from '@quarry/config';
import { parseCookie, stringifySetCookie } from 'cookie';
import { Router, type Request, type Response } from 'express';
import * as oidc from 'openid-client';
import { loginPage } from './dashboard-pages.ts';
import { sessionChallenge } from './session-challenge.ts';

const stateCookie = 'quarry_sso';
const loopback = /^(127\.|localhost$|\[::1\]$)/;

function emailAllowed(email: string | undefined, allowed: string[]): boolean {
  if (allowed.length === 0) return true;
  if (!email) return false;
  const lower = email.toLowerCase();
  return allowed.some((entry) => (entry.startsWith('@') ? lower.endsWith(entry) : lower === entry));
}

/**
 * Single sign-on through an OpenID Connect provider: authorization code flow with PKCE, state
 * and nonce kept in a short-lived signed cookie between the two redirects.
 */
export function oidcSignInRoutes(deps: { settings: OidcSettings; sessions: SessionCodec; authenticator: Authenticator }): Router {
  const router = Router();
  const redirectUri = `${deps.settings.publicUrl}/dashboard/sso/callback`;
  let configuration: Promise<oidc.Configuration> | null = null;
  const discover = () => {
    const issuer = new URL(deps.settings.issuer);
    // Plain http only for a provider on this machine (development and tests).
    const insecure = issuer.protocol === 'http:' && loopback.test(issuer.hostname);
    configuration ??= oidc
      .discovery(
        issuer,
        deps.settings.clientId,
        deps.settings.clientSecret,
        undefined,
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        configuration = null;
        throw error;
      });
    return configuration;
  };
  const transientCookie = (request: Request, value: string, maxAge: number) =>
    // Lax, not Strict: the provider's redirect back is a cross-site navigation.
    stringifySetCookie({
      name: stateCookie,
      value,
      httpOnly: true,
      sameSite: 'lax',
      secure: request.secure,
      path: '/dashboard/sso',
      maxAge,
    });

  router.get('/dashboard/sso/start', async (request, response) => {
    const config = await discover();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    response.setHeader('Set-Cookie', transientCookie(request, deps.sessions.seal('sso', { verifier, state, nonce }, 10 * 60_000), 600));
    response.redirect(303, url.href);
  });

  router.get('/dashboard/sso/callback', async (request: Request, response: Response) => {
    const pending = deps.sessions.open('sso', parseCookie(request.headers.cookie ?? '')[stateCookie]);
    const refuse = (status: number, error: string) => {
      if (status === 401) response.setHeader('WWW-Authenticate', sessionChallenge);
      response
        .status(status)
        .type('html')
        .send(loginPage({ error, sso: true }));
    };
    if (!pending?.verifier || !pending.state || !pending.nonce) {
      refuse(400, 'The sign-in took too long or was started elsewhere; try again.');
      return;
    }
    let email: string | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(await discover(), new URL(request.originalUrl, deps.settings.publicUrl), {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const config = await discover();
      const claims = tokens.claims();
      // Providers may keep the email out of the ID token and serve it from userinfo only.
      const profile =
        typeof claims?.email === 'string' || !claims ? claims : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      email = typeof profile?.email === 'string' && profile.email_verified !== false ? profile.email : undefined;
    } catch {
      refuse(401, 'The identity provider did not confirm the sign-in.');
      return;
    }
    const client = await deps.authenticator.clientById(deps.settings.adminClientId);
    if (!emailAllowed(email, deps.settings.allowedEmails) || !client?.scopes.includes('admin')) {
      refuse(403, `${email ?? 'This account'} may not use this dashboard.`);
      return;
    }
    const issued = deps.sessions.issue(client.clientId);
    response.setHeader('Set-Cookie', [
      transientCookie(request, '', 0),
      stringifySetCookie({
        name: dashboardSessionCookie,
        value: issued.value,
        httpOnly: true,
        sameSite: 'strict',
        secure: request.secure,
        path: '/',
        maxAge: Math.floor((issued.session.expiresAt - Date.now()) / 1000),
      }),
    ]);
    response.redirect(303, '/dashboard');
  });
  return router;
}
