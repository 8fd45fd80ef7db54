import { PanTokenInvalidError, type CardVault } from '@quarry/vault';

/**
 * The card vault as this process has it before the vault's implementation is wired in: tokens are
 * recognised by their shape (v1: 164 characters; v2: `v2:` and 296 more), and none opens, so a
 * booking that reaches its order fails `PanTokenInvalid` before anything is sent to the hotel.
 */
export const unwiredCardVault: CardVault = {
  isPanTokenShaped: (token) => /^[A-Za-z0-9_\-+/=.]{164}$/.test(token) || /^v2:[A-Za-z0-9_\-+/=.]{296}$/.test(token),
  openCard: () => Promise.reject(new PanTokenInvalidError('this deployment has no card vault')),
  purgeCard: () => Promise.resolve(),
};
