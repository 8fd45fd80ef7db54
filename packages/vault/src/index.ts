export { PanTokenInvalidError } from './vault-port.ts';
export type { CardDetails, CardVault } from './vault-port.ts';
