import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Authenticator } from '@quarry/auth';
import { AppError, OtpView, PanTokenView, StorePanBody } from '@quarry/contracts';
import type { CardVaultService } from '@quarry/vault';
import { Router } from 'express';
import { clientOf, requireClient } from '../middleware/authenticate.middleware.ts';
import { errorResponses, securedBy } from '../openapi-shared.ts';

/**
 * The card vault (`booking` scope): an OTP, then one card stored with it for a token. Without a
 * vault (no VAULT_KEY) both answer 503 VaultNotConfigured, so a client learns why.
 */
export function vaultRoutes(deps: {
  authenticator: Authenticator;
  vault: Pick<CardVaultService, 'issueOtp' | 'storePan'> | undefined;
}): Router {
  const router = Router();
  const booking = requireClient(deps.authenticator, { scope: 'booking' });
  const vaultOf = () => {
    if (!deps.vault) throw new AppError('VaultNotConfigured');
    return deps.vault;
  };

  router.post('/vault/otp', booking, async (_request, response) => {
    response.set('cache-control', 'no-store').json(await vaultOf().issueOtp(clientOf(response).clientId));
  });
  router.post('/vault/pan', booking, async (request, response) => {
    response.set('cache-control', 'no-store').json(await vaultOf().storePan(clientOf(response).clientId, request.body));
  });
  return router;
}

export function describeVaultRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Card vault'];
  registry.registerPath({
    method: 'post',
    path: '/vault/otp',
    summary: 'A one-time password that authorises storing one card, valid for one hour',
    tags,
    security: securedBy,
    responses: {
      200: { description: 'The OTP', content: { 'application/json': { schema: OtpView } } },
      ...errorResponses([401, 403, 500, 503]),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/vault/pan',
    summary: 'Store a card for bookings; answers its token (v2: 299 characters, or v1: 164 on request)',
    description:
      'The card number is Luhn-checked and the expiry must not be past; every problem is named by field in a 400, and an unknown, used or expired ' +
      'otp is a 400 naming otp (a refused card leaves the OTP unspent). The card is kept encrypted under the vault key for the client that stored it, ' +
      'until its booking ends or its retention passes; the CVV is kept only in memory-backed storage until its one use or 15 minutes. ' +
      'The token carries no card data: pass it as panToken of POST /book/{bookingId}.',
    tags,
    security: securedBy,
    request: { body: { content: { 'application/json': { schema: StorePanBody } } } },
    responses: {
      200: { description: 'The card token', content: { 'application/json': { schema: PanTokenView } } },
      ...errorResponses([400, 401, 403, 415, 500, 503]),
    },
  });
}
