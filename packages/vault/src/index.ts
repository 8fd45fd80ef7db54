export { createCardVault } from './card-vault.ts';
export type { CardVaultOptions, CardVaultService } from './card-vault.ts';
export { CvvUnavailableError, PanTokenInvalidError } from './vault-port.ts';
export type { CardDetails, CardVault } from './vault-port.ts';
export { noCardVault } from './no-card-vault.ts';
