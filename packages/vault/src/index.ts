export { createCardVault } from './card-vault.ts';
export type { CardVaultOptions, CardVaultService } from './card-vault.ts';
export { CvvUnavailableError, PanTokenInvalidError } from './vault-port.ts';
export type { CardDetails, CardVault } from './vault-port.ts';
export { noCardVault } from './no-card-vault.ts';
export {
  cardRowOf,
  createVaultKeys,
  hasVaultKeys,
  vaultKeySettingsOf,
  legacyVaultKeys,
  sealLegacy,
  vaultCardColumn,
  vaultKeyId,
} from './vault-keys.ts';
export type { VaultKeys, VaultKeySettings } from './vault-keys.ts';
export { resealCards, resealCvvs, vaultKeysStatus } from './vault-rotation.ts';
export type { CvvResealProgress, VaultKeysStatus } from './vault-rotation.ts';
