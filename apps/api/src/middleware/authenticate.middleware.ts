import { AppError, type ErrorSurface, type Scope } from '@quarry/contracts';
import { dashboardSessionCookie, sameToken, type AuthenticatedClient, type Authenticator } from '@quarry/auth';
import { parseCookie } from 'cookie';
import type { NextFunction, Request, Response } from 'express';
import { inputProblem, type InputOptions } from './request-input.middleware.ts';

type ClientLocals = { client: AuthenticatedClient; errorSurface: ErrorSurface };

/** The authenticated client of a request that went through `requireClient`. */
export function clientOf(response: Response): AuthenticatedClient {
  return (response.locals as ClientLocals).client;
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Operator (admin) endpoints also accept the dashboard's session cookie, so the dashboard calls
 * the same admin API as any script. A state-changing call must then carry the session's CSRF
 * token in `x-csrf-token`; without it the cookie does not count as a credential.
 */
async function fromDashboardSession(authenticator: Authenticator, request: Request): Promise<AuthenticatedClient | null> {
  if (!authenticator.sessions || !request.headers.cookie) return null;
  const session = authenticator.sessions.verify(parseCookie(request.headers.cookie)[dashboardSessionCookie]);
  if (!session) return null;
  if (!safeMethods.has(request.method) && !sameToken(request.header('x-csrf-token'), session.csrf)) {
    throw new AppError('Forbidden', 'Missing or wrong CSRF token');
  }
  return authenticator.clientById(session.clientId);
}

/**
 * Authenticates, checks the scope, then the input every endpoint must refuse (`inputProblem`:
 * media type, NUL characters). The failure each surface shows differs by interface:
 * hotel surfaces answer 401 EndpointAccessAuthorizationError even for a missing scope; the
 * others answer 401 for a bad credential and 403 for a missing scope.
 */
export function requireClient(
  authenticator: Authenticator,
  options: { scope: Scope | 'any'; surface?: ErrorSurface; hotelSurface?: boolean } & InputOptions,
) {
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    response.locals.errorSurface = options.surface ?? 'standard';
    try {
      const client =
        request.headers.authorization || options.scope !== 'admin'
          ? await authenticator.authenticate(request.headers.authorization, { address: request.ip })
          : await fromDashboardSession(authenticator, request);
      if (!client) {
        next(new AppError(options.hotelSurface ? 'EndpointAccessAuthorizationError' : 'AuthenticationRequired'));
        return;
      }
      if (options.scope !== 'any' && !client.scopes.includes(options.scope)) {
        next(
          options.hotelSurface
            ? new AppError('EndpointAccessAuthorizationError')
            : new AppError(
                'Forbidden',
                `This endpoint needs the "${options.scope}" scope, which this client does not have (it has: ${client.scopes.join(', ') || 'none'}); use a client created with it`,
                { missingScope: options.scope },
              ),
        );
        return;
      }
      response.locals.client = client;
      next(inputProblem(request, options) ?? undefined);
    } catch (error) {
      next(error);
    }
  };
}
