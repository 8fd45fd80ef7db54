import { PanTokenInvalidError, type CardVault } from './vault-port.ts';
import { isPanTokenShaped } from '@quarry/contracts';

/**
 * The vault of a deployment without `VAULT_KEY`: tokens are recognised by their shape (nothing more
 * can be checked at `POST /book`), none opens, so a booking that reaches its order fails
 * `PanTokenInvalid` before anything is sent to the hotel.
 */
export const noCardVault: CardVault = {
  isPanTokenShaped,
  checkCard: () => Promise.resolve(),
  openCard: () => Promise.reject(new PanTokenInvalidError('this deployment has no card vault (VAULT_KEY)')),
  holdCvv: () => Promise.resolve(),
  spendCvv: () => Promise.resolve(),
  purgeCard: () => Promise.resolve(),
};
