export { createKeyring, KeyringError } from './keyring.ts';
export type { Keyring, KeyringKey, SealedFor } from './keyring.ts';
