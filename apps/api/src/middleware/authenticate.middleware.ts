import { AppError, type ErrorSurface, type Scope } from '@quarry/contracts';
import type { AuthenticatedClient, Authenticator } from '@quarry/auth';
import type { NextFunction, Request, Response } from 'express';

type ClientLocals = { client: AuthenticatedClient; errorSurface: ErrorSurface };

/** The authenticated client of a request that went through `requireClient`. */
export function clientOf(response: Response): AuthenticatedClient {
  return (response.locals as ClientLocals).client;
}

/**
 * Authenticates and checks the scope. The failure each surface shows differs by interface:
 * hotel surfaces answer 401 EndpointAccessAuthorizationError even for a missing scope; the
 * others answer 401 for a bad credential and 403 for a missing scope (DECISIONS.md).
 */
export function requireClient(
  authenticator: Authenticator,
  options: { scope: Scope | 'any'; surface?: ErrorSurface; hotelSurface?: boolean },
) {
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    response.locals.errorSurface = options.surface ?? 'standard';
    try {
      const client = await authenticator.authenticate(request.headers.authorization);
      if (!client) {
        next(new AppError(options.hotelSurface ? 'EndpointAccessAuthorizationError' : 'AuthenticationRequired'));
        return;
      }
      if (options.scope !== 'any' && !client.scopes.includes(options.scope)) {
        next(new AppError(options.hotelSurface ? 'EndpointAccessAuthorizationError' : 'Forbidden'));
        return;
      }
      response.locals.client = client;
      next();
    } catch (error) {
      next(error);
    }
  };
}
