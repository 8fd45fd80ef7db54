import { readFileSync } from 'node:fs';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import {
  dashboardSessionCookie,
  sameToken,
  type AuthenticatedClient,
  type Authenticator,
  type DashboardSession,
  type SessionCodec,
} from '@quarry/auth';
import { AppError } from '@quarry/contracts';
import { queueNames, type JobQueues } from '@quarry/jobs';
import { parseCookie, stringifySetCookie } from 'cookie';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { appShell, loginPage } from './dashboard-pages.ts';
import { oidcSignInRoutes } from './oidc-sign-in.routes.ts';
import type { OidcSettings } from '@quarry/config';
import { sessionChallenge } from './session-challenge.ts';

const assets = {
  'dashboard.js': { type: 'text/javascript', body: readFileSync(new URL('./assets/dashboard.js', import.meta.url), 'utf8') },
  'dashboard-callbacks.js': {
    type: 'text/javascript',
    body: readFileSync(new URL('./assets/dashboard-callbacks.js', import.meta.url), 'utf8'),
  },
  'dashboard-bookings.js': {
    type: 'text/javascript',
    body: readFileSync(new URL('./assets/dashboard-bookings.js', import.meta.url), 'utf8'),
  },
  'dashboard.css': { type: 'text/css', body: readFileSync(new URL('./assets/dashboard.css', import.meta.url), 'utf8') },
};
const favicon = readFileSync(new URL('./assets/favicon.svg', import.meta.url));

export type DashboardDeps = {
  authenticator: Authenticator;
  sessions: SessionCodec;
  queues: JobQueues;
  /** Running batches' queue keys, for the raw queue view. */
  activeBatchIds: () => Promise<string[]>;
  /** Single sign-on, when configured. */
  oidc?: OidcSettings | undefined;
};

type SessionLocals = { session: DashboardSession; clientName: string };

/** Whether an Origin header names this host; `null` (sandboxed or privacy-sensitive contexts) or garbage does not. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

function securityHeaders(_request: Request, response: Response, next: NextFunction): void {
  response.set({
    'Content-Security-Policy':
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  });
  next();
}

/**
 * The operators' dashboard at /dashboard: a session cookie (HttpOnly, SameSite=Strict, Secure
 * over TLS) after signing in with an admin client's secret; pages call the same admin API,
 * sending the session's CSRF token on every change. No page is served without a session.
 */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = Router();
  router.use('/dashboard', securityHeaders);

  const cookieFor = (request: Request, value: string, maxAgeSeconds: number) =>
    stringifySetCookie({
      name: dashboardSessionCookie,
      value,
      httpOnly: true,
      sameSite: 'strict',
      secure: request.secure,
      path: '/',
      maxAge: maxAgeSeconds,
    });

  const requireSession = async (request: Request, response: Response, next: NextFunction) => {
    const session = deps.sessions.verify(parseCookie(request.headers.cookie ?? '')[dashboardSessionCookie]);
    const client = session ? await deps.authenticator.clientById(session.clientId) : null;
    if (!session || !client?.scopes.includes('admin')) {
      if (request.method === 'GET' && request.accepts('html')) response.redirect(303, '/dashboard/login');
      else
        response
          .status(401)
          .setHeader('WWW-Authenticate', sessionChallenge)
          .json({ object: 'error', name: 'AuthenticationRequired', message: 'Sign in to the dashboard', details: {} });
      return;
    }
    Object.assign(response.locals, { session, clientName: client.name } satisfies SessionLocals);
    next();
  };

  // The icon is public (the sign-in page shows it too); browsers that ask /favicon.ico on their own
  // get the same SVG, which every current browser accepts there.
  router.get(['/dashboard/favicon.svg', '/favicon.ico'], (_request, response) => {
    response.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(favicon);
  });

  router.get('/dashboard/assets/:name', (request, response) => {
    const asset = assets[request.params.name as keyof typeof assets];
    if (!asset) {
      response.status(404).end();
      return;
    }
    response.type(asset.type).send(asset.body);
  });

  const sso = Boolean(deps.oidc);
  if (deps.oidc) router.use(oidcSignInRoutes({ settings: deps.oidc, sessions: deps.sessions, authenticator: deps.authenticator }));

  router.get('/dashboard/login', (_request, response) => {
    response.type('html').send(loginPage({ sso }));
  });

  router.post('/dashboard/login', express.urlencoded({ extended: false, limit: '4kb' }), async (request, response) => {
    // Login CSRF: a browser posting from another site sends its Origin; refuse it.
    const origin = request.headers.origin;
    if (origin && !sameOrigin(origin, request.headers.host)) {
      response
        .status(403)
        .type('html')
        .send(loginPage({ error: 'Sign-in from another site was refused.', sso }));
      return;
    }
    const secret = typeof request.body?.secret === 'string' ? request.body.secret.trim() : '';
    let client: AuthenticatedClient | null;
    try {
      // An empty secret counts as a failed attempt too: the form is the same door.
      client = await deps.authenticator.authenticate(`Basic ${Buffer.from(`${secret}:`).toString('base64')}`, { address: request.ip });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'TooManyRequests') throw error;
      response.status(429).setHeader('Retry-After', String(error.retryAfterSeconds ?? 60));
      response
        .type('html')
        .send(
          loginPage({ error: `Too many failed sign-ins from this address; try again in ${error.retryAfterSeconds ?? 60} seconds.`, sso }),
        );
      return;
    }
    if (!client || !client.scopes.includes('admin')) {
      response.status(401).setHeader('WWW-Authenticate', sessionChallenge);
      response.type('html').send(loginPage({ error: 'That secret does not belong to an active client with the admin scope.', sso }));
      return;
    }
    const issued = deps.sessions.issue(client.clientId);
    response.setHeader('Set-Cookie', cookieFor(request, issued.value, Math.floor((issued.session.expiresAt - Date.now()) / 1000)));
    response.redirect(303, '/dashboard');
  });

  router.post('/dashboard/logout', express.urlencoded({ extended: false, limit: '4kb' }), requireSession, (request, response) => {
    const { session } = response.locals as SessionLocals;
    if (!sameToken(typeof request.body?.csrf === 'string' ? request.body.csrf : undefined, session.csrf)) {
      response.status(403).json({ object: 'error', name: 'Forbidden', message: 'Missing or wrong CSRF token', details: {} });
      return;
    }
    response.setHeader('Set-Cookie', cookieFor(request, '', 0));
    response.redirect(303, '/dashboard/login');
  });

  // bull-board for raw queue inspection, read-only: its own UI cannot send our CSRF token, so it
  // gets no way to change anything (pause/resume go through the admin API).
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/dashboard/queues/raw');
  const board = createBullBoard({ queues: [], serverAdapter, options: { uiConfig: { boardTitle: 'Quarry queues' } } });
  const refreshBoard = async (_request: Request, _response: Response, next: NextFunction) => {
    const batchQueues = (await deps.activeBatchIds()).map((batchId) => deps.queues.familyQueue('mining.batch', batchId));
    board.replaceQueues(
      [...queueNames.map((name) => deps.queues.queue(name)), ...batchQueues].map(
        (queue) => new BullMQAdapter(queue, { readOnlyMode: true }),
      ),
    );
    next();
  };
  // bull-board's page needs inline scripts and styles of its own.
  const boardPolicy = (_request: Request, response: Response, next: NextFunction) => {
    response.set(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    );
    next();
  };
  // Its page links a Google Fonts stylesheet, which that policy refuses (and which would tell
  // Google of every operator's visit): the link is cut from the page; its own fonts fall back.
  const withoutRemoteFonts = (_request: Request, response: Response, next: NextFunction) => {
    const render = response.render.bind(response) as (
      view: string,
      options: object,
      callback: (error: Error | null, html: string) => void,
    ) => void;
    (response as { render: unknown }).render = (view: string, options: object = {}) =>
      render(view, options, (error, html) =>
        error ? next(error) : response.send(html.replace(/<link\b[^>]*\bhref="https:\/\/fonts\.(?:googleapis|gstatic)\.com[^>]*>\s*/g, '')),
      );
    next();
  };
  router.use(
    '/dashboard/queues/raw',
    requireSession,
    boardPolicy,
    withoutRemoteFonts,
    refreshBoard,
    serverAdapter.getRouter() as express.Router,
  );

  router.get(['/dashboard', '/dashboard/'], requireSession, (_request, response) => {
    const { session, clientName } = response.locals as SessionLocals;
    response.type('html').send(appShell({ csrf: session.csrf, clientName }));
  });
  return router;
}
