export { createKeyring, KeyringError } from './keyring.ts';
export type { Keyring, KeyringKey, SealedFor } from './keyring.ts';
export { createDeploymentKeyring, createSealer, sealedForOf, secretKeyId } from './deployment-keyring.ts';
export type { ColumnSealer, KeyringSettings, Sealer } from './deployment-keyring.ts';
export { atsCredentialRow, sealedColumns } from './sealed-columns.ts';
export type { SealedColumn } from './sealed-columns.ts';
export { countSealedByKey, resealColumns } from './reseal.ts';
export type { ColumnKeyCounts, ResealProgress } from './reseal.ts';
